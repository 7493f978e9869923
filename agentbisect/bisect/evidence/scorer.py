"""The evidence scorer: how strongly each suspect's own text backs the answer under suspicion.

Embedding similarity alone ranks sources by topic, and every source of a run is on the topic of
its answer. What singles out the source of a wrong fact is that the answer *repeats what it
says*: its numbers, names, rare words and phrases, claim by claim. So six signals, each in
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
  it answers the run's question: its similarity to it times the share of its term weight the
  question does not already contain, and its term support is judged on that new part only. The
  source of the claim that *is* the answer wins, not the source of a detail restated beside it,
  nor a record that merely echoes the question's own details (a booking, an order);
- ``focus``: what the question asks for and who supplies it (``focus.py``): the answer clauses
  that fill the question's wh-target (a time, the number next to the asked noun) or repeat or
  paraphrase its predicate ("No fasting needed" for "do I need to fast"), each credited to the
  source that best supports that value or the words around its anchors — not to the record
  that only supplies the entity details the answer restates beside it (a name, a date);
- ``claimShape``: the share of the source's statements shaped like a rule or claim (a modal or
  obligation word: must, may, can, required, entitled, …; a question or a header line ending in
  ``:`` states nothing and is not counted). When an answer repeats both a user's record and a
  rule, the rule asserts what holds; this is a prior on the shape of the source, not evidence
  of use, and it costs culprits that are data records (measured, docs/ranking.md).

The run's input (the question) is given, not evidence: answer terms and phrases it already
contains are left out of ``terms`` and ``phrases`` (every answer restates its question).
The evidence score is a weighted mean (``WEIGHTS``): ``focus`` counts twice and replaces
``claims``, which stays reported — one of two weightings stated before either was measured, chosen
on the main set; no weight was fitted by search (which signals exist was decided after reading the
main set's misses; the held-out sets, the fifth written blind, check that: docs/ranking.md).
With an expected (correct) answer the score is contrastive: ``semantic`` is similarity to the
wrong answer minus similarity to the expected one (floored at 0), and what the two answers share
is given like the question, so only the disputed content counts and sources that support both
answers sink.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct, field

from agentbisect.bisect.embed.vectors import Vector, cosine
from agentbisect.results.report import EVIDENCE_WEIGHTS

if TYPE_CHECKING:
    from agentbisect.bisect.evidence.focus import Focus

__all__ = [
    "SIGNALS",
    "WEIGHTS",
    "EvidenceItem",
    "EvidenceScore",
    "Profile",
    "answer_texts",
    "profile",
    "score_evidence",
]

SIGNALS = ("semantic", "terms", "phrases", "claims", "focus", "claimShape")
# How much each signal counts in the evidence score: report.EVIDENCE_WEIGHTS (the reports state
# them beside the score, and renderers read result types only)
WEIGHTS = EVIDENCE_WEIGHTS
# a word of the answer repeats a predicate word of the question if their embeddings are this
# close (one-word texts: inflections score ≥ 0.75, "need"/"required" 0.71, "money back"/"refund"
# 0.50, unrelated words < 0.3); chosen before measuring, not tuned
ANCHOR_COSINE = 0.5

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
_TOKEN = r"[^\W_]+(?:[.,'’\-][^\W_]+)*"
# words that make a sentence a rule or a claim about what holds (modal verbs, obligations,
# entitlements) rather than a record of data; see ``_claim_shape``. "may" next to a day number
# is the month ("15 May", "May 12"): it made dated records look like rules
_MODAL = (
    r"(?i)\b(?:must|(?<!\d\s)may(?!\s+\d)|might|can|cannot|can't|should|shall|need|needs|required|requires|"
    r"allowed|entitled|eligible|always|never)\b"
)
_SENTENCE = r"(?<=[.;!?])\s+|\n+"
_CLAUSE = r"(?:[.!?;:\n—–]+(?:\s|$)|,\s+(?:so|but|which|because|and)\s|\s-\s|\(|\))"
# The patterns are compiled on first use (re caches them): `--upstream` never scores evidence,
# and compiling these four took ~0.6 ms of every start.


def _stem(w: str) -> str:
    for suf, keep in (("ing", 4), ("ed", 4), ("es", 4), ("s", 3), ("ly", 4)):
        if w.endswith(suf) and len(w) - len(suf) >= keep and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


class Term(Struct, frozen=True):
    key: str
    boost: float  # 2 numbers/codes, 1.5 names, 1 words


def _terms(text: str) -> list[Term]:
    """Content terms in order: normalised numbers, codes, names and stemmed rare words."""
    out: list[Term] = []
    text = unicodedata.normalize("NFKC", text)
    for m in re.finditer(_TOKEN, text):
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


class Profile(Struct):
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
    parts = [p.strip() for p in re.split(_CLAUSE, text)]
    return [p for p in parts if p]


class EvidenceItem(Struct, frozen=True):
    id: str
    text: str


class EvidenceScore(Struct):
    id: str
    score: float
    signals: dict[str, float]
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


def _cos01(a: Vector, b: Vector) -> float:
    return min(1.0, max(0.0, cosine(a, b)))


def _without(p: Profile, given: Profile | None) -> Profile:
    if given is None:
        return p
    return Profile(
        {k: b for k, b in p.terms.items() if k not in given.terms}, p.bigrams - given.bigrams
    )


def _union(a: Profile | None, b: Profile | None) -> Profile | None:
    if a is None or b is None:
        return a or b
    return Profile({**a.terms, **b.terms}, a.bigrams | b.bigrams)


def _signals(
    answer: str,
    ans_vec: Vector | None,
    clauses: list[str],
    clause_vecs: list[Vector] | None,
    profiles: list[Profile],
    shapes: list[float],
    vecs: list[Vector] | None,
    corpus: _Corpus,
    question: Profile | None,
    q_vec: Vector | None,
    expected: Profile | None,
    exp_vec: Vector | None,
) -> list[dict[str, float]]:
    """Five of the signals of every source (``focus`` is scored apart) for ``answer``.

    The question's terms and phrases are given, not evidence; with an expected answer, so is
    everything the two answers share (only the disputed content can point at the wrong fact),
    and ``semantic`` becomes similarity to the wrong answer minus similarity to the right one.
    """
    given = _union(question, expected)
    new = _without(profile(answer), given)
    # fsum: bigrams are a set, whose order changes with the hash seed; a plain sum would give
    # last-bit differences from one process to the next.
    big_total = math.fsum(corpus.idf(corpus.df2[b]) for b in new.bigrams if corpus.df2.get(b, 0))
    # claims: each clause goes to the source that best supports it (meaning and wording); a
    # clause weighs as much as it answers the question and, with an expected answer, as much
    # of its content is disputed
    credit = [0.0] * len(profiles)
    weight_sum = 0.0
    for j, clause in enumerate(clauses):
        cp = profile(clause)
        if not cp.terms:
            continue
        cv = clause_vecs[j] if clause_vecs is not None else None
        # what a clause adds beyond restating the question is what answers it: the clause
        # weighs by that share, and support is judged on that part (a record that echoes the
        # question's own details is not the source of the clause's answer)
        novel = _disputed(cp, question, corpus) if question is not None else 1.0
        cp = _without(cp, question)
        support: list[float] = []
        for i, p in enumerate(profiles):
            lex = _lex(cp, p, corpus)
            support.append((lex + _cos01(vecs[i], cv)) / 2 if cv is not None and vecs else lex)
        w = (_cos01(cv, q_vec) if cv is not None and q_vec is not None else 1.0) * novel
        if expected is not None:
            w *= _disputed(cp, expected, corpus)
        weight_sum += w
        best = max(support)
        if best <= 0.0 or w <= 0.0:
            continue
        winners = [i for i, x in enumerate(support) if x == best]
        for i in winners:
            credit[i] += w * best / len(winners)
    out: list[dict[str, float]] = []
    for i, p in enumerate(profiles):
        sem = 0.0
        if vecs is not None and ans_vec is not None:
            sem = _cos01(vecs[i], ans_vec)
            if exp_vec is not None:
                sem = max(0.0, sem - _cos01(vecs[i], exp_vec))
        shared_big = math.fsum(corpus.idf(corpus.df2[b]) for b in new.bigrams & p.bigrams)
        out.append(
            {
                "semantic": sem,
                "terms": _lex(new, p, corpus),
                "phrases": shared_big / big_total if big_total else 0.0,
                "claims": credit[i] / weight_sum if weight_sum else 0.0,
                "claimShape": shapes[i],
            }
        )
    return out


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class _FocusClause(Struct):
    weight: float
    fillers: set[str] | None  # the values filling the question's typed slot, if any
    span: set[str]  # else: the anchors and the terms within two positions of one


def _focus_clauses(
    clauses: list[str],
    focus: Focus,
    word_vec: Mapping[str, Vector],
    corpus: _Corpus,
) -> list[_FocusClause]:
    """How much each answer clause fills the question's focus, and with what.

    A clause holding a value of the slot a wh-question asks for (a time for "what time", the
    number next to its noun for "how many bags", "which platform") weighs 1 and is judged on
    that value. Otherwise its weight is the share of its term mass that repeats or paraphrases
    the question's predicate (its anchors: same stem, a shared prefix of five letters, or
    one-word embeddings with a cosine of at least ``ANCHOR_COSINE``), and it is judged on its
    focus span: the anchors and the terms next to them, not the entity details elsewhere in the
    clause.
    """
    from agentbisect.bisect.evidence.focus import content_words, slot_values  # see _question_focus

    units = [(u, [t.key for t in _terms(u)]) for u in focus.predicate]
    anchored: set[str] = set()
    for word in sorted({x for c in clauses for x in content_words(c, _STOP)}):
        ks = _terms(word)
        if not ks:
            continue
        key = ks[0].key
        wv = word_vec.get(word)
        for u, uk in units:
            lexical = len(uk) == 1 and (uk[0] == key or _common_prefix(uk[0], key) >= 5)
            uv = word_vec.get(u)
            if lexical or (wv is not None and uv is not None and cosine(wv, uv) >= ANCHOR_COSINE):
                anchored.add(key)
                break
    nouns = _noun_keys(focus)
    out: list[_FocusClause] = []
    for c in clauses:
        keys = [t.key for t in _terms(c)]
        fill = slot_values(c, focus, keys, nouns)
        if fill:
            out.append(_FocusClause(1.0, fill, set()))
            continue
        total = got = 0.0
        for k, boost in profile(c).terms.items():
            w = corpus.idf(max(1, corpus.df.get(k, 0))) * boost
            total += w
            if k in anchored:
                got += w
        near = {j for i, k in enumerate(keys) if k in anchored for j in range(i - 2, i + 3)}
        span = {keys[j] for j in near if 0 <= j < len(keys)}
        out.append(_FocusClause(got / total if total else 0.0, None, span))
    return out


def _focus(
    texts: list[str],
    clauses: list[str],
    clause_vecs: list[Vector] | None,
    profiles: list[Profile],
    vecs: list[Vector] | None,
    corpus: _Corpus,
    question: str,
    focus: Focus,
    word_vec: dict[str, Vector],
) -> list[float]:
    """The ``focus`` signal: each source's share of the credit for the spans of the answer that
    fill ``focus``, the focus of ``question`` (``focus.py``), each span going to the source that best supports
    it (its slot value, or the terms of its focus span, averaged with meaning as in ``claims``).
    The run's input itself is not a candidate: it asks, it does not answer.
    """
    from agentbisect.bisect.evidence.focus import slot_values  # see _question_focus

    fc = _focus_clauses(clauses, focus, word_vec, corpus)
    nouns = _noun_keys(focus)
    asks = [bool(t.strip()) and t.strip() in question for t in texts]
    values: dict[int, set[str]] = {}  # each source's times of the asked kind, when needed
    credit = [0.0] * len(texts)
    weight_sum = 0.0
    for j, fcl in enumerate(fc):
        if fcl.weight <= 0.0:
            continue
        weight_sum += fcl.weight
        cv = clause_vecs[j] if clause_vecs is not None else None
        span = Profile({k: b for k, b in profile(clauses[j]).terms.items() if k in fcl.span}, set())
        support: list[float] = []
        for i, p in enumerate(profiles):
            if asks[i]:
                support.append(0.0)
                continue
            if fcl.fillers is None:
                lex = _lex(span, p, corpus)
            elif focus.kind == "time":
                if i not in values:
                    values[i] = slot_values(texts[i], focus, [], nouns)
                lex = len(fcl.fillers & values[i]) / len(fcl.fillers)
            else:
                lex = len(fcl.fillers & p.terms.keys()) / len(fcl.fillers)
            support.append((lex + _cos01(vecs[i], cv)) / 2 if cv is not None and vecs else lex)
        best = max(support)
        if best <= 0.0:
            continue
        winners = [i for i, x in enumerate(support) if x == best]
        for i in winners:
            credit[i] += fcl.weight * best / len(winners)
    return [c / weight_sum if weight_sum else 0.0 for c in credit]


def _claim_shape(text: str) -> float:
    """The share of a text's statements shaped like a rule or claim (a modal or obligation word).

    A wrong answer built on a user's record and a rule repeats both; the rule is what asserts
    what holds, the record what is. This is a prior on the shape of a source, not evidence that
    the answer used it: it is one signal of five, and a culprit that is a data record loses to
    it (measured on the held-out sets, see docs/ranking.md).
    """
    sentences = [x for x in re.split(_SENTENCE, text) if x.strip()]
    # a question asks and a header ("Context you may use:") introduces: neither states a rule
    sentences = [x for x in sentences if not x.rstrip().endswith(("?", ":"))]
    if not sentences:
        return 0.0
    return sum(1 for x in sentences if re.search(_MODAL, x)) / len(sentences)


def _disputed(clause: Profile, expected: Profile, corpus: _Corpus) -> float:
    """The share of a clause's term weight ``expected`` (the right answer, or the question)
    does not share."""
    total = out = 0.0
    for key, boost in clause.terms.items():
        w = corpus.idf(max(1, corpus.df.get(key, 0))) * boost
        total += w
        if key not in expected.terms:
            out += w
    return out / total if total else 0.0


def _noun_keys(focus: Focus) -> set[str]:
    """The term keys of the nouns the question's wh-phrase asks about."""
    return {t.key for n in focus.nouns for t in _terms(n)}


