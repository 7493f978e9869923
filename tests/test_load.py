"""Loading: every accepted shape, stdin and gzip, deep nesting, and every bad input."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.core.errors import InputError
from agentbisect.importers import load, load_bytes
from agentbisect.schema.events import OtherEvent
from tests.helpers import recording

RT = json.loads(Path(recording("react-tools")).read_text())
ROW = RT["snapshot"]["recorders"][0]


def test_shape_b_recording() -> None:
    lo = load(recording("react-tools"))
    assert (lo.shape, lo.mode, lo.mode_source) == ("recording", "full", "meta")
    assert lo.domain is not None and len(lo.domain.events) == 166


def test_shape_a_envelope_surfaces_drop_accounting() -> None:
    env = {
        "format": "agentfootprint.recording.v1",
        "producer": {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.15.1"},
        "run": {
            "runId": "run-1",
            "complete": False,
            "droppedEvents": 3,
            "firstRetainedEventIndex": 3,
        },
        "privacy": {"mode": "full"},
        "recording": RT,
    }
    from agentbisect.model.run import Run

    run = Run(load_bytes(json.dumps(env).encode(), "env.json"))
    assert run.loaded.shape == "envelope"
    flags = [f.flag for f in run.flags]
    assert "events-dropped" in flags and "run-incomplete" in flags
    assert run.source()["droppedEvents"] == 3 and run.source()["firstRetainedEventIndex"] == 3


def test_unknown_envelope_format_is_refused() -> None:
    with pytest.raises(InputError, match=r"unknown envelope format") as exc:
        load_bytes(b'{"format": "agentfootprint.recording.v2", "recording": {}}', "e.json")
    assert exc.value.json_path == "$.format"


def test_shape_c_trace() -> None:
    trace = {"version": 1, "redaction": "pii", "events": ROW["data"]}
    lo = load_bytes(json.dumps(trace).encode())
    assert lo.shape == "trace" and len(lo.domain.events) == 166
    assert "redacted" in [w.flag for w in lo.warnings]


def test_shape_d_bare_snapshot_and_e_bare_row_and_array() -> None:
    assert load_bytes(json.dumps(RT["snapshot"]).encode()).shape == "snapshot"
    row = load_bytes(json.dumps(ROW).encode())
    assert row.shape == "boundary-row" and len(row.domain.events) == 166
    arr = load_bytes(json.dumps(ROW["data"]).encode())
    assert arr.shape == "boundary-row" and len(arr.domain.events) == 166


def test_blueprint_is_accepted_for_structure() -> None:
    rec = {"snapshot": RT["snapshot"], "blueprint": {"name": "x"}}
    lo = load_bytes(json.dumps(rec).encode())
    assert lo.structure is not None
    assert "structure-absent" not in [w.flag for w in lo.warnings]


def test_gzip_by_magic_bytes_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gz = tmp_path / "run.json.txt"  # extension lies on purpose
    gz.write_bytes(gzip.compress(Path(recording("planted-fact")).read_bytes()))
    lo = load(str(gz))
    assert lo.compressed and len(lo.domain.events) == 57

    class FakeStdin:
        buffer = open(recording("planted-fact"), "rb")  # noqa: SIM115

    monkeypatch.setattr("sys.stdin", FakeStdin)
    assert load("-").file == "<stdin>"
    FakeStdin.buffer.close()


def test_unknown_types_and_holes_are_kept_or_counted() -> None:
    data = [
        *ROW["data"][:3],
        None,
        {"type": "future.event", "novel": [1, 2]},
        {"type": "llm.end", "usage": "oops"},
        7,
    ]
    lo = load_bytes(json.dumps(data).encode())
    dom = lo.domain
    assert (dom.null_holes, dom.non_objects, dom.unknown_types, dom.malformed) == (1, 1, 1, 1)
    assert isinstance(dom.events[3], OtherEvent) and dom.events[3].type == "future.event"
    assert json.loads(bytes(dom.raws()[3])) == {"type": "future.event", "novel": [1, 2]}
    assert len(dom.raws()) == len(dom.events) == 5


def _nest(depth: int) -> dict:  # type: ignore[type-arg]
    node: dict = {"id": "leaf"}  # type: ignore[type-arg]
    for i in range(depth):
        node = {"id": f"s{i}", "runtimeStageId": f"s#{i}", "next": node}
    return node


def test_deeply_nested_execution_tree_loads() -> None:
    snap = dict(RT["snapshot"])
    snap["executionTree"] = _nest(6000)
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)  # only so that json.dumps can write the test input
    try:
        data = json.dumps({"snapshot": snap, "events": RT["events"]}).encode()
    finally:
        sys.setrecursionlimit(max(limit, sys.getrecursionlimit()))
    lo = load_bytes(data, "deep.json")
    assert len(lo.domain.events) == 166


BAD = {
    "empty": (b"", "file is empty"),
    "whitespace": (b"  \n", "file is empty"),
    "invalid": (b"{nope", "not valid JSON"),
    "truncated": (json.dumps(RT).encode()[:5000], "truncated"),
    "number": (b"42", "expected a JSON object"),
    "wrong-object": (b'{"hello": 1}', "expected a recording"),
    "garbage": (bytes(range(256)) * 4, "not valid JSON"),
    "bad-gzip": (b"\x1f\x8b\x08\x00garbage", "gzip data is corrupt"),
    "wrong-field-type": (b'{"snapshot": {"recorders": "x"}}', "expected array, got str"),
    "array-of-junk": (b"[1, 2, 3]", "array of domain events"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_input_error(tmp_path: Path, name: str) -> None:
    data, phrase = BAD[name]
    f = tmp_path / f"{name}.json"
    f.write_bytes(data)
    with pytest.raises(InputError) as exc:
        load(str(f))
    assert phrase in str(exc.value)
    assert str(f) in str(exc.value)
    assert "\n" not in str(exc.value)


def test_wrong_field_type_in_an_event_degrades_and_names_the_json_path() -> None:
    lo = load_bytes(
        b'{"snapshot": {"recorders": [{"name": "BoundaryEvents", "data": [{"type": '
        b'"llm.end", "usage": {"input": "x"}}]}]}}',
        "f.json",
    )
    (ev,) = lo.domain.events
    assert isinstance(ev, OtherEvent) and ev.type == "llm.end"
    assert "$.snapshot.recorders[0].data[0].usage.input" in ev.problem
    assert "malformed-events" in [w.flag for w in lo.warnings]


def test_wrong_container_type_names_the_json_path() -> None:
    with pytest.raises(InputError) as exc:
        load_bytes(
            b'{"snapshot": {"commitValues": "full", "recorders": [{"name": 5, "data": []}, 3]}}',
            "f.json",
        )
    assert exc.value.json_path == "$.snapshot.recorders[1]"
    assert "expected object, got int" in str(exc.value)


def test_missing_directory_and_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load(str(tmp_path / "missing.json"))
    with pytest.raises(InputError, match="is a directory"):
        load(str(tmp_path))
    f = tmp_path / "secret.json"
    f.write_text("{}")
    os.chmod(f, 0)
    with pytest.raises(InputError, match="permission denied"):
        if os.access(f, os.R_OK):  # root reads anything: make the read itself refuse
            import builtins

            real_open = builtins.open

            def refusing_open(path, *a, **k):  # type: ignore[no-untyped-def]
                if str(path) == str(f):
                    raise PermissionError(13, "Permission denied", str(path))
                return real_open(path, *a, **k)

            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(builtins, "open", refusing_open)
                load(str(f))
        else:
            load(str(f))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "snapshot",
                    "events",
                    "data",
                    "name",
                    "commitLog",
                    "format",
                    "recorders",
                    "payload",
                    "version",
                    "redaction",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_random_json_never_escapes_as_anything_but_input_error(value: object) -> None:
    from agentbisect.model.run import Run

    try:
        run = Run(load_bytes(json.dumps(value).encode(), "fuzz.json"))
        run.flags  # noqa: B018  (derivations must not raise either)
        run.step_graph  # noqa: B018
        run.aggregates  # noqa: B018
        run.step_strip()
        run.source()
    except InputError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_escape_as_anything_but_input_error(data: bytes) -> None:
    with contextlib.suppress(InputError):
        load_bytes(data, "bytes.bin")


def _loaded_view(lo: object) -> bytes:
    # Everything a Run reads of a Loaded, as JSON (Raw parts by their bytes).
    import msgspec

    from agentbisect.model.loaded import Loaded

    assert isinstance(lo, Loaded)
    parts = {
        "shape": lo.shape,
        "snapshot": lo.snapshot,
        "typed": lo.typed_events_raw,
        "structure": lo.structure,
        "format": lo.envelope_format,
        "run": lo.envelope_run,
        "producer": lo.producer,
        "row": lo.boundary_row,
        "ignored": lo.boundary_rows_ignored,
        "domain": None if lo.domain is None else lo.domain.events,
        "source": lo.domain_source,
        "mode": [lo.mode, lo.mode_source],
        "ext": [lo.control_deps_raw, lo.quality_raw, lo.import_raw],
        "warnings": [(w.flag, w.note) for w in lo.warnings],
    }
    return msgspec.json.encode(parts)


def _careful(data: bytes, monkeypatch: pytest.MonkeyPatch) -> bytes | str:
    import msgspec

    from agentbisect.importers import toplevel

    class _Refuse:
        def decode(self, _: object) -> None:
            raise msgspec.ValidationError("take the careful path")

    with monkeypatch.context() as m:
        m.setattr(toplevel, "_TOP", _Refuse())
        try:
            return _loaded_view(load_bytes(data, "env.json"))
        except InputError as exc:
            return str(exc)


def _fast(data: bytes) -> bytes | str:
    try:
        return _loaded_view(load_bytes(data, "env.json"))
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize(
    "name", ["react-tools", "planted-fact", "composition", "demo-turn-envelope"]
)
def test_envelope_fast_path_loads_what_the_careful_path_loads(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fast path decodes an envelope's recording (and its snapshot's skeleton) in the same
    # pass as the envelope; it must give exactly the Loaded the part-by-part path gives.
    if name == "demo-turn-envelope":
        from agentbisect.model.record import record_run
        from tests.test_record_run import one_run

        with record_run(max_events=1) as rec:
            one_run(rec)
        data = rec.encode(envelope=True)
    else:
        inner = json.loads(Path(recording(name)).read_text())
        env = {"format": "agentfootprint.recording.v1", "run": {"runId": "r"}, "recording": inner}
        data = json.dumps(env).encode()
    fast = _fast(data)
    assert isinstance(fast, bytes) and b'"shape":"envelope"' in fast
    assert fast == _careful(data, monkeypatch)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_envelope_fast_path_agrees_on_any_recording_value(value: object) -> None:
    with pytest.MonkeyPatch.context() as mp:
        for body in (value, {"snapshot": value, "events": []}, {"snapshot": {"commitLog": value}}):
            env = {"format": "agentfootprint.recording.v1", "recording": body}
            data = json.dumps(env).encode()
            assert _fast(data) == _careful(data, mp)
