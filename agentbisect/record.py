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
(shape A, §1.9) whenever events were dropped — or always, if asked. Files are written atomically.

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
import datetime as _dt
import gzip as _gzip
import math
import os
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

import msgspec

from agentbisect.boundary.embeddings import summarize_embeddings
from agentbisect.boundary.recorder import BoundaryRecorder, Mode
from agentbisect.errors import UsageError
from agentbisect.schema.recording import ENVELOPE_FORMAT

DEFAULT_MAX_EVENTS = 10_000
CONSUMER_RUN_ID = "consumer-scope"
_ENCODER = msgspec.json.Encoder()

try:
    from importlib.metadata import version as _pkg_version

    AGENTBISECT_VERSION = _pkg_version("agentbisect")
except Exception:  # pragma: no cover - not installed as a distribution
    AGENTBISECT_VERSION = "unknown"


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
        self.dropped_events = 0

    def append(self, item: Any) -> None:
        if len(self._items) == self.cap:
            self.dropped_events += 1  # deque(maxlen) discards the oldest on append
        self._items.append(item)
        self.event_count += 1

    @property
    def first_retained_event_index(self) -> int:
        """``events[i]`` was stream event ``first_retained_event_index + i`` (always = drops)."""
        return self.dropped_events

    def items(self) -> list[Any]:
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)


_ABSENT: Any = object()


