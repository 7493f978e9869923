"""Open a recording (path, ``-`` or gzip), tell which shape it is, and decode it into typed parts.

Every failure to read becomes an ``InputError`` naming the file, the JSON path and what was
expected. Problems that only limit what can be said (an unreadable boundary row, holes in an event
array, unknown event types) do not fail the load: they become warnings on the result.
"""

from __future__ import annotations

import gzip
import os
import sys
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Raw, UnsetType

from agentbisect.errors import InputError
from agentbisect.schema.events import KNOWN_TYPES, DomainEvent, KnownEvent, OtherEvent
from agentbisect.schema.recording import (
    BOUNDARY_ROW_NAME,
    ENVELOPE_FORMAT,
    EnvelopeRun,
    RecorderRow,
    Snapshot,
    TopLevel,
    TypedEvent,
)

# Real long runs nest the execution tree > 2,000 levels deep. msgspec recurses (even to skip a
# Raw value), so decoding runs in a thread with a large stack and a raised recursion limit.
MAX_DEPTH = 100_000
_STACK_BYTES = 512 * 1024 * 1024

T = TypeVar("T")

SHAPES = {
    "envelope": "A: envelope (agentfootprint.recording.v1)",
    "recording": "B: recording {snapshot, events, structure}",
    "trace": "C: trace (domain events)",
    "snapshot": "D: bare snapshot",
    "boundary-row": "E: bare boundary row",
}


class _TopLevelFast(TopLevel, kw_only=True):
    snapshot: Snapshot | UnsetType = UNSET  # type: ignore[assignment]


_TOP_FAST = msgspec.json.Decoder(_TopLevelFast)


def run_deep(fn: Callable[..., T], *args: Any) -> T:
    """Call ``fn(*args)`` where deeply nested JSON can be decoded, re-raising what it raises."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    if sys.getrecursionlimit() < MAX_DEPTH:
        sys.setrecursionlimit(MAX_DEPTH)
    old = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        worker = threading.Thread(target=target, name="afp-decode", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old)
    while worker.is_alive():
        worker.join(0.25)  # short waits keep Ctrl-C responsive
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


class HonestyFlag(msgspec.Struct):
    """A limit of the evidence: a stable kebab-case name and a sentence saying what it means.

    The loader raises the first ones (unreadable parts, holes, unknown types); ``Run`` adds those
    only the analyses can see. Both are the same object, so every renderer shows them alike.
    """

    flag: str
    note: str


@dataclass
class DomainEvents:
    """A decoded domain-event array and what was skipped on the way."""

    events: list[DomainEvent]
    raw: Raw
    null_holes: int = 0
    non_objects: int = 0
    unknown_types: int = 0
    malformed: int = 0
    _raws: list[Raw] | None = None

    def raws(self) -> list[Raw]:
        """The kept items' exact JSON bytes (for pass-through output), aligned with ``events``."""
        if self._raws is None:
            items = msgspec.json.decode(self.raw, type=list[Raw])
            self._raws = [r for r in items if _is_object(r)]
        return self._raws


@dataclass
class Loaded:
    """A decoded input file: which shape it was and its parts, still mostly undecoded."""

    file: str
    shape: str
    compressed: bool
    size: int
    snapshot: Snapshot | None = None
    typed_events_raw: Raw | None = None
    structure: Raw | None = None
    envelope_format: str | None = None
    envelope_run: EnvelopeRun | None = None
    producer: Any = None
    trace_redaction: Any = None
    trace_summary: Raw | None = None
    boundary_row: RecorderRow | None = None
    boundary_rows_ignored: list[str] = field(default_factory=list)
    domain_source: str | None = None  # where domain events came from, None when absent
    domain: DomainEvents | None = None
    mode: str = "full"
    mode_source: str = "assumed"
    control_deps_raw: Raw | None = None
    quality_raw: Raw | None = None
    warnings: list[HonestyFlag] = field(default_factory=list)
    _typed: list[TypedEvent] | None = None

    @property
    def shape_name(self) -> str:
        return SHAPES.get(self.shape, self.shape)

    def warn(self, flag: str, note: str) -> None:
        self.warnings.append(HonestyFlag(flag, note))

    def typed_events(self) -> list[TypedEvent]:
        """The typed event stream (recording.md §1.6), decoded on first use."""
        if self._typed is None:
            self._typed = (
                []
                if self.typed_events_raw is None
                else run_deep(_decode_typed, self, self.typed_events_raw)
            )
        return self._typed

    def commit_log_raw(self) -> Raw | None:
        snap = self.snapshot
        if snap is None or snap.commitLog is UNSET:
            return None
        return snap.commitLog  # type: ignore[return-value]

    def commit_log_empty(self) -> bool:
        raw = self.commit_log_raw()
        if raw is None or _raw_kind(raw) == b"n":
            return True
        return len(raw) < 64 and bytes(raw).replace(b" ", b"").strip() == b"[]"


