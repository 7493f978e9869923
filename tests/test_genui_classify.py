"""Spec §6: error classification (ordered table, first match wins) and scrubbing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentbisect.genui import classify_error, scrub_error


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ('invalid UI tree: root.type: unknown component "X" (allowed: Card)', "unknown_component"),
        ('component "X" is not available here', "unknown_component"),
        ("Chart is not available on this channel", "unknown_component"),
        ("Map is not available in this conversation", "unknown_component"),
        ("the tree has more than 200 elements", "tree_limits"),
        ("the tree is nested deeper than 12 levels", "tree_limits"),
        ("props nested too deeply", "tree_limits"),
        ("Card does not take children", "tree_shape"),
        ("root must be an element object", "tree_shape"),
        ("children must be an array of elements", "tree_shape"),
        ("each item must be { component, props }", "tree_shape"),
        ("type must be a component name", "tree_shape"),
        ("SyntaxError: Unexpected token '<'", "sandbox"),
        ("ReferenceError: useState is not defined", "sandbox"),
        ("refused by the CSP", "sandbox"),
        ("inline <script> blocked", "sandbox"),
        ("invalid Chart props: series[0].value: must be number", "schema"),
        ('invalid UI tree: props.owner: expected string, received "…"', "schema"),
        ("title is required", "schema"),
        ("rows must have at least 1 items", "schema"),
        ('"x" is not a known property', "schema"),
        ("value does not match any allowed shape", "schema"),
        ("network timeout", "other"),
        ("", "other"),
        ("INVALID UI TREE: ROOT: UNKNOWN COMPONENT", "unknown_component"),  # case-insensitive
    ],
)
def test_classify_table(message: str, category: str) -> None:
    assert classify_error(message) == category


def test_first_match_wins() -> None:
    # Both "unknown component" and the schema prefix match; the earlier row of the table wins.
    assert classify_error('invalid UI tree: unknown component "Chartt"') == "unknown_component"


@pytest.mark.parametrize(
    ("raw", "scrubbed"),
    [
        ("expected string, received 'Jane'", 'expected string, received "…"'),
        ('unknown component "Chartt" (allowed: Card, Chart)',
         'unknown component "…" (allowed: Card, Chart)'),
        ('must be one of "bar", "line"', 'must be one of "…", "…"'),
        ("the value `x + 1` is not a number", 'the value "…" is not a number'),
        ("it doesn't fit, isn't it", "it doesn't fit, isn't it"),
        ('escaped "a \\" b" quote', 'escaped "…" quote'),
    ],
)  # fmt: skip
def test_scrub_examples(raw: str, scrubbed: str) -> None:
    assert scrub_error(raw) == scrubbed


def test_scrub_cuts_at_300_with_an_ellipsis() -> None:
    long = "x" * 301
    assert scrub_error(long) == "x" * 299 + "…"
    assert len(scrub_error(long)) == 300
    assert scrub_error("y" * 300) == "y" * 300


@given(st.text(alphabet=st.sampled_from(list("ab '\"`\\\n…xé")), max_size=400))
def test_scrub_is_bounded_and_never_fails(message: str) -> None:
    assert len(scrub_error(message)) <= 300


@given(st.text(alphabet=st.sampled_from(list("ab `\n…xé:")), max_size=400))
def test_scrub_is_idempotent_without_double_or_single_quotes(message: str) -> None:
    # Spec §6 calls the rule idempotent. That holds for backtick spans, but not once the input
    # has unbalanced double quotes or single quotes around a quoted span (counterexamples below,
    # found by this test; reported, rule kept verbatim).
    once = scrub_error(message)
    assert scrub_error(once) == once


def test_spec_claim_of_idempotence_has_counterexamples() -> None:
    once = scrub_error("\"''")
    assert once == '""…"' and scrub_error(once) == '"…"…"'
    # A single-quoted span inside unmatched single quotes: the first pass leaves '"…"', which
    # is itself a single-quoted span for the second.
    for message in ("''a''", "' 'a' '"):
        once = scrub_error(message)
        assert once == message.replace("'a'", '"…"') and scrub_error(once) == '"…"'


@pytest.mark.parametrize(
    "message",
    [
        "expected string, received 'Jane'",
        'invalid UI tree: root.type: unknown component "Chartt" (allowed: Card)',
        "Card does not take children",
        "SyntaxError: Unexpected token '<'",
        "the tree has more than 200 elements",
    ],
)
def test_classification_is_the_same_before_and_after_scrubbing(message: str) -> None:
    assert classify_error(scrub_error(message)) == classify_error(message)