class RunRecording:
    """The live handle of a recording in progress (what ``record_run`` yields)."""

    def __init__(
        self,
        *,
        structure: Any = _ABSENT,
        max_events: object = DEFAULT_MAX_EVENTS,
        detail: Mode = "full",
        keep_embeddings: bool = False,
        commit_count: Callable[[], object] | Literal["log"] | None = "log",
        recorder_id: str | None = None,
        clock: Callable[[], int | float] | None = None,
        snapshot: Mapping[str, Any] | None = None,
    ) -> None:
        self.structure = structure
        self.detail: Mode = detail
        self.keep_embeddings = keep_embeddings
        self.commit_log: list[Any] = []
        source: Callable[[], object] | None = (
            (lambda: len(self.commit_log)) if commit_count == "log" else commit_count  # type: ignore[assignment]
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
        row = {"idx": idx, **{k: v for k, v in bundle.items() if k != "idx"}}
        self.commit_log.append(row)
        return idx

    def emit(self, typed: Mapping[str, Any]) -> None:
        """Record one typed event: into the capped tail and through the boundary recorder."""
        self.tail.append(typed)
        self.recorder.ingest(typed)

    def on_flow(self, name: str, event: Mapping[str, Any] | None = None) -> None:
        self.recorder.on_flow(name, event or {})

    def on_run_start(self, event: Mapping[str, Any] | None = None) -> None:
        self.recorder.on_run_start(event)

    def on_run_end(self, event: Mapping[str, Any] | None = None) -> None:
        self.recorder.on_run_end(event)

    def on_run_failed(self, event: Mapping[str, Any] | None = None) -> None:
        self.recorder.on_run_failed(event)

    def on_subflow_entry(self, event: Mapping[str, Any]) -> None:
        self.recorder.on_subflow_entry(event)

    def on_subflow_exit(self, event: Mapping[str, Any]) -> None:
        self.recorder.on_subflow_exit(event)

    def on_fork(self, event: Mapping[str, Any]) -> None:
        self.recorder.on_fork(event)

    def on_decision(self, event: Mapping[str, Any]) -> None:
        self.recorder.on_decision(event)

    def on_loop(self, event: Mapping[str, Any]) -> None:
        self.recorder.on_loop(event)

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
        have_run = bool(self.recorder.events) or bool(self.commit_log) or bool(self.snapshot_base)
        if have_run:
            snap: dict[str, Any] = {}
            for key, value in self.snapshot_base.items():
                if key not in ("commitLog", "recorders"):
                    snap[key] = self._summ(value)
            snap["commitLog"] = self._summ(self.commit_log)
            snap.setdefault("commitValues", "full")
            others = self.snapshot_base.get("recorders")
            rows = [r for r in others if isinstance(r, Mapping)] if isinstance(others, list) else []
            # Our row goes first: readers take the first BoundaryEvents row.
            snap["recorders"] = [self.recorder.to_row(self.detail), *rows]
            out["snapshot"] = snap
        out["events"] = [self._summ(e) for e in self.tail.items()]
        if self.structure is not _ABSENT:
            out["structure"] = self.structure
        self.frozen = out
        return out

    def run_ids(self) -> list[str]:
        """Distinct typed-event ``meta.runId`` values in the tail, in first-seen order."""
        return typed_run_ids(self.tail.items())

    def complete(self) -> bool:
        """afp's statement: the last run reached ``run.exit`` and no range is open."""
        return stream_complete(self.recorder.events) and not self.recorder.has_open_ranges()

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
            domain_events=self.recorder.events,
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
    structure: Any = _ABSENT,
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


# --------------------------------------------------------------------------- envelope


def typed_run_ids(events: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for e in events:
        meta = e.get("meta") if isinstance(e, Mapping) else None
        rid = meta.get("runId") if isinstance(meta, Mapping) else None
        if isinstance(rid, str) and rid and rid != CONSUMER_RUN_ID:
            seen.setdefault(rid)
    return list(seen)


def stream_complete(domain_events: list[Mapping[str, Any]]) -> bool:
    """True when the last ``run.entry`` is followed by a ``run.exit``."""
    state = False
    for e in domain_events:
        t = e.get("type")
        if t == "run.entry":
            state = False
        elif t == "run.exit":
            state = True
    return state


def iso_ms(ms: int | float) -> str:
    """Epoch milliseconds as JavaScript's ``toISOString`` writes them."""
    t = _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


def build_envelope(
    recording: Mapping[str, Any] | msgspec.Raw,
    *,
    domain_events: list[Mapping[str, Any]],
    dropped_events: int,
    first_retained_event_index: int | None,
    run_id: str | None,
    complete: bool,
    session_id: str | None = None,
    principal: str | None = None,
    tenant: str | None = None,
    typed_events: list[Any] | None = None,
    started_at_ms: int | float | None = None,
    ended_at_ms: int | float | None = None,
) -> dict[str, Any]:
    """Shape A (recording.md §1.9) with the producer's refusals applied.

    ``run.runId`` is the typed-event ``meta.runId`` (never the snapshot's engine id); more than
    one distinct id is refused unless the caller states one. ``startedAt`` is left out when
    events were dropped (the first retained event is not the start); ``endedAt`` is only written
    for a complete run. Optional keys are absent, never null.
    """
    if not isinstance(complete, bool):
        raise UsageError("an envelope needs an explicit complete: true or false")
    if isinstance(recording, Mapping):
        events = typed_events if typed_events is not None else list(recording.get("events") or [])
    else:
        events = typed_events or []
    if run_id is None:
        ids = typed_run_ids(events)
        if len(ids) > 1:
            raise UsageError(
                "the typed events carry more than one run id ("
                + ", ".join(ids[:4])
                + "); state the run id to build an envelope"
            )
        run_id = ids[0] if ids else "unknown"
    if started_at_ms is None or ended_at_ms is None:
        starts = [e.get("ts") for e in domain_events if e.get("type") == "run.entry"]
        ends = [e.get("ts") for e in domain_events if e.get("type") == "run.exit"]
        if started_at_ms is None and starts and _is_ms(starts[-1]):
            started_at_ms = starts[-1]
        if ended_at_ms is None and ends and _is_ms(ends[-1]):
            ended_at_ms = ends[-1]
    run: dict[str, Any] = {"runId": run_id}
    if session_id is not None:
        run["sessionId"] = session_id
    if principal is not None:
        run["principal"] = principal
    if tenant is not None:
        run["tenant"] = tenant
    if dropped_events == 0 and started_at_ms is not None:
        run["startedAt"] = iso_ms(started_at_ms)
    if complete and ended_at_ms is not None:
        run["endedAt"] = iso_ms(ended_at_ms)
    run["complete"] = complete
    run["droppedEvents"] = dropped_events
    if first_retained_event_index is not None:
        run["firstRetainedEventIndex"] = first_retained_event_index
    return {
        "format": ENVELOPE_FORMAT,
        "producer": {
            # Not produced by agentfootprint/footprintjs: their versions are honestly unknown.
            "agentfootprintVersion": "unknown",
            "footprintjsVersion": "unknown",
            "agentbisectVersion": AGENTBISECT_VERSION,
        },
        "run": run,
        "privacy": {"mode": "full", "policyId": "agentfootprint.privacy.full.v1"},
        "recording": recording,
    }


def _is_ms(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value < 253402300800000  # year 9999
    )


# --------------------------------------------------------------------------- atomic files


def gzip_bytes(data: bytes) -> bytes:
    """gzip with mtime 0, so the same recording always compresses to the same bytes."""
    return _gzip.compress(data, compresslevel=6, mtime=0)


WRITE_DELAY_ENV = "AFP_TEST_WRITE_DELAY"
"""Test hook: seconds to sleep half-way through writing the temp file (crash tests)."""


def write_atomic(path: str, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file, nothing, or all of it.

    The bytes go to a temp file in the same directory (same filesystem, so the final rename is
    atomic), are fsynced, then renamed into place; the directory is fsynced too. Without
    ``force`` an existing ``path`` is never replaced — the final step links instead of renames,
    which fails if something appeared at ``path`` meanwhile.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not force and os.path.lexists(path):
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    try:
        fd, tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
        )
    except FileNotFoundError:
        raise UsageError(f"cannot write {path}: directory {directory} does not exist") from None
    except PermissionError:
        raise UsageError(f"cannot write {path}: permission denied in {directory}") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            half = len(data) // 2
            fh.write(data[:half])
            delay = os.environ.get(WRITE_DELAY_ENV)
            if delay:
                fh.flush()
                time.sleep(float(delay))
            fh.write(data[half:])
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise UsageError(f"{path} exists; pass --force to overwrite it") from None
            except OSError:
                # Filesystems without hard links: fall back to a checked rename.
                if os.path.lexists(path):
                    raise UsageError(f"{path} exists; pass --force to overwrite it") from None
                os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# =========================================================================== conversion
# `afp record`: turn a JSON Lines capture, or any recording shape afp reads, into a canonical
# recording (shape B, or the Envelope A when drop counts must be carried).

CAPTURE_FORMAT = "agentbisect.capture.v1"
_CAPTURE_KINDS = ("afp", "flow", "typed", "commit", "snapshot")
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])


