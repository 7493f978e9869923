"""The evidence scorer: how strongly each suspect's own text backs the answer under suspicion.

Embedding similarity alone ranks sources by topic, and every source of a run is on the topic of
its answer. What singles out the source of a wrong fact is that the answer *repeats what it
says*: its numbers, names, rare words and phrases, claim by claim. So four signals, each in
[0, 1] and each kept visible in the report:

- ``semantic``: cosine between the suspect's text and the answer, with the chosen embedder;
- ``terms``: the share of the answer's attributable distinctive-term mass the suspect contains.
  A term's weight is its IDF over *this run's* sources (the suspects' texts: a word every source
  uses says nothing about which one was used), doubled for numbers and codes and 1.5× for
  capitalised names — the tokens facts are made of. Answer terms no source contains are the
  model's own words and are left out of the denominator;
- ``phrases``: the same for word bigrams (a shared phrase is stronger evidence than two words);
- ``claims``: the answer split into clauses; each clause is credited to the source that best
  supports it (term coverage and embedding similarity, averaged), and a clause weighs as much as
  it answers the run's question (its similarity to it): the source of the claim that *is* the
  answer wins, not the source of a detail restated beside it.

The run's input (the question) is given, not evidence: answer terms and phrases it already
contains are left out of ``terms`` and ``phrases`` (every answer restates its question).
The evidence score is the plain mean of the four — no weight was fitted to the benchmark corpus.
With an expected (correct) answer the score is contrastive: evidence for the wrong answer minus
evidence for the expected one, so sources that support both sink.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agentbisect.bisect.embed import cosine

__all__ = [
    "SIGNALS",
    "EvidenceItem",
    "EvidenceScore",
    "Profile",
    "profile",
    "score_evidence",
]

SIGNALS = ("semantic", "terms", "phrases", "claims")

_STOP = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yes",
        "please",
        "let",
        "ll",
        "ve",
        "re",
        "d",
        "s",
        "t",
        "m",
        "don",
        "didn",
        "isn",
        "aren",
        "wasn",
        "weren",
        "won",
    ]
)
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
_NUMBER_WORDS.update(
    {
        "thirty": "30",
        "forty": "40",
        "fifty": "50",
        "sixty": "60",
        "seventy": "70",
        "eighty": "80",
        "ninety": "90",
        "hundred": "100",
        "thousand": "1000",
        "million": "1000000",
    }
)
# words, numbers with inner separators (5,000  4.125  24.96), codes (SH-240, QX7T2L)
_TOKEN = re.compile(r"[^\W_]+(?:[.,'’\-][^\W_]+)*")
_CLAUSE = re.compile(r"(?:[.!?;:\n—–]+(?:\s|$)|,\s+(?:so|but|which|because|and)\s|\s-\s|\(|\))")


def _stem(w: str) -> str:
    for suf, keep in (("ing", 4), ("ed", 4), ("es", 4), ("s", 3), ("ly", 4)):
        if w.endswith(suf) and len(w) - len(suf) >= keep and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


@dataclass(frozen=True)
class Term:
    key: str
    boost: float  # 2 numbers/codes, 1.5 names, 1 words


def _terms(text: str) -> list[Term]:
    """Content terms in order: normalised numbers, codes, names and stemmed rare words."""
    out: list[Term] = []
    text = unicodedata.normalize("NFKC", text)
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
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
                out.append(Term(n, 2.0))
            else:
                # a code (SH-240, 4be19c2): the whole, and its numeric parts (240)
                out.append(Term(low, 2.0))
                out.extend(Term(p, 2.0) for p in re.findall(r"\d+", low) if p != low)
            continue
        for part in re.split(r"[.,'\-]", low):
            if not part:
                continue
            if part in _NUMBER_WORDS:
                out.append(Term(_NUMBER_WORDS[part], 2.0))
                continue
            if part in _STOP or len(part) < 2:
                continue
            name = raw[:1].isupper() and m.start() > 0 and not _sentence_start(text, m.start())
            out.append(Term(_stem(part), 1.5 if name else 1.0))
    return out


def _sentence_start(text: str, pos: int) -> bool:
    j = pos - 1
    while j >= 0 and text[j] in " \t\"'(“‘":
        j -= 1
    return j < 0 or text[j] in ".!?:\n;—–-•*"


@dataclass
class Profile:
    """A text's term and bigram sets with their boosts."""

    terms: dict[str, float]
    bigrams: set[tuple[str, str]]


def profile(text: str) -> Profile:
    ts = _terms(text)
    terms: dict[str, float] = {}
    for t in ts:
        terms[t.key] = max(terms.get(t.key, 0.0), t.boost)
    bigrams = {(a.key, b.key) for a, b in itertools.pairwise(ts) if a.key != b.key}
    return Profile(terms, bigrams)


def _clauses(text: str) -> list[str]:
    parts = [p.strip() for p in _CLAUSE.split(text)]
    return [p for p in parts if p]


@dataclass(frozen=True)
class EvidenceItem:
    id: str
    text: str


@dataclass
class EvidenceScore:
    id: str
    score: float
    signals: dict[str, float]
    expected_signals: dict[str, float] | None = None
    terms_shared: list[str] = field(default_factory=list)


class _Corpus:
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