def _question_focus(question: str | None) -> Focus | None:
    """The focus of ``question``; None without one (there is no focus to fill)."""
    if not question:
        return None
    # focus.py is imported on first use: runs that never score evidence against a question
    # (--upstream) do not pay for it (tests/test_startup.py)
    from agentbisect.bisect.evidence.focus import question_focus

    return question_focus(question, _STOP)


def _focus_words(answer: str, focus: Focus | None) -> list[str]:
    """The one-word (and two-word) texts the focus anchors compare: the answer's content words
    and the question's predicate units."""
    if focus is None:
        return []
    from agentbisect.bisect.evidence.focus import content_words  # see _question_focus

    return [*content_words(answer, _STOP), *focus.predicate]


def answer_texts(answer: str, expected: str | None, question: str | None) -> list[str]:
    """The texts besides the sources that scoring ``answer`` embeds, in the order it does."""
    return _answer_texts(
        answer, expected, question, _focus_words(answer, _question_focus(question))
    )


def _answer_texts(
    answer: str, expected: str | None, question: str | None, focus_words: list[str]
) -> list[str]:
    out = [answer, *(_clauses(answer) or [answer])]
    if expected:
        out.append(expected)
    if question:
        out.append(question)
    return out + focus_words


def _combine(sig: dict[str, float], use: Sequence[str]) -> float:
    # the default score weighs the signals (WEIGHTS); a chosen subset (the benchmark's
    # each-alone rows) is its plain mean
    if tuple(use) == SIGNALS:
        return sum(WEIGHTS[k] * sig[k] for k in use) / sum(WEIGHTS.values())
    return sum(sig[k] for k in use) / len(use)


