"""Embedding summaries (recording.md §3.3, upstream behaviours 57–62) and their properties."""

from __future__ import annotations

import copy
import math
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.model.boundary.embeddings import half_up_4, summarize_embeddings, summarize_vector


def enc(v: Any) -> bytes:
    return msgspec.json.encode(v)


def test_57_single_and_plural() -> None:
    assert summarize_embeddings({"embedding": [3, 4]}) == {"embedding": {"dims": 2, "norm": 5}}
    out = summarize_embeddings({"embeddings": [[3, 4], [0, 0, 2]]})
    assert out == {"embeddings": [{"dims": 2, "norm": 5}, {"dims": 3, "norm": 2}]}
    # integral norms are JSON integers, as upstream writes them
    assert enc(out) == b'{"embeddings":[{"dims":2,"norm":5},{"dims":3,"norm":2}]}'


def test_58_unchanged_is_same_object_never_mutated_idempotent() -> None:
    plain = {"a": [1, 2, {"b": "c"}], "vector": [3, 4]}
    assert summarize_embeddings(plain) is plain
    value = {"loaded": [{"id": "a", "embedding": [3, 4], "value": {"content": "kept"}}]}
    before = copy.deepcopy(value)
    once = summarize_embeddings(value)
    assert value == before
    assert once == {
        "loaded": [{"id": "a", "embedding": {"dims": 2, "norm": 5}, "value": {"content": "kept"}}]
    }
    assert summarize_embeddings(once) == once


def test_59_half_up_rounding() -> None:
    assert summarize_vector([0.1, 0.1]) == {"dims": 2, "norm": 0.1414}
    assert half_up_4(0.00005) == 0.0001  # banker's round() would give 0.0
    assert half_up_4(0.12345) == math.floor(0.12345 * 1e4 + 0.5) / 1e4


def test_60_non_qualifying_and_cycles() -> None:
    value = {"embedding": [], "embeddings": [["a"], []], "x": {"embedding": ["a", 1]}}
    assert summarize_embeddings(value) is value
    assert summarize_embeddings({"embedding": [True, False]}) == {"embedding": [True, False]}
    mixed = {"embeddings": [[3, 4], "text", {"embedding": [0, 0, 2]}]}
    assert summarize_embeddings(mixed) == {
        "embeddings": [{"dims": 2, "norm": 5}, "text", {"embedding": {"dims": 3, "norm": 2}}]
    }
    deep = {"a": [{"b": {"embedding": [3, 4]}}]}
    assert summarize_embeddings(deep) == {"a": [{"b": {"embedding": {"dims": 2, "norm": 5}}}]}
    cyclic: dict[str, Any] = {"embedding": [3, 4]}
    cyclic["self"] = cyclic
    out = summarize_embeddings(cyclic)
    assert out["embedding"] == {"dims": 2, "norm": 5}


def test_62_only_replaces() -> None:
    value = {"k": 1, "embedding": [1, 0], "z": [0.5, "s"], "score": 0.9}
    out = summarize_embeddings(value)
    assert list(out) == list(value)
    assert {k: v for k, v in out.items() if k != "embedding"} == {
        k: v for k, v in value.items() if k != "embedding"
    }


# ---------------------------------------------------------------- properties

numbers = st.one_of(
    st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
)
vectors = st.lists(numbers, min_size=1, max_size=8)
keys = st.sampled_from(["embedding", "embeddings", "text", "id", "vector", "meta"])
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=5))
json_values = st.recursive(
    st.one_of(scalars, vectors),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=30,
)


def _is_vec(v: Any) -> bool:
    return (
        isinstance(v, list)
        and bool(v)
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
    )


def _check(before: Any, after: Any) -> None:
    """``after`` equals ``before`` except qualifying vectors became {dims, norm}."""
    if isinstance(before, dict):
        assert isinstance(after, dict) and list(after) == list(before)
        for k, v in before.items():
            if k == "embedding" and _is_vec(v):
                assert after[k] == summarize_vector(v)
            elif k == "embeddings" and isinstance(v, list) and any(_is_vec(x) for x in v):
                assert len(after[k]) == len(v)
                for x, y in zip(v, after[k], strict=True):
                    if _is_vec(x):
                        assert y == summarize_vector(x)
                    else:
                        _check(x, y)
            else:
                _check(v, after[k])
    elif isinstance(before, list):
        assert isinstance(after, list) and len(after) == len(before)
        for x, y in zip(before, after, strict=True):
            _check(x, y)
    else:
        assert enc(after) == enc(before)


def _no_raw_vectors(v: Any) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "embedding":
                assert not _is_vec(x)
            if k == "embeddings" and isinstance(x, list):
                assert not any(_is_vec(y) for y in x)
            _no_raw_vectors(x)
    elif isinstance(v, list):
        for x in v:
            _no_raw_vectors(x)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_property_summaries_replace_every_vector_and_nothing_else(value: Any) -> None:
    before = copy.deepcopy(value)
    after = summarize_embeddings(value)
    assert value == before  # never mutated
    _check(value, after)
    _no_raw_vectors(after)
    assert summarize_embeddings(after) == after  # idempotent
    if enc(after) == enc(value):
        assert after is value or after == value
