"""Make recordings from Python: ``record_run`` freezes ``{snapshot, events, structure}``.

A Python agent or pipeline has no footprintjs engine, so this module plays the runner's part:

- a ``BoundaryRecorder`` receives the flow callbacks and the typed events (recording.md §2);
- the typed events are also kept in a bounded tail (``max_events``, default 10 000) with honest
  drop accounting (``droppedEvents``, ``firstRetainedEventIndex``; §1.7);
- the commit log is built by ``commit(...)`` calls and doubles as the commit-count source, so the
  boundary index has a real commit axis (pass ``commit_count=None`` for legacy mode, or any
  callable returning the count if the commits live elsewhere);
- freezing summarises embeddings in ``snapshot`` and ``events`` (§3.3) unless asked not to.

A bare Recording (shape B) cannot carry drop counts, so ``write`` switches to the Envelope
(shape A, §1.9) whenever events were dropped — or always, if asked. Files are written atomically
(``agentbisect.core.files``).

Example::

    with record_run(structure=chart) as rec:
        rec.on_run_start({"payload": {"message": "hi"}})
        rec.commit({"stage": "Seed", "stageId": "seed", "runtimeStageId": "seed#0"})
        rec.emit({"type": "agentfootprint.stream.llm_start", "payload": {...}, "meta": {...}})
        rec.on_run_end({"payload": "bye"})
    rec.write("run.recording.json")
"""

from __future__ import annotations

import contextlib
import math
import os
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from agentbisect.core.encoded import JsonArray
from agentbisect.core.files import gzip_bytes, write_atomic
from agentbisect.model.boundary.embeddings import summarize_embeddings
from agentbisect.model.boundary.lean import lean_event
from agentbisect.model.boundary.recorder import BoundaryRecorder, Mode
from agentbisect.model.envelope import build_envelope, stream_complete, typed_run_ids

DEFAULT_MAX_EVENTS = 10_000
SEAL_EVERY = 1_000  # domain events waiting to be encoded, at most (``encode_events``)
_ENCODER = msgspec.json.Encoder()


