"""record_run: freezing {snapshot, events, structure}, the event cap, envelopes (§1.7, §1.9)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentbisect.core.errors import UsageError
from agentbisect.importers import load
from agentbisect.model.boundary.rebuild import rebuild_index
from agentbisect.model.record import DEFAULT_MAX_EVENTS, build_envelope, normalize_cap, record_run


def typed(kind: str, payload: dict[str, Any], run: str = "run-1-1") -> dict[str, Any]:
    return {
        "type": f"agentfootprint.{kind}",
        "payload": payload,
        "meta": {"wallClockMs": 1000, "runtimeStageId": "s#1", "subflowPath": [], "runId": run},
    }


def one_run(rec: Any, vector: bool = False) -> None:
    rec.on_run_start({"payload": {"q": "hi", "embedding": [3, 4] + [0] * 30}})
    rec.commit({"stage": "Seed", "stageId": "seed", "runtimeStageId": "seed#0"})
    rec.on_subflow_entry(
        {
            "name": "A",
            "subflowId": "a",
            "description": "Agent: a",
            "traversalContext": {"runtimeStageId": "a#1"},
        }
    )
    rec.commit({"stage": "A", "stageId": "a", "runtimeStageId": "a#1"})
    rec.emit(typed("stream.llm_start", {"model": "m", "provider": "p"}))
    rec.emit(
        typed(
            "memory.loaded",
            {"items": [{"text": "passage", "score": 0.8, "embedding": [0.1, 0.1] + [0] * 30}]},
        )
    )
    rec.emit(
        typed(
            "stream.llm_end",
            {"content": "ok", "toolCallCount": 0, "usage": {"input": 1, "output": 1}},
        )
    )
    rec.commit({"stage": "A", "stageId": "a", "runtimeStageId": "a#1"})
    rec.on_subflow_exit(
        {"name": "A", "subflowId": "a", "traversalContext": {"runtimeStageId": "a#1"}}
    )
    rec.on_subflow_entry(
        {"name": "B", "subflowId": "b", "traversalContext": {"runtimeStageId": "b#2"}}
    )
    rec.commit({"stage": "B", "stageId": "b", "runtimeStageId": "b#2"})
    rec.on_subflow_exit(
        {"name": "B", "subflowId": "b", "traversalContext": {"runtimeStageId": "b#2"}}
    )
    rec.on_run_end({"payload": "done"})


def test_63_64_recording_shape_and_positions(tmp_path: Path) -> None:
    chart = {"name": "Agent", "id": "seed", "type": "stage"}
    with record_run(structure=chart) as rec:
        one_run(rec)
    out = rec.frozen
    assert out is not None and list(out) == ["snapshot", "events", "structure"]
    assert out["structure"] == chart
    assert len(out["snapshot"]["commitLog"]) == 4
    rows = out["snapshot"]["recorders"]
    assert [r["name"] for r in rows] == ["BoundaryEvents"]
    entries = [e for e in rows[0]["data"] if e["type"] == "subflow.entry"]
    pos = [e["commitIdxBefore"] for e in entries]
    assert pos == sorted(pos) and len(set(pos)) == 2 and 0 not in pos
    assert rec.recorder.index.size == 3
    path = tmp_path / "r.json"
    rec.write(path)
    loaded = load(str(path))
    assert loaded.shape == "recording" and loaded.mode == "full"
    build = rebuild_index(loaded.domain.events, loaded.commit_log_empty())  # type: ignore[union-attr]
    assert not build.legacy and build.index.size == 3


def test_61_no_raw_vectors_unless_opted_in() -> None:
    with record_run() as rec:
        one_run(rec)
    blob = msgspec.json.encode(rec.frozen)
    assert b"[0.1,0.1," not in blob and b"[3,4," not in blob
    assert (
        b'{"dims":32,"norm":0.1414}' in blob
        and b'{"dims":32,"norm":5}' in blob
        and b'"passage"' in blob
        and b'"score":0.8' in blob
    )
    with record_run(keep_embeddings=True) as raw:
        one_run(raw)
    raw_blob = msgspec.json.encode(raw.frozen)
    assert b"[0.1,0.1," in raw_blob and b"[3,4," in raw_blob
    assert len(blob) < len(raw_blob)


def test_65_lean_recording() -> None:
    with record_run(detail="lean") as rec:
        one_run(rec)
    row = rec.frozen["snapshot"]["recorders"][0]  # type: ignore[index]
    assert row["meta"] == {"mode": "lean"} and "lean" in row["description"]
    assert b'"content"' not in msgspec.json.encode(row["data"])


@pytest.mark.parametrize(
    ("cap", "used"),
    [
        (3, 3),
        (3.9, 3),
        (0, DEFAULT_MAX_EVENTS),
        (-1, DEFAULT_MAX_EVENTS),
        (math.nan, DEFAULT_MAX_EVENTS),
        (math.inf, DEFAULT_MAX_EVENTS),
        ("5", DEFAULT_MAX_EVENTS),
        (True, DEFAULT_MAX_EVENTS),
        (0.5, DEFAULT_MAX_EVENTS),
    ],
)
def test_66_cap_normalisation(cap: object, used: int) -> None:
    assert normalize_cap(cap) == used


def test_66_cap_drops_oldest(tmp_path: Path) -> None:
    with record_run(max_events=3) as rec:
        for i in range(5):
            rec.emit(typed("stream.token", {"i": i}))
    assert [e["payload"]["i"] for e in rec.frozen["events"]] == [2, 3, 4]  # type: ignore[index]
    assert rec.dropped_events == 2 and rec.first_retained_event_index == 2
    assert rec.event_count == 5
    path = tmp_path / "capped.json.gz"
    rec.write(path)
    loaded = load(str(path))
    assert loaded.shape == "envelope" and loaded.compressed
    assert loaded.envelope_run.droppedEvents == 2  # type: ignore[union-attr]
    assert loaded.envelope_run.firstRetainedEventIndex == 2  # type: ignore[union-attr]
    assert loaded.envelope_run.startedAt is msgspec.UNSET  # type: ignore[union-attr]


def test_67_envelope_rules() -> None:
    with record_run() as rec:
        one_run(rec)
    env = rec.to_envelope()
    assert env["format"] == "agentfootprint.recording.v1"
    assert env["run"]["runId"] == "run-1-1" and env["run"]["complete"] is True
    assert env["run"]["droppedEvents"] == 0 and env["run"]["firstRetainedEventIndex"] == 0
    assert env["run"]["startedAt"].endswith("Z") and "endedAt" in env["run"]
    assert env["privacy"]["mode"] == "full"
    assert "sessionId" not in env["run"]
    with pytest.raises(UsageError):
        build_envelope(
            {"events": [typed("x", {}, "A"), typed("x", {}, "B")]},
            domain_events=[],
            dropped_events=0,
            first_retained_event_index=0,
            run_id=None,
            complete=True,
        )
    with pytest.raises(UsageError):
        build_envelope(
            {},
            domain_events=[],
            dropped_events=0,
            first_retained_event_index=0,
            run_id="r",
            complete=None,
        )  # type: ignore[arg-type]
    stated = build_envelope(
        {"events": [typed("x", {}, "A"), typed("x", {}, "B")]},
        domain_events=[],
        dropped_events=0,
        first_retained_event_index=None,
        run_id="B",
        complete=False,
    )
    assert stated["run"]["runId"] == "B" and "endedAt" not in stated["run"]
    assert "firstRetainedEventIndex" not in stated["run"]


def test_69_reused_recorder_holds_one_run() -> None:
    with record_run() as rec:
        one_run(rec)
        n = len(rec.recorder.events)
        rec.recorder.clear()  # the engine clears before every run
        one_run(rec)
    assert len(rec.recorder.events) == n


def test_partial_freeze_on_exception() -> None:
    with pytest.raises(RuntimeError), record_run() as rec:
        rec.on_run_start({})
        raise RuntimeError("boom")
    assert rec.frozen is not None and rec.recorder.open_keys == ["__root__#0"]
    assert rec.complete() is False


def test_a_recording_is_freed_by_reference_counting_alone() -> None:
    # Importers build a whole long run in a RunRecording; a reference cycle would keep it (every
    # event and commit) alive until the cycle collector runs, which afp runs rarely.
    import gc
    import weakref

    from agentbisect.model.record import RunRecording

    rec = RunRecording()
    one_run(rec)
    gone = weakref.ref(rec)
    was = gc.isenabled()
    gc.disable()
    try:
        del rec
        assert gone() is None
    finally:
        if was:
            gc.enable()


def test_encoded_commits_write_the_same_recording() -> None:
    # Importers keep a long synthesized log as JSON per bundle; the recording's bytes must not
    # change, and the log keeps its positions (the commit axis).
    from agentbisect.core.encoded import JsonArray
    from agentbisect.model.record import RunRecording

    # (a fixed clock: the two recordings must not differ by when they were made)
    plain = RunRecording(recorder_id="r", clock=lambda: 1000)
    encoded = RunRecording(recorder_id="r", clock=lambda: 1000, encode_commits=True)
    for rec in (plain, encoded):
        one_run(rec, vector=True)
        rec.commit({"stage": "Late", "stageId": "late", "overwrite": {"k": "ü\n\u2028"}})
        rec.commit({"stage": "Vec", "stageId": "v", "overwrite": {"e": [0.5] * 40}})
    assert (
        isinstance(encoded.commit_log, JsonArray)
        and len(encoded.commit_log) == len(plain.commit_log) == 6
    )
    assert all(isinstance(c, dict) for c in plain.commit_log)
    assert encoded.encode() == plain.encode()
    assert encoded.encode(envelope=True) == plain.encode(envelope=True)
