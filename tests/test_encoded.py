"""``JsonArray``/``JsonObject``: JSON built item by item as one buffer reads exactly as the list
or dict encoded at once, whatever is asked of it in between."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentbisect.core.encoded import JsonArray, JsonObject

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.lists(JSON, max_size=8), st.sets(st.integers(0, 8)))
def test_array_reads_as_the_list_encoded_at_once(items: list[Any], peeks: set[int]) -> None:
    arr = JsonArray()
    handed_out = []
    for i, item in enumerate(items):
        if i in peeks:  # a Raw handed out meanwhile keeps reading what it was given
            handed_out.append((arr.raw(), msgspec.json.encode(items[:i])))
        arr.append(item)
    assert bytes(arr.raw()) == msgspec.json.encode(items)
    assert bytes(arr.raw()) == msgspec.json.encode(items)  # asking twice closes it once
    assert len(arr) == len(items)
    for raw, want in handed_out:
        assert bytes(raw) == want


@given(st.lists(st.lists(JSON, max_size=4), max_size=5), st.sets(st.integers(0, 5)))
def test_extending_reads_as_appending_each(batches: list[list[Any]], peeks: set[int]) -> None:
    arr = JsonArray()
    so_far: list[Any] = []
    for i, batch in enumerate(batches):
        if i in peeks:
            arr.raw()
        arr.extend(batch)
        so_far += batch
    assert bytes(arr.raw()) == msgspec.json.encode(so_far) and len(arr) == len(so_far)


@given(st.dictionaries(st.text(), JSON, max_size=8))
def test_object_reads_as_the_dict_encoded_at_once(members: dict[str, Any]) -> None:
    obj = JsonObject()
    for i, (key, value) in enumerate(members.items()):
        obj.add(key, value)
        if i == 1:
            obj.raw()
    assert bytes(obj.raw()) == msgspec.json.encode(members)
    assert msgspec.json.decode(obj.raw()) == members


def test_array_between_a_head_and_a_tail() -> None:
    tree = JsonArray(b'{"name":"run","children":', b"}")
    assert msgspec.json.decode(tree.raw()) == {"name": "run", "children": []}
    tree.append({"a": 1})
    tree.append([2])
    assert bytes(tree.raw()) == b'{"name":"run","children":[{"a":1},[2]]}'


def test_an_item_that_cannot_be_encoded_adds_nothing() -> None:
    arr = JsonArray()
    arr.append(1)
    with pytest.raises(TypeError):
        arr.append({"x": object()})
    arr.append(2)
    with pytest.raises(TypeError):
        arr.extend([3, {"x": object()}])
    assert bytes(arr.raw()) == b"[1,2]" and len(arr) == 2
    obj = JsonObject()
    with pytest.raises(TypeError):
        obj.add("k", object())
    obj.add("j", 1)
    assert bytes(obj.raw()) == b'{"j":1}'