class Conversion(msgspec.Struct, kw_only=True):
    """What ``afp record`` produced and what it had to say about it."""

    data: bytes
    shape_in: str
    shape_out: str  # "recording" | "envelope"
    detail: str
    typed_in: int
    typed_out: int
    dropped_now: int
    dropped_total: int | None  # None: unknown (a bare recording cannot say)
    first_retained: int | None
    notes: list[tuple[str, str]] = []


def is_capture(data: bytes) -> bool:
    """A capture's first line is a JSON object with a capture key (never a recording key)."""
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            first = _RAW_DICT.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return False
        return any(k in first for k in ("afp", "flow", "typed", "commit"))
    return False


def _bad(name: str, line_no: int, what: str) -> Exception:
    from agentbisect.errors import InputError

    return InputError(name, what, f"line {line_no}")


def _num(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def convert_capture(
    name: str,
    data: bytes,
    *,
    detail: Mode = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Conversion:
    """Replay a JSON Lines capture through the recorder (format: see ``afp record --help``)."""
    lines: list[tuple[int, dict[str, Any]]] = []
    for n, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = msgspec.json.decode(raw)
        except msgspec.DecodeError as exc:
            raise _bad(name, n, f"not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise _bad(name, n, "expected a JSON object per line")
        kinds = [k for k in _CAPTURE_KINDS if k in obj]
        if len(kinds) != 1:
            raise _bad(
                name, n, "expected exactly one of the keys flow, typed, commit, snapshot, afp"
            )
        lines.append((n, obj))
    header: dict[str, Any] = {}
    if lines and "afp" in lines[0][1]:
        header = lines.pop(0)[1]
        if header.get("afp") != "capture":
            raise _bad(name, 1, 'expected a header {"afp": "capture", ...}')
        if header.get("version", 1) != 1:
            raise _bad(name, 1, f"unknown capture version {header.get('version')!r}; afp reads 1")
    tracked = any("commits" in o or "commit" in o for _, o in lines)
    state: dict[str, Any] = {"count": 0, "ts": None}
    no_ts = 0

    def clock() -> int | float:
        nonlocal no_ts
        if state["ts"] is None:
            no_ts += 1
            return int(time.time() * 1000)
        return state["ts"]  # type: ignore[no-any-return]

    rec = RunRecording(
        structure=header.get("structure", _ABSENT),
        max_events=max_events,
        detail=detail,
        keep_embeddings=keep_embeddings,
        commit_count=(lambda: state["count"]) if tracked else None,
        recorder_id=header.get("recorderId") if isinstance(header.get("recorderId"), str) else None,
        clock=clock,
    )
    snapshot_base: dict[str, Any] = {}
    for n, obj in lines:
        if "commits" in obj:
            if not _num(obj["commits"]):
                raise _bad(name, n, "expected commits to be a number (the commit count)")
            state["count"] = obj["commits"]
        if "afp" in obj:
            raise _bad(name, n, "the header line may only be the first line")
        if "commit" in obj:
            if not isinstance(obj["commit"], dict):
                raise _bad(name, n, "expected commit to be an object (a commit bundle)")
            rec.commit(obj["commit"])
            state["count"] = len(rec.commit_log)
        elif "snapshot" in obj:
            if not isinstance(obj["snapshot"], dict):
                raise _bad(name, n, "expected snapshot to be an object")
            snapshot_base = obj["snapshot"]
        elif "typed" in obj:
            typed = obj["typed"]
            if not isinstance(typed, dict) or not isinstance(typed.get("type"), str):
                raise _bad(name, n, "expected typed to be an event object with a string type")
            rec.emit(typed)
        else:
            flow = obj["flow"]
            if flow not in BoundaryRecorder.FLOW_CALLBACKS:
                raise _bad(
                    name,
                    n,
                    "expected flow to be one of " + ", ".join(BoundaryRecorder.FLOW_CALLBACKS),
                )
            event = obj.get("event", {})
            if not isinstance(event, dict):
                raise _bad(name, n, "expected event to be an object")
            ts = obj.get("ts")
            if ts is not None and not _num(ts):
                raise _bad(name, n, "expected ts to be epoch milliseconds")
            state["ts"] = ts
            rec.on_flow(flow, event)
            state["ts"] = None
    rec.snapshot_base = snapshot_base
    notes: list[tuple[str, str]] = []
    if no_ts:
        notes.append(
            ("ts-stamped-now", f"{no_ts} flow event(s) had no ts; stamped with the conversion time")
        )
    if not tracked:
        notes.append(
            (
                "commit-axis-absent",
                "the capture has no commit counts: recorded without commit tracking (legacy); "
                "the boundary index is empty and this cannot be repaired",
            )
        )
    ids = rec.run_ids()
    use_env = rec.dropped_events > 0
    if use_env:
        run_id = ids[-1] if ids else None
        if len(ids) > 1:
            notes.append(("multiple-runs", "typed events span runs " + ", ".join(ids)))
        doc: Any = rec.to_envelope(run_id=run_id)
    else:
        doc = rec.to_recording()
    return Conversion(
        data=_ENCODER.encode(doc),
        shape_in="capture (JSON Lines)",
        shape_out="envelope" if use_env else "recording",
        detail=detail,
        typed_in=rec.event_count,
        typed_out=len(rec.tail),
        dropped_now=rec.dropped_events,
        dropped_total=rec.dropped_events,
        first_retained=rec.first_retained_event_index,
        notes=notes,
    )


def _summ_raw(raw: msgspec.Raw, keep: bool) -> msgspec.Raw:
    """Summarise embeddings inside one JSON value, keeping the bytes when nothing changes."""
    from agentbisect.boundary.embeddings import EMBEDDING_MARKER

    if keep or EMBEDDING_MARKER not in bytes(raw):
        return raw
    value = msgspec.json.decode(raw)
    new = summarize_embeddings(value)
    return raw if new is value else msgspec.Raw(_ENCODER.encode(new))


def _kind(raw: msgspec.Raw | bytes) -> bytes:
    return bytes(raw).lstrip()[:1]


def reproject(
    name: str,
    data: bytes,
    *,
    detail: Mode = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Conversion:
    """Re-project a recording afp reads (shapes A–E) into shape B, or A to carry drops."""
    from agentbisect.load import load_bytes, run_deep

    loaded = load_bytes(data, name)
    return run_deep(_reproject, loaded, data, detail, keep_embeddings, max_events)


def _reproject(
    loaded: Any, data: bytes, detail: Mode, keep: bool, max_events: object
) -> Conversion:
    from agentbisect.boundary.lean import lean_raw
    from agentbisect.boundary.recorder import FULL_DESCRIPTION, LEAN_DESCRIPTION
    from agentbisect.schema.recording import BOUNDARY_ROW_NAME

    notes: list[tuple[str, str]] = []
    shape = loaded.shape
    top: dict[str, msgspec.Raw] = _RAW_DICT.decode(data) if _kind(data) == b"{" else {}
    rec_parts: dict[str, msgspec.Raw]
    envelope: dict[str, msgspec.Raw] | None = None
    row_source: Any = None  # raw domain-event array when there is no snapshot row
    if shape == "envelope":
        envelope = top
        rec_parts = _RAW_DICT.decode(top["recording"])
    elif shape == "recording":
        rec_parts = dict(top)
    elif shape == "trace":
        rec_parts = {k: top[k] for k in ("snapshot", "structure") if k in top}
        row_source = top.get("events")
        if loaded.trace_redaction not in (None, "none"):
            notes.append(
                (
                    "redacted",
                    f"the input trace was redacted ({loaded.trace_redaction!r}); the output "
                    "still holds its markers but no longer says so",
                )
            )
    elif shape == "snapshot":
        rec_parts = {"snapshot": msgspec.Raw(data)}
    else:  # bare boundary row (object or array)
        rec_parts = {}
        row_source = top.get("data") if top else msgspec.Raw(data)

    input_mode = loaded.mode if loaded.boundary_row is not None else "full"
    out_mode: Mode = detail
    if input_mode == "lean" and detail == "full":
        out_mode = "lean"
        notes.append(
            (
                "lean-input",
                "the input boundary row is lean: its content was never captured and cannot be "
                "restored, so the output stays lean",
            )
        )

    def project_events(raw: msgspec.Raw) -> list[msgspec.Raw]:
        out: list[msgspec.Raw] = []
        for item in _RAW_LIST.decode(raw):
            if _kind(item) != b"{":
                continue  # null holes and non-objects are not events (the loader warned)
            item = _summ_raw(item, keep)
            if out_mode == "lean":
                item = msgspec.Raw(lean_raw(item))
            out.append(item)
        return out

    def new_row(events: list[msgspec.Raw], base: dict[str, Any] | None) -> dict[str, Any]:
        row: dict[str, Any] = dict(base) if base else {"id": "boundary-1"}
        row["name"] = BOUNDARY_ROW_NAME
        row["description"] = LEAN_DESCRIPTION if out_mode == "lean" else FULL_DESCRIPTION
        row["preferredOperation"] = "translate"
        row["data"] = events
        meta: dict[str, Any] = {}
        if base and "meta" in base and _kind(base["meta"]) == b"{":
            meta = dict(_RAW_DICT.decode(base["meta"]))
        meta["mode"] = out_mode
        row["meta"] = meta
        if base is None:
            row = {
                k: row[k]
                for k in ("id", "name", "description", "preferredOperation", "data", "meta")
            }
        return row

    # ---- snapshot and its boundary row
    snapshot: dict[str, Any] | None = None
    if "snapshot" in rec_parts and _kind(rec_parts["snapshot"]) == b"{":
        snap_raw = _RAW_DICT.decode(rec_parts["snapshot"])
        snapshot = {}
        for key, value in snap_raw.items():
            snapshot[key] = value if key == "recorders" else _summ_raw(value, keep)
        rows_raw = snap_raw.get("recorders")
        if rows_raw is not None and _kind(rows_raw) == b"[":
            rows: list[Any] = []
            done = False
            for r in _RAW_LIST.decode(rows_raw):
                if _kind(r) != b"{":
                    rows.append(r)
                    continue
                row = _RAW_DICT.decode(r)
                is_b = not done and "name" in row and bytes(row["name"]) == b'"BoundaryEvents"'
                if is_b and "data" in row and _kind(row["data"]) == b"[":
                    rows.append(new_row(project_events(row["data"]), row))
                    done = True
                else:
                    rows.append(_summ_raw(r, keep))
                    done = done or is_b
            if row_source is not None and not done:
                rows.insert(0, new_row(project_events(row_source), None))
            snapshot["recorders"] = rows
        elif row_source is not None:
            snapshot["recorders"] = [new_row(project_events(row_source), None)]
    elif row_source is not None and _kind(row_source) == b"[":
        snapshot = {"recorders": [new_row(project_events(row_source), None)]}
    elif "snapshot" in rec_parts:
        snapshot = None
        notes.append(("snapshot-unreadable", "the input snapshot is not an object; dropped"))

    # ---- typed events: cap and summarise
    typed_in = typed_out = dropped_now = 0
    events_out: list[msgspec.Raw] | None = None
    if "events" in rec_parts and _kind(rec_parts["events"]) == b"[" and shape != "trace":
        items = [i for i in _RAW_LIST.decode(rec_parts["events"]) if _kind(i) != b"n"]
        typed_in = len(items)
        cap = normalize_cap(max_events)
        if len(items) > cap:
            dropped_now = len(items) - cap
            items = items[dropped_now:]
        events_out = [_summ_raw(i, keep) for i in items]
        typed_out = len(events_out)

    recording: dict[str, Any] = {}
    if snapshot is not None:
        recording["snapshot"] = snapshot
    if events_out is not None:
        recording["events"] = events_out
    for key in ("structure", "blueprint"):
        if key in rec_parts:
            recording["structure"] = rec_parts[key]
            break
    for key in ("controlDeps", "quality"):  # agentbisect extensions ride along
        if key in rec_parts:
            recording[key] = rec_parts[key]

    # ---- drop accounting and the output shape
    prior_dropped: int | None = None
    prior_first: int | None = None
    if envelope is not None and loaded.envelope_run is not None:
        run = loaded.envelope_run
        prior_dropped = run.droppedEvents if _num(run.droppedEvents) else None
        prior_first = run.firstRetainedEventIndex if _num(run.firstRetainedEventIndex) else None
    dropped_total = (prior_dropped + dropped_now) if prior_dropped is not None else None
    first_retained = (prior_first + dropped_now) if prior_first is not None else None
    if envelope is not None:
        env = dict(envelope)
        run_obj = (
            dict(_RAW_DICT.decode(envelope["run"]))
            if "run" in envelope and _kind(envelope["run"]) == b"{"
            else {}
        )
        if dropped_now:
            run_obj["droppedEvents"] = msgspec.Raw(_ENCODER.encode(dropped_total or dropped_now))
            if first_retained is not None:
                run_obj["firstRetainedEventIndex"] = msgspec.Raw(_ENCODER.encode(first_retained))
            run_obj.pop("startedAt", None)  # the first retained event is not the start
            env["run"] = run_obj
        env["recording"] = recording
        doc: Any = env
        shape_out = "envelope"
    elif dropped_now:
        domain = [
            {"type": e.type, "ts": getattr(e, "ts", None)}
            for e in (loaded.domain.events if loaded.domain else [])
        ]
        ids = typed_run_ids(
            [
                {"meta": {"runId": getattr(e.meta, "runId", None)}}
                for e in loaded.typed_events()
                if not isinstance(e.meta, type(msgspec.UNSET))
            ]
        )
        if len(ids) > 1:
            notes.append(
                (
                    "multiple-runs",
                    "typed events span several runs (" + ", ".join(ids[:4]) + "); the envelope "
                    "states the last one, which the boundary row and snapshot describe",
                )
            )
        doc = build_envelope(
            recording,
            domain_events=domain,
            dropped_events=dropped_now,
            # The input's own earlier drops are unknown, so the index is "not proven": absent.
            first_retained_event_index=None,
            run_id=ids[-1] if ids else None,
            complete=stream_complete(domain),
            typed_events=[],
        )
        shape_out = "envelope"
        dropped_total = None
        notes.append(
            (
                "drops-unproven",
                "the input was a bare recording, which cannot say whether it had already lost "
                "events: droppedEvents counts only this cut and firstRetainedEventIndex is absent",
            )
        )
    else:
        doc = recording
        shape_out = "recording"
        if shape != "envelope" and shape in ("recording", "snapshot", "trace", "boundary-row"):
            dropped_total = None
    return Conversion(
        data=_ENCODER.encode(doc),
        shape_in=loaded.shape_name,
        shape_out=shape_out,
        detail=out_mode,
        typed_in=typed_in,
        typed_out=typed_out,
        dropped_now=dropped_now,
        dropped_total=dropped_total,
        first_retained=first_retained,
        notes=notes,
    )