# --------------------------------------------------------------------------- reading bytes


def read_input(
    path: str, what: str = "a JSON recording", *, allow_empty: bool = False
) -> tuple[str, bytes, bool]:
    """Return ``(display name, decompressed bytes, was_gzip)``; ``-`` reads stdin.

    Shared by every command that reads a file, so that a missing, unreadable, empty or
    corrupt-gzip input gets the same one-line error everywhere; ``what`` names what was expected.
    """
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            if os.path.isdir(path):
                raise InputError(name, f"is a directory, expected {what}")
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except PermissionError:
        raise InputError(name, "cannot read the file (permission denied)") from None
    except IsADirectoryError:
        raise InputError(name, f"is a directory, expected {what}") from None
    except OSError as exc:
        raise InputError(name, f"cannot read the file ({exc.strerror or exc})") from None
    compressed = data[:2] == GZIP_MAGIC  # by magic bytes, not by extension
    if compressed:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, f"gzip data is corrupt or truncated ({exc})") from None
    # isspace() scans without copying (strip() would copy a whole large file ending in "\n").
    if not allow_empty and (not data or data.isspace()):
        raise InputError(name, f"file is empty, expected {what}")
    return name, data, compressed


GZIP_MAGIC = b"\x1f\x8b"


def _decode_error(name: str, exc: msgspec.MsgspecError, base: str = "$") -> InputError:
    msg = str(exc)
    if isinstance(exc, msgspec.ValidationError) and " - at `" in msg:
        what, _, where = msg.rpartition(" - at `")
        where = where.rstrip("`")
        path = base + where[1:] if where.startswith("$") else base
        return InputError(name, f"expected {_expected(what)}", path)
    if isinstance(exc, msgspec.ValidationError):
        return InputError(name, f"expected {_expected(msg)}", base)
    if "truncated" in msg:
        return InputError(name, "JSON ends early (truncated or half-written file)", base)
    return InputError(name, f"not valid JSON ({msg})", base)


def _expected(msgspec_message: str) -> str:
    # "Expected `array`, got `str`" -> "array, got str"
    text = msgspec_message.replace("`", "")
    return text[len("Expected ") :] if text.startswith("Expected ") else text


def _decode(name: str, data: bytes | Raw, typ: Any, base: str) -> Any:
    try:
        return msgspec.json.decode(data, type=typ)
    except RecursionError:
        raise InputError(name, f"JSON nests deeper than {MAX_DEPTH} levels", base) from None
    except msgspec.MsgspecError as exc:
        raise _decode_error(name, exc, base) from None


def _is_object(raw: Raw) -> bool:
    return _raw_kind(raw) == b"{"


# --------------------------------------------------------------------------- shapes


def load(path: str) -> Loaded:
    """Read and decode ``path`` (or ``-``); raise ``InputError`` if it is not a recording."""
    name, data, compressed = read_input(path)
    from agentbisect.importers.detect import convert  # traces and transcripts → a recording

    imported = convert(name, data)
    if imported is None:
        return run_deep(_load_bytes, name, data, compressed)
    loaded = run_deep(_load_bytes, name, imported[0], compressed)
    loaded.warnings.extend(HonestyFlag(f, n) for f, n in imported[1].flags)
    return loaded


def load_bytes(data: bytes, name: str = "<bytes>") -> Loaded:
    """Decode an in-memory recording (already decompressed)."""
    return run_deep(_load_bytes, name, data, False)


