"""The sniffs that share one decode of the input (importers/toplevel.py) answer exactly as the
sniffs that decoded their own copies did, and the load decodes a recording's top level once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers import capture, load_bytes, toplevel, transcript
from agentbisect.importers.opentelemetry.detect import SNIFF_BYTES
from tests.helpers import recording

# ---------------------------------------------------------------- the sniffs as they were (oracle)


def old_capture_sniff(data: bytes) -> bool:
    line = next((ln for ln in data.splitlines() if ln.strip()), None)
    if line is None:
        return False
    try:
        first = msgspec.json.decode(line, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    return any(k in first for k in ("afp", "flow", "typed", "commit"))


class _OldTop(msgspec.Struct):
    messages: list[msgspec.Raw] | None = None
    history: list[msgspec.Raw] | None = None


class _OldRole(msgspec.Struct):
    role: str


def _old_role_item(raw: bytes | msgspec.Raw) -> bool:
    try:
        msgspec.json.decode(raw, type=_OldRole)
    except (msgspec.MsgspecError, RecursionError):
        return False
    return True


def old_transcript_sniff(data: bytes) -> bool:
    # (Since issue 23 an object's keys count wherever they are, not only in its first bytes.)
    head = data.lstrip()[:SNIFF_BYTES]
    if head[:1] not in (b"[", b"{") or (head[:1] == b"[" and b'"role"' not in head):
        return False
    try:
        if head[:1] == b"[":
            items = msgspec.json.decode(data, type=list[msgspec.Raw])
            return bool(items) and _old_role_item(items[0])
        first = data.lstrip().split(b"\n", 1)[0]
        if _old_role_item(first):
            return True
        top = msgspec.json.decode(data, type=_OldTop)
    except (msgspec.MsgspecError, RecursionError):
        return False
    found = top.messages or top.history
    return bool(found) and found is not None and _old_role_item(found[0])


# ---------------------------------------------------------------- generated inputs

KEYS = ["afp", "flow", "typed", "commit", "role", "messages", "history", "snapshot", "events", "x"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "user", "a\nb", "role"])
)
role_item = st.one_of(
    st.fixed_dictionaries({"role": st.one_of(st.sampled_from(["user", "tool"]), st.integers())}),
    st.fixed_dictionaries({"content": st.just("hi")}),
    scalars,
)
values = st.one_of(
    scalars,
    st.lists(role_item, max_size=3),
    st.fixed_dictionaries({"commitLog": st.lists(st.just({}), max_size=1)}),
    st.fixed_dictionaries({"recorders": st.sampled_from([[], 5, [{"name": "x"}]])}),
)


def _encode_key(key: str, escape: bool) -> str:
    # JSON lets a key be written with \u escapes; a decoder reads the same name.
    return '"' + "".join(f"\\u{ord(c):04x}" for c in key) + '"' if escape else json.dumps(key)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    pairs = draw(st.lists(st.tuples(st.sampled_from(KEYS), values, st.booleans()), max_size=5))
    sep = draw(st.sampled_from([",", ",\n", ", "]))
    body = "{" + sep.join(f"{_encode_key(k, e)}:{json.dumps(v)}" for k, v, e in pairs) + "}"
    if draw(st.booleans()):
        body = "[" + body + "]"
    lead = draw(st.sampled_from(["", " ", "\n", "\n\n ", "\r\n", "\x0b", "\t"]))
    trail = draw(st.sampled_from(["", "\n", " \n", "\r\n", "\n{}", "\x0c", "\n\n"]))
    raw = (lead + body + trail).encode()
    cut = draw(st.one_of(st.none(), st.integers(0, len(raw))))
    return raw if cut is None else raw[:cut]


@settings(max_examples=400, deadline=None)
@given(documents())
def test_capture_sniff_answers_as_before(data: bytes) -> None:
    want = old_capture_sniff(data)
    assert capture.sniff(data) is want
    with toplevel.shared(data):
        assert capture.sniff(data) is want
        assert capture.sniff(data) is want  # the kept decode answers again


@settings(max_examples=400, deadline=None)
@given(documents())
def test_transcript_sniff_answers_as_before(data: bytes) -> None:
    want = old_transcript_sniff(data)
    assert transcript.sniff(data) is want
    with toplevel.shared(data):
        capture.sniff(data)  # as in the registry: the capture sniff asks first
        assert transcript.sniff(data) is want


@pytest.mark.parametrize(
    "doc",
    [
        b'{"role": "user", "content": "hi"}',
        b'{"messages": [{"role": "user"}]}',
        b'{"history": [{"role": "assistant"}], "messages": []}',
        b'{"flow": {"type": "x"}}\n{"typed": {}}',
        b'{"snapshot": {"commitLog": []}, "afp": 1}',
        b'{"messages": 5, "history": [{"role": "user"}]}',
    ],
)
def test_fixed_documents(doc: bytes) -> None:
    assert capture.sniff(doc) is old_capture_sniff(doc)
    assert transcript.sniff(doc) is old_transcript_sniff(doc)


def test_a_recording_is_decoded_once_by_the_sniffs_and_the_importer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = Path(recording("react-tools")).read_bytes()
    data = json.dumps(json.loads(data), separators=(",", ":")).encode()  # one line, as written
    calls: list[int] = []
    real = toplevel._parse

    def counting(buf: bytes) -> Any:
        calls.append(len(buf))
        return real(buf)

    monkeypatch.setattr(toplevel, "_parse", counting)
    loaded = load_bytes(data, "react.json")
    assert loaded.shape == "recording" and loaded.domain is not None
    assert calls == [len(data)]
    assert toplevel._shared == []  # the block let go of the bytes


def test_outside_a_shared_block_nothing_is_kept() -> None:
    data = b'{"role": "user"}'
    assert toplevel.parse(data) is not toplevel.parse(data)
    with toplevel.shared(data):
        assert toplevel.parse(data) is toplevel.parse(data)
    assert toplevel._shared == []
