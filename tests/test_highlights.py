"""Highlights (issue 25): the spans of a suspect's text the evidence signals matched, as
[start, end) code-point offsets into the text as given — within bounds, sorted, disjoint — and
the excerpt a terminal shows, centred on the best of them."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.bisect.evidence.highlights import clip, highlights
from agentbisect.bisect.evidence.lexical import located_terms, terms
from agentbisect.results.bisect import passage

WORDS = st.sampled_from(
    [
        "refund",
        "Refund",
        "90",
        "days",
        "ninety",
        "SH-240",
        "4,500.00",
        "Dana",
        "Reyes",
        "VIP",
        "the",
        "of",
        "a",
        "ﬁle",
        "Ｆｕｌｌ",
        "é",
        "é",
        "“quoted”",
        "it's",
        "policy",
        "30-day",
        "1,188",
        "window.",
    ]
)
TEXT = st.lists(WORDS | st.text(max_size=6), max_size=30).map(" ".join)


def _check(spans: list[tuple[int, int]], n: int) -> None:
    assert all(0 <= a < b <= n for a, b in spans)
    assert all(b1 < a2 for (_, b1), (a2, _) in itertools.pairwise(spans))


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=4), TEXT, st.none() | TEXT)
def test_spans_are_in_bounds_sorted_and_disjoint(
    texts: list[str], answer: str, q: str | None
) -> None:
    for text, h in zip(texts, highlights(texts, answer, None, q), strict=True):
        _check(h.spans, len(text))
        assert (h.best is None) == (not h.spans)
        for cap in (0, 5, len(text)):
            c = clip(h, cap)
            _check(c.spans, min(cap, len(text)))


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_located_terms_are_the_terms_where_nfkc_is_per_character(text: str) -> None:
    got = located_terms(text)
    assert all(0 <= a <= b <= len(text) for _, a, b in got)
    import unicodedata

    if unicodedata.normalize("NFKC", text) == "".join(
        unicodedata.normalize("NFKC", c) for c in text
    ):
        assert [t for t, _, _ in got] == terms(text)


def test_a_shared_phrase_is_one_span_with_the_words_between() -> None:
    src = "Footwear may be returned for a full refund within 90 days of delivery."
    (h,) = highlights([src], "Yes, returned for a full refund within 90 days.", None, "refund?")
    assert [src[a:b] for a, b in h.spans] == ["returned for a full refund within 90 days"]


@settings(max_examples=60, deadline=None)
@given(TEXT, st.integers(4, 120))
def test_the_excerpt_keeps_the_best_span_and_marks_inside_it(text: str, width: int) -> None:
    (h,) = highlights([text], text, None, None)  # every term of a text matches itself
    said, marks, first = passage(text, h.spans, h.best, width)
    flat = re.sub(r"\s", " ", text)  # (whitespace becomes spaces one for one)
    assert len(said) <= max(width, len(flat))
    for n, (a, b) in enumerate(marks):
        assert 0 <= a < b <= len(said)
        sa, sb = h.spans[first + n]
        assert said[a:b] in flat[sa:sb]
    if h.best is not None:
        a, b = h.spans[h.best]
        if b - a <= width - 2:
            assert flat[a:b] in said
