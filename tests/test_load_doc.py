"""A converted recording handed over in memory (``Conversion.doc``): loaded as it is
(``recording.load_doc``), it makes the same ``Loaded`` as its bytes (what ``afp record`` writes);
its long values are the recorder's own JSON, never encoded into one buffer nor copied; and a trace
imported through ``afp`` is never encoded whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers import base, load, load_bytes, recording
from agentbisect.importers.opentelemetry.traces import import_trace
from agentbisect.importers.transcript_import import import_transcript
from agentbisect.model.loaded import decode_commit_log
from agentbisect.schema.recording import ENVELOPE_FORMAT

OTEL = Path(__file__).resolve().parent.parent / "fixtures" / "otel"
TRACES = sorted(
    p
    for p in OTEL.iterdir()
    if p.name.endswith((".otlp.json", ".otlp.jsonl", ".console.json", ".spans.json"))
    and not p.name.endswith((".logs.otlp.json", ".logs.console.json"))
)
TRANSCRIPTS = sorted(
    p for p in OTEL.iterdir() if p.name.startswith("transcript.") and "truth" not in p.name
)


def _same_load(doc: dict[str, Any]) -> None:
    whole = msgspec.json.encode(doc)
    handed = recording.load_doc("f", doc, False)
    handed.size = len(whole)  # (the importer sets the input's size)
    assert handed == recording.load("f", whole, False)
    # the long values are the recorder's own, not copies
    rec = doc["recording"] if doc.get("format") == ENVELOPE_FORMAT else doc
    log = rec["snapshot"]["commitLog"]
    if isinstance(log, msgspec.Raw):
        assert handed.snapshot.commitLog is log  # type: ignore[union-attr]


@pytest.mark.parametrize("path", TRACES + TRANSCRIPTS, ids=lambda p: p.name)
@pytest.mark.parametrize(("detail", "max_events"), [("full", 10_000), ("lean", 7)])
def test_every_fixture_loads_the_same_in_memory(path: Path, detail: Any, max_events: int) -> None:
    if path.name.startswith("transcript."):
        result = import_transcript(
            path.name, path.read_bytes(), detail=detail, max_events=max_events
        )
    else:
        result = import_trace(path.name, path.read_bytes(), detail=detail, max_events=max_events)
    doc = result.document()
    assert (doc.get("format") == ENVELOPE_FORMAT) is (max_events == 7)
    _same_load(doc)


def test_a_long_trace_is_loaded_without_encoding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import otlp_gen

    path = tmp_path / "trace.otlp.jsonl"
    otlp_gen.write(401, path)

    def joining(*args: Any) -> bytes:
        raise AssertionError("the recording was encoded whole")

    monkeypatch.setattr(base.Conversion, "joined", joining)
    loaded = load(str(path))
    assert loaded.shape == "otel" and loaded.size == path.stat().st_size
    monkeypatch.undo()
    # the same events as the whole recording, encoded at once and loaded from its bytes
    whole = msgspec.json.encode(import_trace(path.name, path.read_bytes()).document())
    joined = load_bytes(whole, path.name)
    assert loaded.domain is not None and joined.domain is not None
    assert len(loaded.domain.events) > 800
    assert loaded.domain.events == joined.domain.events
    assert decode_commit_log(loaded) == decode_commit_log(joined)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
_ARRAY = st.lists(_JSON, min_size=1, max_size=4).map(lambda v: msgspec.Raw(msgspec.json.encode(v)))
_OBJECT = st.dictionaries(st.text(max_size=4), _JSON, min_size=1, max_size=4).map(
    lambda v: msgspec.Raw(msgspec.json.encode(v))
)


@st.composite
def _recordings(draw: st.DrawFn) -> dict[str, Any]:
    snap: dict[str, Any] = {"commitLog": draw(_ARRAY)}
    if draw(st.booleans()):
        snap["executionTree"] = draw(_OBJECT)
    if draw(st.booleans()):
        snap["sharedState"] = draw(_JSON)
    ours = {"id": "r", "name": "BoundaryEvents", "data": draw(_ARRAY), "meta": {"mode": "full"}}
    others = draw(
        st.lists(st.fixed_dictionaries({"name": st.text(max_size=3), "data": _ARRAY}), max_size=2)
    )
    snap["recorders"] = [ours, *others]
    rec: dict[str, Any] = {"snapshot": snap, "events": draw(_ARRAY)}
    if draw(st.booleans()):
        rec["structure"] = draw(_JSON)
    if draw(st.booleans()):
        rec["import"] = draw(_JSON)
    if draw(st.booleans()):
        return {
            "format": ENVELOPE_FORMAT,
            "run": {"runId": "x", "complete": True},
            "recording": rec,
        }
    return rec


@settings(max_examples=60, deadline=None)
@given(_recordings())
def test_any_recording_loads_the_same_in_memory(doc: dict[str, Any]) -> None:
    _same_load(doc)
