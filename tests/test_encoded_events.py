"""Domain events kept as their JSON while a recording is built (``RunRecording(encode_events=
True)``, what the trace synthesizer uses) write the very bytes the event dicts would have, and
``afp aggregate`` keeps less of the run: not the indexed commit log, nor the run while it renders."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

import pytest

from agentbisect.importers import synthesize
from agentbisect.importers.convert import conversion
from agentbisect.importers.opentelemetry.traces import import_trace
from agentbisect.model.record import SEAL_EVERY, RunRecording
from tests.helpers import RECORDINGS, recording
from tests.test_record_run import one_run, typed

OTEL = Path(__file__).resolve().parent.parent / "fixtures" / "otel"
TRACES = sorted(
    p
    for p in OTEL.iterdir()
    if p.name.endswith((".otlp.json", ".otlp.jsonl")) and not p.name.endswith(".logs.otlp.json")
)


def fed(rec: RunRecording, *, second_run: bool, finished: bool) -> RunRecording:
    one_run(rec, vector=True)
    if second_run:  # a new run id on an idle recorder wipes the stream and starts over
        rec.on_run_start({"traversalContext": {"runId": "other"}})
        rec.on_run_start({"payload": "again", "traversalContext": {"runId": "third"}})
        rec.emit(typed("stream.llm_start", {"model": "m"}))
        if finished:
            rec.on_run_end({"payload": "done"})
    return rec


@pytest.mark.parametrize("detail", ["full", "lean"])
@pytest.mark.parametrize("second_run", [False, True])
@pytest.mark.parametrize("finished", [False, True])
def test_encoded_events_write_the_same_recording(
    detail: Any, second_run: bool, finished: bool
) -> None:
    def make(encode: bool) -> RunRecording:
        rec = RunRecording(
            recorder_id="r", clock=lambda: 1000, detail=detail, max_events=2, encode_events=encode
        )
        return fed(rec, second_run=second_run, finished=finished)

    plain, encoded = make(False), make(True)
    # the encoded recording keeps its events as JSON only: the recorder's dicts are let go (a
    # batch of them at a time, and all of them once the recording is read)
    assert len(encoded.recorder.events) <= SEAL_EVERY
    assert plain.recorder.events and all(isinstance(e, dict) for e in plain.recorder.events)
    assert encoded.complete() is plain.complete()
    assert encoded.recorder.events == [] and len(encoded._events_json) > 0
    assert encoded.dropped_events == plain.dropped_events > 0
    assert encoded.encode(envelope=False) == plain.encode(envelope=False)
    # the envelope reads the start and end of the run from the domain events
    assert make(True).encode(envelope=True) == make(False).encode(envelope=True)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
@pytest.mark.parametrize(("detail", "max_events"), [("full", 10_000), ("lean", 7)])
def test_every_otel_fixture_converts_to_the_same_bytes(
    path: Path, detail: Any, max_events: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def convert(encode: bool) -> bytes:
        def recording(**kwargs: Any) -> RunRecording:
            # a fixed recorder id: the default one counts recorders made in the process
            return RunRecording(**{**kwargs, "recorder_id": "r", "encode_events": encode})

        monkeypatch.setattr(synthesize, "RunRecording", recording)
        result = import_trace(path.name, path.read_bytes(), detail=detail, max_events=max_events)
        assert (result.rec.recorder.events == []) is encode
        return conversion(result, detail).joined()

    assert convert(True) == convert(False)


def test_aggregate_renders_after_the_run_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    # The run (and the recording bytes its parts point into) was alive while the JSON was made:
    # 80 MB more at the peak on a 100,000-span trace. The page reads the run again: kept there.
    from agentbisect.cli import aggregate, common, output
    from agentbisect.render.formats import ReportFormat

    runs: list[weakref.ref[Any]] = []
    alive_at_render: list[bool] = []
    load_run = common.load_run

    def loading(*args: Any, **kwargs: Any) -> Any:
        run = load_run(*args, **kwargs)
        runs.append(weakref.ref(run))
        return run

    def emitting(name: str, result: Any, out: str | None, force: bool) -> None:
        alive_at_render.append(runs[-1]() is not None)

    monkeypatch.setattr(common, "load_run", loading)
    monkeypatch.setattr(output, "emit", emitting)
    for fmt, as_json in ((None, True), (ReportFormat.table, False), (ReportFormat.html, False)):
        aggregate.run(
            file=str(TRACES[0]),
            show_all=False,
            drill=None,
            fmt=fmt,
            output=None,
            force=False,
            as_json=as_json,
            verbose=False,
            trace_id=None,
            logs=None,
        )
    assert alive_at_render == [False, False, True]


@pytest.mark.parametrize(
    "path",
    [*(recording(r) for r in RECORDINGS), *(str(p) for p in TRACES[:3])],
    ids=lambda p: Path(p).name,
)
def test_aggregate_names_the_localizable_steps_without_keeping_the_log(path: str) -> None:
    # The indexed commit log stayed on the run for one set of step ids (85 MB of a
    # 100,000-span trace's peak); the ids are the same as the indexed log's.
    from agentbisect.analyses.aggregate import aggregate
    from agentbisect.importers import open_run

    run = open_run(path)
    result = aggregate(run)
    assert "commit_log" not in vars(run)  # not built (cached_property keeps it in __dict__)
    assert result.localizable == set(run.commit_log.last_idx)
    assert result.localizable or path.endswith(("legacy.recording.json",))


@pytest.mark.parametrize("overview", [False, True])
def test_results_hold_the_run_only_for_the_page(overview: bool) -> None:
    # Both commands ask for the overview only for the HTML page; otherwise the result must not
    # keep the run (and the recording bytes behind it) alive while it is rendered.
    import gc

    from agentbisect.analyses.aggregate import aggregate
    from agentbisect.bisect.api import BisectOptions, bisect_run
    from agentbisect.importers import open_run

    path = recording("planted-fact")
    for analyse in (
        lambda run: aggregate(run, overview=overview),
        lambda run: bisect_run(
            run, BisectOptions(at_step="call-llm#40", upstream=True), overview=overview
        ),
    ):
        run = open_run(path)
        ref = weakref.ref(run)
        result = analyse(run)
        del run
        gc.collect()
        assert (ref() is not None) is overview
        assert (result.overview is not None) is overview