def _coverage(
    answer: Profile, src: Profile, corpus: _Corpus, only: set[str] | None = None
) -> tuple[float, float]:
    """(matched, attributable) IDF×boost mass of the answer's terms."""
    got = total = 0.0
    for key, boost in answer.terms.items():
        if only is not None and key not in only:
            continue
        df = corpus.df.get(key, 0)
        if df == 0:
            continue
        w = corpus.idf(df) * boost
        total += w
        if key in src.terms:
            got += w
    return got, total


def _lex(answer: Profile, src: Profile, corpus: _Corpus) -> float:
    got, total = _coverage(answer, src, corpus)
    return got / total if total else 0.0


def _cos01(a: np.ndarray, b: np.ndarray) -> float:
    return min(1.0, max(0.0, cosine(a, b)))


@dataclass
class _Answer:
    """One answer (the wrong one, or the expected one) with its clauses and vectors."""

    text: str
    vec: np.ndarray | None
    clauses: list[str]
    clause_vecs: list[np.ndarray] | None


def _signals(
    ans: _Answer,
    profiles: list[Profile],
    vecs: list[np.ndarray] | None,
    corpus: _Corpus,
    given: Profile | None,
    q_vec: np.ndarray | None,
) -> list[dict[str, float]]:
    """The four support signals of every source for one answer.

    ``given`` (the run's input) holds what the answer was asked about: its terms and bigrams are
    not evidence of anything (every answer restates its question), so the term and phrase
    signals leave them out.
    """
    full = profile(ans.text)
    new = full
    if given is not None:
        new = Profile(
            {k: b for k, b in full.terms.items() if k not in given.terms},
            full.bigrams - given.bigrams,
        )
    big_total = sum(corpus.idf(corpus.df2[b]) for b in new.bigrams if corpus.df2.get(b, 0))
    # claims: each clause goes to the source that best supports it (meaning and wording),
    # weighted by how directly the clause answers the question
    credit = [0.0] * len(profiles)
    weight_sum = 0.0
    for j, clause in enumerate(ans.clauses):
        cp = profile(clause)
        if not cp.terms:
            continue
        cv = ans.clause_vecs[j] if ans.clause_vecs is not None else None
        support: list[float] = []
        for i, p in enumerate(profiles):
            lex = _lex(cp, p, corpus)
            if cv is not None and vecs is not None:
                support.append((lex + _cos01(vecs[i], cv)) / 2)
            else:
                support.append(lex)
        w = 1.0
        if cv is not None and q_vec is not None:
            w = _cos01(cv, q_vec)
        weight_sum += w
        best = max(support)
        if best <= 0.0:
            continue
        winners = [i for i, x in enumerate(support) if x == best]
        for i in winners:
            credit[i] += w * best / len(winners)
    out: list[dict[str, float]] = []
    for i, p in enumerate(profiles):
        shared_big = sum(corpus.idf(corpus.df2[b]) for b in new.bigrams & p.bigrams)
        out.append(
            {
                "semantic": _cos01(vecs[i], ans.vec)
                if vecs is not None and ans.vec is not None
                else 0.0,
                "terms": _lex(new, p, corpus),
                "phrases": shared_big / big_total if big_total else 0.0,
                "claims": credit[i] / weight_sum if weight_sum else 0.0,
            }
        )
    return out


def _combine(sig: dict[str, float], use: Sequence[str]) -> float:
    return sum(sig[k] for k in use) / len(use)


def score_evidence(
    items: list[EvidenceItem],
    answer: str,
    embed_many: Callable[[list[str]], list[np.ndarray]] | None,
    *,
    expected: str | None = None,
    question: str | None = None,
    use: Sequence[str] = SIGNALS,
) -> list[EvidenceScore]:
    """Score every item's text as evidence for ``answer`` (contrastive with ``expected``).

    ``embed_many`` embeds a list of texts in one call (None: no semantic signal). ``question``
    is the run's input: its terms are not evidence, and the claims of the answer that address
    it weigh most. ``use`` picks the support signals that make the score
    (the benchmark measures each alone); all are reported. Output order is input order.
    """
    if not items:
        return []
    profiles = [profile(it.text) for it in items]
    corpus = _Corpus(profiles)
    answers = [answer] + ([expected] if expected else [])
    clauses = [_clauses(a) or [a] for a in answers]
    texts = [it.text for it in items] + answers + [c for cs in clauses for c in cs]
    if question:
        texts.append(question)
    vecs: list[np.ndarray] | None = None
    got: list[np.ndarray] = embed_many(texts) if embed_many is not None else []
    if got:
        vecs = got[: len(items)]
    pos = len(items)
    built: list[_Answer] = []
    for k, a in enumerate(answers):
        built.append(_Answer(a, got[pos + k] if got else None, clauses[k], None))
    pos += len(answers)
    for k, cs in enumerate(clauses):
        if got:
            built[k].clause_vecs = got[pos : pos + len(cs)]
        pos += len(cs)
    q_vec = got[pos] if got and question else None
    given = profile(question) if question else None
    sig = _signals(built[0], profiles, vecs, corpus, given, q_vec)
    exp_sig = _signals(built[1], profiles, vecs, corpus, given, q_vec) if expected else None
    ans_terms = profile(answer).terms
    out: list[EvidenceScore] = []
    for i, it in enumerate(items):
        score = _combine(sig[i], use)
        if exp_sig is not None:
            score -= _combine(exp_sig[i], use)
        shared = [k for k in ans_terms if k in profiles[i].terms]
        out.append(
            EvidenceScore(
                it.id,
                score,
                sig[i],
                exp_sig[i] if exp_sig is not None else None,
                shared,
            )
        )
    return out
