"""The words of a text as evidence: content terms, term profiles, clauses and the run's IDF.

Every lexical signal (``signals/``) reads texts through this one toolkit, so they agree on
what a term is. A term is a normalised number, a code (SH-240, and its numeric parts), a
capitalised name or a stemmed word that is not a stop word; numbers and codes weigh 2, names
1.5. A term's weight in a run is its IDF over the run's own sources (``Corpus``).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Vector, cosine

# one string per list, split: a word per line made these two lists 170 lines
STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these
    they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yes please let ll ve re d s t m don
    didn isn aren wasn weren won""".split()  # noqa: SIM905
)
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
        fifteen sixteen seventeen eighteen nineteen twenty""".split()  # noqa: SIM905
    )
}
_NUMBER_WORDS.update(
    re.findall(
        r"(\w+):(\d+)",
        "thirty:30 forty:40 fifty:50 sixty:60 seventy:70 eighty:80 ninety:90 hundred:100 "
        "thousand:1000 million:1000000",
    )
)
# words, numbers with inner separators (5,000  4.125  24.96), codes (SH-240, QX7T2L)
_TOKEN = r"[^\W_]+(?:[.,'’\-][^\W_]+)*"
_CLAUSE = r"(?:[.!?;:\n—–]+(?:\s|$)|,\s+(?:so|but|which|because|and)\s|\s-\s|\(|\))"
# The patterns are compiled on first use (re caches them): upstream parity never scores evidence,
# and compiling them took ~0.6 ms of every start.


def _stem(w: str) -> str:
    for suf, keep in (("ing", 4), ("ed", 4), ("es", 4), ("s", 3), ("ly", 4)):
        if w.endswith(suf) and len(w) - len(suf) >= keep and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


class Term(Struct, frozen=True):
    key: str
    boost: float  # 2 numbers/codes, 1.5 names, 1 words


def terms(text: str) -> list[Term]:
    """Content terms in order: normalised numbers, codes, names and stemmed rare words."""
    return [t for t, _, _ in _located(unicodedata.normalize("NFKC", text))]


def located_terms(text: str) -> list[tuple[Term, int, int]]:
    """``terms`` with where each stands in ``text``: (term, start, end) as Python string
    indices (code points) into ``text`` itself, as given (not its NFKC form).

    ``terms`` reads the NFKC form of the whole text; here each character is normalised on its
    own, so offsets map back. The two differ only where NFKC composes across characters, and
    there a term is at worst not located.
    """
    if unicodedata.is_normalized("NFKC", text):  # (nearly every text: offsets are its own)
        return _located(text)
    norm: list[str] = []
    back: list[int] = []  # the original index of each character of the normalised text
    for i, ch in enumerate(text):
        n = unicodedata.normalize("NFKC", ch) if ord(ch) > 127 else ch
        norm.append(n)
        back.extend([i] * len(n))
    back.append(len(text))
    joined = "".join(norm)
    out: list[tuple[Term, int, int]] = []
    for t, a, b in _located(joined):
        end = back[b - 1] + 1 if b > a else back[a]
        out.append((t, back[a], end))
    return out


def _located(text: str) -> list[tuple[Term, int, int]]:
    # the one tokenizer of both: each term with the span of the token it came from
    out: list[tuple[Term, int, int]] = []
    for m in re.finditer(_TOKEN, text):
        raw = m.group(0)
        at = (m.start(), m.end())
        low = raw.lower().replace("’", "'")
        if low.endswith("'s"):
            low = low[:-2]
        has_digit = any(c.isdigit() for c in low)
        if has_digit:
            if re.fullmatch(r"[\d.,]+", low):
                # a number: drop thousands separators and a zero fraction (1,188.00 -> 1188)
                n = low.replace(",", "")
                if "." in n:
                    n = n.rstrip("0").rstrip(".") or "0"
                out.append((Term(n, 2.0), *at))
            else:
                # a code (SH-240, 4be19c2): the whole, and its numeric parts (240)
                out.append((Term(low, 2.0), *at))
                out.extend((Term(p, 2.0), *at) for p in re.findall(r"\d+", low) if p != low)
            continue
        for part in re.split(r"[.,'\-]", low):
            if not part:
                continue
            if part in _NUMBER_WORDS:
                out.append((Term(_NUMBER_WORDS[part], 2.0), *at))
                continue
            if part in STOP or len(part) < 2:
                continue
            name = raw[:1].isupper() and m.start() > 0 and not _sentence_start(text, m.start())
            out.append((Term(_stem(part), 1.5 if name else 1.0), *at))
    return out


def _sentence_start(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in " \t\"'(“‘":
        j -= 1
    return j < 0 or text[j] in ".!?:\n;—–-•*"


class Profile(Struct):
    """A text's term and bigram sets with their boosts."""

    terms: dict[str, float]
    bigrams: set[tuple[str, str]]


def profile(text: str) -> Profile:
    return profile_of(terms(text))


def profile_of(ts: list[Term]) -> Profile:
    """The profile of a text's terms, in order."""
    keys: dict[str, float] = {}
    for t in ts:
        keys[t.key] = max(keys.get(t.key, 0.0), t.boost)
    bigrams = {(a.key, b.key) for a, b in itertools.pairwise(ts) if a.key != b.key}
    return Profile(keys, bigrams)


def clauses(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(_CLAUSE, text)]
    return [p for p in parts if p]


class Corpus:
    """IDF over the run's own sources (one document per distinct suspect text)."""

    def __init__(self, profiles: Sequence[Profile]) -> None:
        self.n = len(profiles)
        self.df: Counter[str] = Counter()
        self.df2: Counter[tuple[str, str]] = Counter()
        for p in profiles:
            self.df.update(p.terms.keys())
            self.df2.update(p.bigrams)

    def idf(self, df: int) -> float:
        return math.log(1.0 + self.n / df)


def lex(answer: Profile, src: Profile, corpus: Corpus) -> float:
    """The share of ``answer``'s attributable IDF×boost term mass that ``src`` contains (terms
    no source of the run contains are the model's own words: not attributable)."""
    got = total = 0.0
    for key, boost in answer.terms.items():
        df = corpus.df.get(key, 0)
        if df == 0:
            continue
        w = corpus.idf(df) * boost
        total += w
        if key in src.terms:
            got += w
    return got / total if total else 0.0


def cos01(a: Vector, b: Vector) -> float:
    return min(1.0, max(0.0, cosine(a, b)))


def without(p: Profile, given: Profile | None) -> Profile:
    if given is None:
        return p
    return Profile(
        {k: b for k, b in p.terms.items() if k not in given.terms}, p.bigrams - given.bigrams
    )


def union(a: Profile | None, b: Profile | None) -> Profile | None:
    if a is None or b is None:
        return a or b
    return Profile({**a.terms, **b.terms}, a.bigrams | b.bigrams)


def disputed(clause: Profile, expected: Profile, corpus: Corpus) -> float:
    """The share of a clause's term weight ``expected`` (the right answer, or the question)
    does not share."""
    total = out = 0.0
    for key, boost in clause.terms.items():
        w = corpus.idf(max(1, corpus.df.get(key, 0))) * boost
        total += w
        if key not in expected.terms:
            out += w
    return out / total if total else 0.0


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
