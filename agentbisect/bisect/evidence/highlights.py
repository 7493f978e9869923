"""Where a suspect says what the answer says: the spans of its text the evidence signals matched.

No second matcher: a span is a term the ``terms`` signal credited (a term of the answer's new
content, ``Scoring.new``, by the same rule ``new_content`` — the question's terms and, with an expected answer, what both answers
share are given, not evidence) at the place the one tokenizer (``lexical.located_terms``) found
it, and consecutive terms whose pair is one of the answer's new two-word phrases (the ``phrases``
signal) join into one span, with the words between them. The ``claims`` and ``focus`` signals
judge the same terms clause by clause, so they add no spans of their own.

Offsets are ``[start, end)`` Python string indices — Unicode code points, not UTF-16 units or
bytes — into the text as given; spans are sorted, never overlap and never touch. A span's weight
is the IDF × boost mass of its distinct terms over the run's sources (what ``terms`` weighs);
``best`` is the heaviest, the earliest on a tie.
"""

from __future__ import annotations

from msgspec import Struct

from agentbisect.bisect.evidence.lexical import Corpus, located_terms, profile, profile_of
from agentbisect.bisect.evidence.signals.context import new_content


class Highlights(Struct, frozen=True):
    spans: list[tuple[int, int]]  # sorted, disjoint [start, end) code-point offsets
    best: int | None  # index into spans of the heaviest; None without spans


def highlights(
    texts: list[str], answer: str, expected: str | None, question: str | None
) -> list[Highlights]:
    """The matched spans of each of ``texts`` (the scored sources, in scoring order)."""
    # the scoring's own rules, without what only the signals need (vectors, focus, clauses):
    # its IDF over the same profiles, its new content of the answer
    located = [located_terms(t) for t in texts]
    corpus = Corpus([profile_of([t for t, _, _ in found]) for found in located])
    new = new_content(
        answer, profile(question) if question else None, profile(expected) if expected else None
    )
    out: list[Highlights] = []
    for found in located:
        spans: list[list[int]] = []  # [start, end] while being joined
        keys: list[set[str]] = []  # the new terms of each span (its weight)
        prev: tuple[str, int, bool] | None = None  # the last term: key, start, in the last span
        for term, a, b in found:
            key = term.key
            hit = key in new.terms
            phrase = prev is not None and (prev[0], key) in new.bigrams
            same_token = prev is not None and prev[2] and a < spans[-1][1]  # SH-240 and 240
            if prev is not None and prev[2] and (phrase or (hit and same_token)):
                spans[-1][1] = max(spans[-1][1], b)
            elif phrase and prev is not None:  # a phrase whose first word the question gave
                spans.append([prev[1], b])
                keys.append(set())
            elif hit:
                spans.append([a, b])
                keys.append(set())
            else:
                prev = (key, a, False)
                continue
            if hit:
                keys[-1].add(key)
            prev = (key, a, True)
        merged: list[tuple[int, int]] = []
        weights: list[float] = []
        for (a, b), ks in zip(spans, keys, strict=True):
            w = sum(corpus.idf(max(1, corpus.df.get(k, 0))) * new.terms[k] for k in ks)
            if merged and a <= merged[-1][1]:  # overlapping or touching: one span
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
                weights[-1] += w
            else:
                merged.append((a, b))
                weights.append(w)
        best = max(range(len(merged)), key=lambda i: (weights[i], -i)) if merged else None
        out.append(Highlights(merged, best))
    return out


def clip(h: Highlights, length: int) -> Highlights:
    """``h`` within the first ``length`` characters (a report carries a capped text)."""
    spans = [(a, min(b, length)) for a, b in h.spans if a < length]
    best = h.best if h.best is not None and h.best < len(spans) else (0 if spans else None)
    return Highlights(spans, best)
