"""The ``claims`` signal: each clause of the answer credited to the source that best supports
it (term coverage and meaning, averaged); a source's value is its share of the credit.

A clause weighs as much as it answers the run's question — its similarity to it times the share
of its term weight the question does not already say — and its support is judged on that new
part only: the source of the claim that *is* the answer wins, not the source of a detail
restated beside it, nor a record that merely echoes the question's own details (a booking, an
order). With an expected answer a clause also weighs by the share of it that is disputed.
Reported, but weight 0 in the score: ``focus`` replaces it (docs/ranking.md).
"""

from __future__ import annotations

from agentbisect.bisect.evidence.lexical import cos01, disputed, lex, profile, without
from agentbisect.bisect.evidence.signals.context import Scoring, Signal


def score(c: Scoring) -> list[float]:
    question, expected, corpus, vecs = c.question_profile, c.expected_profile, c.corpus, c.vecs
    credit = [0.0] * len(c.profiles)
    weight_sum = 0.0
    for j, clause in enumerate(c.clauses):
        cp = profile(clause)
        if not cp.terms:
            continue
        cv = c.clause_vecs[j] if c.clause_vecs is not None else None
        novel = disputed(cp, question, corpus) if question is not None else 1.0
        cp = without(cp, question)
        support: list[float] = []
        for i, p in enumerate(c.profiles):
            x = lex(cp, p, corpus)
            support.append((x + cos01(vecs[i], cv)) / 2 if cv is not None and vecs else x)
        q_vec = c.question_vec
        w = (cos01(cv, q_vec) if cv is not None and q_vec is not None else 1.0) * novel
        if expected is not None:
            w *= disputed(cp, expected, corpus)
        weight_sum += w
        best = max(support)
        if best <= 0.0 or w <= 0.0:
            continue
        winners = [i for i, x in enumerate(support) if x == best]
        for i in winners:
            credit[i] += w * best / len(winners)
    return [x / weight_sum if weight_sum else 0.0 for x in credit]


SIGNAL = Signal("claims", 0.0, ("clauses", "question"), score)
