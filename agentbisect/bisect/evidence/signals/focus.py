"""The ``focus`` signal: what the question asks for, and which source supplies it.

The answer clauses that fill the question's focus (``evidence/focus.py``: a wh-target such as a
time or the number next to the asked noun, or a yes/no question's predicate, repeated or
paraphrased) are each credited to the source that best supports that value or the words around
its anchors, averaged with meaning as in ``claims``; the question itself is no candidate (it
asks, it does not answer). Without a question there is no focus to fill: every clause is the
answer, and ``focus`` equals ``claims`` (registered before it). Counts twice in the score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Vector, cosine
from agentbisect.bisect.evidence.lexical import (
    STOP,
    Corpus,
    Profile,
    common_prefix,
    cos01,
    lex,
    profile,
    terms,
)
from agentbisect.bisect.evidence.signals.context import Scoring, Signal

if TYPE_CHECKING:
    from agentbisect.bisect.evidence.focus import Focus

# a word of the answer repeats a predicate word of the question if their embeddings are this
# close (one-word texts: inflections score ≥ 0.75, "need"/"required" 0.71, "money back"/"refund"
# 0.50, unrelated words < 0.3); chosen before measuring, not tuned
ANCHOR_COSINE = 0.5


class FocusClause(Struct):
    weight: float
    fillers: set[str] | None  # the values filling the question's typed slot, if any
    span: set[str]  # else: the anchors and the terms within two positions of one


def focus_clauses(
    clauses: list[str], focus: Focus, word_vec: Mapping[str, Vector], corpus: Corpus
) -> list[FocusClause]:
    """How much each answer clause fills the question's focus, and with what.

    A clause holding a value of the slot a wh-question asks for (a time for "what time", the
    number next to its noun for "how many bags", "which platform") weighs 1 and is judged on
    that value. Otherwise its weight is the share of its term mass that repeats or paraphrases
    the question's predicate (its anchors: same stem, a shared prefix of five letters, or
    one-word embeddings with a cosine of at least ``ANCHOR_COSINE``), and it is judged on its
    focus span: the anchors and the terms next to them, not the entity details elsewhere in the
    clause.
    """
    # focus.py is imported on first use (see context._question_focus)
    from agentbisect.bisect.evidence.focus import content_words, slot_values

    units = [(u, [t.key for t in terms(u)]) for u in focus.predicate]
    anchored: set[str] = set()
    for word in sorted({x for c in clauses for x in content_words(c, STOP)}):
        ks = terms(word)
        if not ks:
            continue
        key = ks[0].key
        wv = word_vec.get(word)
        for u, uk in units:
            lexical = len(uk) == 1 and (uk[0] == key or common_prefix(uk[0], key) >= 5)
            uv = word_vec.get(u)
            if lexical or (wv is not None and uv is not None and cosine(wv, uv) >= ANCHOR_COSINE):
                anchored.add(key)
                break
    nouns = noun_keys(focus)
    out: list[FocusClause] = []
    for c in clauses:
        keys = [t.key for t in terms(c)]
        fill = slot_values(c, focus, keys, nouns)
        if fill:
            out.append(FocusClause(1.0, fill, set()))
            continue
        total = got = 0.0
        for k, boost in profile(c).terms.items():
            w = corpus.idf(max(1, corpus.df.get(k, 0))) * boost
            total += w
            if k in anchored:
                got += w
        near = {j for i, k in enumerate(keys) if k in anchored for j in range(i - 2, i + 3)}
        span = {keys[j] for j in near if 0 <= j < len(keys)}
        out.append(FocusClause(got / total if total else 0.0, None, span))
    return out


def noun_keys(focus: Focus) -> set[str]:
    """The term keys of the nouns the question's wh-phrase asks about."""
    return {t.key for n in focus.nouns for t in terms(n)}


def score(c: Scoring) -> list[float]:
    focus, question = c.focus, c.question
    if not question or focus is None:
        return c.done["claims"]
    from agentbisect.bisect.evidence.focus import slot_values  # see focus_clauses

    corpus, vecs, texts = c.corpus, c.vecs, c.texts
    fc = focus_clauses(c.clauses, focus, c.word_vec, corpus)
    nouns = noun_keys(focus)
    asks = [bool(t.strip()) and t.strip() in question for t in texts]
    values: dict[int, set[str]] = {}  # each source's times of the asked kind, when needed
    credit = [0.0] * len(texts)
    weight_sum = 0.0
    for j, fcl in enumerate(fc):
        if fcl.weight <= 0.0:
            continue
        weight_sum += fcl.weight
        cv = c.clause_vecs[j] if c.clause_vecs is not None else None
        span = Profile(
            {k: b for k, b in profile(c.clauses[j]).terms.items() if k in fcl.span}, set()
        )
        support: list[float] = []
        for i, p in enumerate(c.profiles):
            if asks[i]:
                support.append(0.0)
                continue
            if fcl.fillers is None:
                x = lex(span, p, corpus)
            elif focus.kind == "time":
                if i not in values:
                    values[i] = slot_values(texts[i], focus, [], nouns)
                x = len(fcl.fillers & values[i]) / len(fcl.fillers)
            else:
                x = len(fcl.fillers & p.terms.keys()) / len(fcl.fillers)
            support.append((x + cos01(vecs[i], cv)) / 2 if cv is not None and vecs else x)
        best = max(support)
        if best <= 0.0:
            continue
        winners = [i for i, x in enumerate(support) if x == best]
        for i in winners:
            credit[i] += fcl.weight * best / len(winners)
    return [x / weight_sum if weight_sum else 0.0 for x in credit]


SIGNAL = Signal("focus", 2.0, ("clauses", "words"), score)