def normalize_cap(value: object) -> int:
    """The event cap actually used: bad caps fall back to the default, fractions are floored.

    Non-numbers, ``bool``, non-finite and non-positive values give ``DEFAULT_MAX_EVENTS``; a
    positive fraction is floored, and a fraction below 1 (which would floor to a cap that keeps
    nothing) also falls back to the default.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DEFAULT_MAX_EVENTS
    if isinstance(value, float) and not math.isfinite(value):
        return DEFAULT_MAX_EVENTS
    capped = math.floor(value)
    return capped if capped >= 1 else DEFAULT_MAX_EVENTS


class EventTail:
    """The newest ``cap`` typed events; older ones are dropped and counted."""

    def __init__(self, cap: object = DEFAULT_MAX_EVENTS) -> None:
        self.cap = normalize_cap(cap)
        self._items: deque[Any] = deque(maxlen=self.cap)
        self.event_count = 0

    def append(self, item: Any) -> None:
        self._items.append(item)  # (deque(maxlen) discards the oldest on append)
        self.event_count += 1

    @property
    def dropped_events(self) -> int:
        """How many events the tail no longer holds (it drops exactly when full)."""
        return self.event_count - len(self._items)

    @property
    def first_retained_event_index(self) -> int:
        """``events[i]`` was stream event ``first_retained_event_index + i`` (always = drops)."""
        return self.dropped_events

    def items(self) -> list[Any]:
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)


def _flow_callback(name: str) -> Callable[..., None]:
    """``RunRecording``'s flow callback ``name``: the recorder's, then sealing what it appended."""

    def callback(self: RunRecording, *args: Any) -> None:
        getattr(self.recorder, name)(*args)
        if self.encode_events:
            self._seal(SEAL_EVERY)

    callback.__name__, callback.__qualname__ = name, f"RunRecording.{name}"
    return callback


class RunRecording:
    """The live handle of a recording in progress (what ``record_run`` yields)."""

    def __init__(
        self,
        *,
        structure: Any = UNSET,
        max_events: object = DEFAULT_MAX_EVENTS,
        detail: Mode = "full",
        keep_embeddings: bool = False,
        commit_count: Callable[[], object] | Literal["log"] | None = "log",
        recorder_id: str | None = None,
        clock: Callable[[], int | float] | None = None,
        snapshot: Mapping[str, Any] | None = None,
        encode_commits: bool = False,
        encode_events: bool = False,
    ) -> None:
        self.structure = structure
        # Importers building long logs keep the log as its JSON, one buffer for every bundle
        # (``JsonArray``, written verbatim): a 100,000-span trace's log as dicts was ~75 MB more
        # at the memory peak, and as one Raw per bundle still ~10 MB more than its JSON.
        self.encode_commits = encode_commits
        # ... and the domain events likewise, each encoded once the recorder has appended it
        # (the recorder never changes an event it has appended) and then let go by the recorder:
        # 400,000 event dicts were ~126 MB there. Only ``run.entry``/``run.exit`` stay readable
        # (type and ts), for ``complete()`` and the envelope's start and end. The recording's
        # detail is applied as they are encoded (the lean projection is per event).
        self.encode_events = encode_events
        self._sealed: list[Any] | None = None  # the recorder's list, emptied into _events_json
        self._events_json = JsonArray()
        self._run_marks: list[dict[str, Any]] = []
        self.detail: Mode = detail
        self.keep_embeddings = keep_embeddings
        log: list[Any] | JsonArray = JsonArray() if encode_commits else []
        self.commit_log = log
        # The count reads the log, not ``self``: a closure over ``self`` made the recording a
        # reference cycle, so a long run's whole recording waited for the cycle collector.
        source: Callable[[], object] | None = (
            (lambda: len(log)) if commit_count == "log" else commit_count
        )
        self.recorder = BoundaryRecorder(
            recorder_id,
            commit_count=source,
            detail=detail,
            keep_embeddings=keep_embeddings,
            clock=clock,
        )
        self.tail = EventTail(max_events)
        self.snapshot_base: dict[str, Any] = dict(snapshot or {})
        self.frozen: dict[str, Any] | None = None

    # -------------------------------------------------------------- feeding

    def commit(self, bundle: Mapping[str, Any]) -> int:
        """Append one commit bundle to the log (the commit axis); returns its index."""
        idx = len(self.commit_log)
        row = {"idx": idx}
        row.update(bundle)  # (a bundle's own ``idx`` is overwritten here, kept first)
        row["idx"] = idx
        # frozen now when encoded: summarized now, as to_recording would later
        self.commit_log.append(self._summ(row) if self.encode_commits else row)
        return idx

    def emit(self, typed: Mapping[str, Any]) -> None:
        """Record one typed event: into the capped tail and through the boundary recorder."""
        self.tail.append(typed)
        self.recorder.ingest(typed)
        if self.encode_events:
            self._seal(SEAL_EVERY)

    def on_flow(self, name: str, event: Mapping[str, Any] | None = None) -> None:
        self.recorder.on_flow(name, event or {})
        if self.encode_events:
            self._seal(SEAL_EVERY)

    def _seal(self, waiting: int = 0) -> None:
        """Encode the events the recorder appended since the last call, and let them go, once
        more than ``waiting`` of them wait (encoded a batch at a time: one encode per event was
        a tenth of a long trace's synthesis)."""
        events: list[Any] = self.recorder.events
        if events is not self._sealed:  # a new top-level run wiped the stream
            self._sealed, self._events_json, self._run_marks = events, JsonArray(), []
        if len(events) <= waiting:
            return
        for ev in events:
            t = ev.get("type")
            if t == "run.entry" or t == "run.exit":
                self._run_marks.append({"type": t, "ts": ev.get("ts")})
        self._events_json.extend(
            [lean_event(ev) for ev in events] if self.detail == "lean" else events
        )
        events.clear()  # (the recorder only appends to its list, never reads it back)

    def _stream_marks(self) -> list[Any]:
        """What ``complete()`` and the envelope read of the domain events."""
        if not self.encode_events:
            return self.recorder.events
        self._seal()
        return self._run_marks

    on_run_start = _flow_callback("on_run_start")
    on_run_end = _flow_callback("on_run_end")
    on_run_failed = _flow_callback("on_run_failed")
    on_subflow_entry = _flow_callback("on_subflow_entry")
    on_subflow_exit = _flow_callback("on_subflow_exit")
    on_fork = _flow_callback("on_fork")
    on_decision = _flow_callback("on_decision")
    on_loop = _flow_callback("on_loop")

    # -------------------------------------------------------------- honesty counters

    @property
    def event_count(self) -> int:
        return self.tail.event_count

    @property
    def dropped_events(self) -> int:
        return self.tail.dropped_events

    @property
    def first_retained_event_index(self) -> int:
        return self.tail.first_retained_event_index

    # -------------------------------------------------------------- freezing

    def _summ(self, value: Any) -> Any:
        return value if self.keep_embeddings else summarize_embeddings(value)

    def to_recording(self) -> dict[str, Any]:
        """Freeze ``{snapshot, events, structure}`` (absent parts are absent keys)."""
        out: dict[str, Any] = {}
        if self.encode_events:
            self._seal()  # (events the recorder was handed directly)
        have_run = (
            bool(self.recorder.events)
            or (self.encode_events and len(self._events_json) > 0)
            or bool(self.commit_log)
            or bool(self.snapshot_base)
        )
        if have_run:
            snap: dict[str, Any] = {}
            for key, value in self.snapshot_base.items():
                if key not in ("commitLog", "recorders"):
                    snap[key] = self._summ(value)
            log = self.commit_log
            snap["commitLog"] = log.raw() if isinstance(log, JsonArray) else self._summ(log)
            snap.setdefault("commitValues", "full")
            others = self.snapshot_base.get("recorders")
            rows = [r for r in others if isinstance(r, Mapping)] if isinstance(others, list) else []
            row = self.recorder.to_row(self.detail)
            if self.encode_events:
                row["data"] = self._events_json.raw()
            # Our row goes first: readers take the first BoundaryEvents row.
            snap["recorders"] = [row, *rows]
            out["snapshot"] = snap
        out["events"] = [self._summ(e) for e in self.tail.items()]
        if self.structure is not UNSET:
            out["structure"] = self.structure
        self.frozen = out
        return out

    def run_ids(self) -> list[str]:
        """Distinct typed-event ``meta.runId`` values in the tail, in first-seen order."""
        return typed_run_ids(self.tail.items())

    def complete(self) -> bool:
        """afp's statement: the last run reached ``run.exit`` and no range is open."""
        return stream_complete(self._stream_marks()) and not self.recorder.has_open_ranges()

    def to_envelope(
        self,
        *,
        run_id: str | None = None,
        complete: bool | None = None,
        session_id: str | None = None,
        principal: str | None = None,
        tenant: str | None = None,
    ) -> dict[str, Any]:
        """The Envelope (shape A) around ``to_recording()``, carrying the drop counts."""
        recording = self.frozen if self.frozen is not None else self.to_recording()
        return build_envelope(
            recording,
            domain_events=self._stream_marks(),
            dropped_events=self.dropped_events,
            first_retained_event_index=self.first_retained_event_index,
            run_id=run_id,
            complete=self.complete() if complete is None else complete,
            session_id=session_id,
            principal=principal,
            tenant=tenant,
        )

    def encode(self, *, envelope: bool | None = None) -> bytes:
        """Compact JSON bytes; an Envelope when events were dropped (or ``envelope=True``)."""
        use_env = self.dropped_events > 0 if envelope is None else envelope
        doc = self.to_envelope() if use_env else self.to_recording()
        return _ENCODER.encode(doc)

    def write(
        self,
        path: str | os.PathLike[str],
        *,
        envelope: bool | None = None,
        gzip: bool | None = None,
        force: bool = False,
    ) -> int:
        """Write the recording atomically; returns the number of bytes written."""
        data = self.encode(envelope=envelope)
        path = os.fspath(path)
        use_gzip = path.endswith(".gz") if gzip is None else gzip
        if use_gzip:
            data = gzip_bytes(data)
        write_atomic(path, data, force=force)
        return len(data)


@contextlib.contextmanager
def record_run(
    *,
    structure: Any = UNSET,
    max_events: object = DEFAULT_MAX_EVENTS,
    detail: Mode = "full",
    keep_embeddings: bool = False,
    commit_count: Callable[[], object] | Literal["log"] | None = "log",
    recorder_id: str | None = None,
    clock: Callable[[], int | float] | None = None,
    snapshot: Mapping[str, Any] | None = None,
) -> Iterator[RunRecording]:
    """Record one run; the recording is frozen on exit (also when the body raised).

    A body that raises still leaves a frozen, partial recording on the handle (open ranges show
    up as unclosed), which is usually the recording you most want to look at.
    """
    rec = RunRecording(
        structure=structure,
        max_events=max_events,
        detail=detail,
        keep_embeddings=keep_embeddings,
        commit_count=commit_count,
        recorder_id=recorder_id,
        clock=clock,
        snapshot=snapshot,
    )
    try:
        yield rec
    finally:
        rec.to_recording()