def _load_bytes(name: str, data: bytes, compressed: bool) -> Loaded:
    head = _raw_kind(data)
    if head == b"[":
        loaded = Loaded(name, "boundary-row", compressed, len(data))
        _set_domain(loaded, data, "$", "array")
        dom = loaded.domain
        if (
            dom is not None
            and (dom.events or dom.non_objects)
            and not any(e.known for e in dom.events)
        ):
            raise InputError(name, "expected an array of domain events (items with a known type)")
        return loaded
    if head != b"{":
        try:
            msgspec.json.decode(data)
        except msgspec.MsgspecError as exc:
            raise _decode_error(name, exc) from None
        except RecursionError:
            raise InputError(name, f"JSON nests deeper than {MAX_DEPTH} levels") from None
        raise InputError(name, "expected a JSON object (a recording) or an array of domain events")
    try:
        # Fast path: decode the snapshot's skeleton in the same pass (the usual recording).
        top: TopLevel = _TOP_FAST.decode(data)
    except RecursionError:
        raise InputError(name, f"JSON nests deeper than {MAX_DEPTH} levels", "$") from None
    except msgspec.MsgspecError:
        # Anything unusual: the careful path, which reports or degrades part by part.
        top = _decode(name, data, TopLevel, "$")
    return _from_top(name, top, data, compressed, len(data), "$")


def _from_top(
    name: str, top: TopLevel, data: bytes | Raw, compressed: bool, size: int, base: str
) -> Loaded:
    if top.format is not UNSET:
        return _envelope(name, top, compressed, size, base)
    if top.version is not UNSET and top.redaction is not UNSET and top.events is not UNSET:
        return _trace(name, top, compressed, size, base)
    if any(x is not UNSET for x in (top.snapshot, top.events, top.structure, top.blueprint)):
        return _recording(name, top, compressed, size, base)
    if top.commitLog is not UNSET:
        loaded = Loaded(name, "snapshot", compressed, size)
        loaded.snapshot = _snapshot(loaded, data, base)  # type: ignore[arg-type]
        _set_boundary_from_snapshot(loaded, base)
        _extensions(loaded, top)
        return loaded
    if top.name == BOUNDARY_ROW_NAME and top.data is not UNSET:
        loaded = Loaded(name, "boundary-row", compressed, size)
        row = RecorderRow(name=top.name, data=top.data)
        loaded.boundary_row = row
        _set_domain(loaded, top.data, f"{base}.data", "boundary-row")  # type: ignore[arg-type]
        return loaded
    raise InputError(
        name,
        "expected a recording: an envelope, {snapshot, events, structure}, a trace, "
        "a snapshot with commitLog, or a BoundaryEvents row",
        base,
    )


def _envelope(name: str, top: TopLevel, compressed: bool, size: int, base: str) -> Loaded:
    if top.format != ENVELOPE_FORMAT:
        raise InputError(
            name,
            f"unknown envelope format {top.format!r}; this afp reads {ENVELOPE_FORMAT!r}",
            f"{base}.format",
        )
    if top.recording is UNSET:
        raise InputError(name, "envelope has no recording", f"{base}.recording")
    if _raw_kind(top.recording) != b"{":  # type: ignore[arg-type]
        raise InputError(name, "expected an object", f"{base}.recording")
    inner: TopLevel = _decode(name, top.recording, TopLevel, f"{base}.recording")
    loaded = _recording(name, inner, compressed, size, f"{base}.recording")
    loaded.shape = "envelope"
    loaded.envelope_format = top.format
    if top.run is not UNSET:
        loaded.envelope_run = _decode(name, top.run, EnvelopeRun, f"{base}.run")
    if top.producer is not UNSET:
        loaded.producer = _decode(name, top.producer, Any, f"{base}.producer")
    _extensions(loaded, top)
    return loaded


def _trace(name: str, top: TopLevel, compressed: bool, size: int, base: str) -> Loaded:
    loaded = Loaded(name, "trace", compressed, size)
    loaded.trace_redaction = top.redaction
    if top.summary is not UNSET:
        loaded.trace_summary = top.summary  # type: ignore[assignment]
    if top.structure is not UNSET:
        loaded.structure = top.structure  # type: ignore[assignment]
    if top.snapshot is not UNSET:
        loaded.snapshot = _snapshot(loaded, top.snapshot, f"{base}.snapshot")  # type: ignore[arg-type]
    _set_domain(loaded, top.events, f"{base}.events", "trace")  # type: ignore[arg-type]
    if top.redaction not in (None, "none"):
        loaded.warn(
            "redacted",
            f"the trace was written with redaction {top.redaction!r}: content fields hold markers",
        )
    _extensions(loaded, top)
    return loaded