def score_evidence(
    items: list[EvidenceItem],
    answer: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    *,
    expected: str | None = None,
    question: str | None = None,
    use: Sequence[str] = SIGNALS,
) -> list[EvidenceScore]:
    """Score every item's text as evidence for ``answer`` (contrastive with ``expected``).

    ``embed_many`` embeds a list of texts in one call (None: no semantic signal). ``question``
    is the run's input: its terms are not evidence, and the claims of the answer that address
    it weigh most. ``use`` picks the signals that make the score (the benchmark measures each
    alone); all are reported. Output order is input order.
    """
    if not items:
        return []
    profiles = [profile(it.text) for it in items]
    corpus = _Corpus(profiles)
    clauses = _clauses(answer) or [answer]
    focus = _question_focus(question)
    words = _focus_words(answer, focus)
    extra = _answer_texts(answer, expected, question, words)
    got: list[Vector] = (
        embed_many([it.text for it in items] + extra) if embed_many is not None else []
    )
    vecs = got[: len(items)] if got else None
    rest = iter(got[len(items) :])
    ans_vec = next(rest, None)
    clause_vecs = [next(rest) for _ in clauses] if got else None
    exp_vec = next(rest, None) if expected else None
    q_vec = next(rest, None) if question else None
    word_vec = dict(zip(words, rest, strict=True)) if got else {}
    sig = _signals(
        answer,
        ans_vec,
        clauses,
        clause_vecs,
        profiles,
        [_claim_shape(it.text) for it in items],
        vecs,
        corpus,
        profile(question) if question else None,
        q_vec,
        profile(expected) if expected else None,
        exp_vec,
    )
    # without a question there is no focus to fill: every clause is the answer, as in claims
    fills = (
        _focus(
            [it.text for it in items],
            clauses,
            clause_vecs,
            profiles,
            vecs,
            corpus,
            question,
            focus,
            word_vec,
        )
        if question and focus is not None
        else [x["claims"] for x in sig]
    )
    # focus goes before claimShape: reports list the signals in SIGNALS order
    for x, f in zip(sig, fills, strict=True):
        shape = x.pop("claimShape")
        x["focus"] = f
        x["claimShape"] = shape
    ans_terms = profile(answer).terms
    exp_terms = profile(expected).terms if expected else {}
    out: list[EvidenceScore] = []
    for i, it in enumerate(items):
        shared = [k for k in ans_terms if k in profiles[i].terms and k not in exp_terms]
        out.append(EvidenceScore(it.id, _combine(sig[i], use), sig[i], shared))
    return out