def _recording(name: str, top: TopLevel, compressed: bool, size: int, base: str) -> Loaded:
    loaded = Loaded(name, "recording", compressed, size)
    if top.snapshot is not UNSET:
        loaded.snapshot = _snapshot(loaded, top.snapshot, f"{base}.snapshot")  # type: ignore[arg-type]
    if top.events is not UNSET:
        if _raw_kind(top.events) == b"[":  # type: ignore[arg-type]
            loaded.typed_events_raw = top.events  # type: ignore[assignment]
        else:
            loaded.warn(
                "events-unreadable",
                f"{base}.events is not an array: the typed event stream is unreadable, not absent",
            )
    structure = top.structure if top.structure is not UNSET else top.blueprint
    if structure is not UNSET:
        loaded.structure = structure  # type: ignore[assignment]
    else:
        loaded.warn("structure-absent", "the recording has no structure (chart)")
    if loaded.snapshot is not None:
        _set_boundary_from_snapshot(loaded, f"{base}.snapshot")
    else:
        loaded.warn("snapshot-absent", "the recording has no snapshot: no commit log")
        loaded.warn(
            "boundaries-absent",
            "no BoundaryEvents row: no run/subflow boundaries, boundary index or step strip",
        )
    _extensions(loaded, top)
    return loaded


def _raw_kind(raw: Raw | bytes) -> bytes:
    """The first byte of a raw JSON value (its kind), without copying the value."""
    view = memoryview(raw)
    head = view[:64].tobytes().lstrip()
    return head[:1] if head else bytes(view).lstrip()[:1]


def _snapshot(loaded: Loaded, raw: Raw | Snapshot, path: str) -> Snapshot | None:
    if isinstance(raw, Snapshot):
        snap = raw
    elif _raw_kind(raw) != b"{":
        loaded.warn("snapshot-unreadable", f"{path} is not an object: unreadable, not absent")
        return None
    else:
        snap = _decode(loaded.file, raw, Snapshot, path)
    if snap.commitLog is not UNSET and _raw_kind(snap.commitLog) not in (b"[", b"n"):  # type: ignore[arg-type]
        loaded.warn("commit-log-unreadable", f"{path}.commitLog is not an array: unreadable")
        snap.commitLog = UNSET
    return snap


def _extensions(loaded: Loaded, top: TopLevel) -> None:
    if top.controlDeps is not UNSET:
        loaded.control_deps_raw = top.controlDeps  # type: ignore[assignment]
    if top.quality is not UNSET:
        loaded.quality_raw = top.quality  # type: ignore[assignment]


def _set_boundary_from_snapshot(loaded: Loaded, base: str) -> None:
    snap = loaded.snapshot
    rows = [] if snap is None or snap.recorders is UNSET else snap.recorders
    chosen: int | None = None
    for i, row in enumerate(rows):  # type: ignore[arg-type]
        if row.name == BOUNDARY_ROW_NAME:
            if chosen is None:
                chosen = i
            else:
                loaded.boundary_rows_ignored.append(str(row.id))
    if loaded.boundary_rows_ignored:
        loaded.warn(
            "duplicate-boundary-rows",
            "more than one BoundaryEvents row; using the first, ignoring "
            + ", ".join(loaded.boundary_rows_ignored),
        )
    if chosen is None:
        loaded.warn(
            "boundaries-absent",
            "no BoundaryEvents row: no domain events, boundary index or step strip",
        )
        return
    row = rows[chosen]  # type: ignore[index]
    loaded.boundary_row = row
    _resolve_mode(loaded, row)
    path = f"{base}.recorders[{chosen}].data"
    if row.data is UNSET or _raw_kind(row.data) != b"[":  # type: ignore[arg-type]
        loaded.warn(
            "boundaries-unreadable",
            f"{path} is not an array: the boundary events are unreadable, not absent",
        )
        return
    _set_domain(loaded, row.data, path, "boundary-row")  # type: ignore[arg-type]


def _resolve_mode(loaded: Loaded, row: RecorderRow) -> None:
    meta = row.meta
    if isinstance(meta, dict) and isinstance(meta.get("mode"), str):
        loaded.mode, loaded.mode_source = meta["mode"], "meta"
    elif isinstance(row.description, str) and "lean" in row.description:
        loaded.mode, loaded.mode_source = "lean", "description"
    else:
        loaded.mode, loaded.mode_source = "full", "assumed"


# --------------------------------------------------------------------------- event arrays

_FAST = msgspec.json.Decoder(list[KnownEvent | None])
_ONE = msgspec.json.Decoder(KnownEvent)


class _Head(msgspec.Struct):
    type: Any = UNSET
    runtimeStageId: Any = UNSET
    commitIdxBefore: Any = UNSET


_HEAD = msgspec.json.Decoder(_Head)


def decode_domain_events(name: str, raw: Raw | bytes, path: str) -> DomainEvents:
    """Decode a domain-event array; unknown or malformed items are kept as ``OtherEvent``."""
    raw = raw if isinstance(raw, Raw) else Raw(raw)
    try:
        items = _FAST.decode(raw)
        events: list[DomainEvent] = [e for e in items if e is not None]
        return DomainEvents(events, raw, null_holes=len(items) - len(events))
    except msgspec.ValidationError:
        pass  # something unusual inside: take the careful per-item path
    except msgspec.DecodeError as exc:
        raise _decode_error(name, exc, path) from None
    result = DomainEvents([], raw)
    items_raw: list[Raw] = _decode(name, raw, list[Raw], path)
    kept: list[Raw] = []
    for i, item in enumerate(items_raw):
        kind = _raw_kind(item)
        if kind == b"n":
            result.null_holes += 1
            continue
        if kind != b"{":
            result.non_objects += 1
            continue
        kept.append(item)
        try:
            result.events.append(_ONE.decode(item))
            continue
        except msgspec.ValidationError as exc:
            problem = str(exc).replace("$", f"{path}[{i}]")
        head = _HEAD.decode(item)
        typ = head.type if isinstance(head.type, str) else ""
        if typ in KNOWN_TYPES:
            result.malformed += 1
        else:
            result.unknown_types += 1
            problem = "" if typ else f"{path}[{i}] has no string type"
            if not typ:
                result.unknown_types -= 1
                result.malformed += 1
        result.events.append(
            OtherEvent(
                type=typ,
                problem=problem,
                runtimeStageId=head.runtimeStageId,
                commitIdxBefore=head.commitIdxBefore,
            )
        )
    result._raws = kept
    return result


def _set_domain(loaded: Loaded, raw: Raw | bytes, path: str, source: str) -> None:
    dom = decode_domain_events(loaded.file, raw, path)
    loaded.domain = dom
    loaded.domain_source = source
    if dom.null_holes:
        loaded.warn("null-holes", f"{dom.null_holes} null item(s) in {path} were skipped")
    if dom.non_objects:
        loaded.warn("non-object-events", f"{dom.non_objects} non-object item(s) in {path} skipped")
    if dom.unknown_types:
        loaded.warn(
            "unknown-event-types",
            f"{dom.unknown_types} event(s) of types this afp does not know (newer producer?): "
            "kept in the event stream, ignored by the index, step graph and rollups",
        )
    if dom.malformed:
        loaded.warn(
            "malformed-events",
            f"{dom.malformed} event(s) of known types could not be read and were ignored "
            "by the analyses",
        )


_TYPED_FAST = msgspec.json.Decoder(list[TypedEvent | None])
_TYPED_ONE = msgspec.json.Decoder(TypedEvent)


def _decode_typed(loaded: Loaded, raw: Raw) -> list[TypedEvent]:
    try:
        items = _TYPED_FAST.decode(raw)
        out = [e for e in items if e is not None]
        holes = len(items) - len(out)
        bad = 0
    except msgspec.ValidationError:
        out, holes, bad = [], 0, 0
        for item in _decode(loaded.file, raw, list[Raw], "$.events"):
            if _raw_kind(item) == b"n":
                holes += 1
                continue
            try:
                out.append(_TYPED_ONE.decode(item))
            except msgspec.ValidationError:
                bad += 1
    except msgspec.DecodeError as exc:
        raise _decode_error(loaded.file, exc, "$.events") from None
    if holes:
        loaded.warn("null-holes", f"{holes} null item(s) in the typed events were skipped")
    if bad:
        loaded.warn("malformed-typed-events", f"{bad} typed event(s) could not be read; skipped")
    return out
