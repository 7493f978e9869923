"""The recording importer: the five shapes agentfootprint writes (recording.md §1), and their
re-projection into a canonical recording for ``afp record``.

A: the ``agentfootprint.recording.v1`` envelope; B: ``{snapshot, events, structure}``; C: a trace
(domain events); D: a bare snapshot; E: a bare BoundaryEvents row (object or array). Every decode
failure becomes an ``InputError`` naming file, JSON path and what was expected; parts that only
limit what can be said become honesty flags on the ``Loaded``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Raw

from agentbisect.core.deep import MAX_DEPTH, run_deep
from agentbisect.core.errors import InputError
from agentbisect.core.honesty import HonestyFlag, flag
from agentbisect.core.js import is_num
from agentbisect.importers import toplevel
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail
from agentbisect.model.loaded import (
    Loaded,
    _decode,
    _decode_error,
    raw_kind,
    refuse_unknown_array,
)
from agentbisect.schema.recording import (
    BOUNDARY_ROW_NAME,
    ENVELOPE_FORMAT,
    EnvelopeRun,
    RecorderRow,
    Snapshot,
    TopLevel,
)

NAME = "recording"
LABEL = "recording (agentfootprint shapes A–E)"

SHAPES = {
    "envelope": "A: envelope (agentfootprint.recording.v1)",
    "recording": "B: recording {snapshot, events, structure}",
    "trace": "C: trace (domain events)",
    "snapshot": "D: bare snapshot",
    "boundary-row": "E: bare boundary row",
}


def sniff(data: bytes) -> bool:
    """Any JSON object or array: the fallback format, tried last."""
    return raw_kind(data) in (b"{", b"[")


def load(name: str, data: bytes, compressed: bool) -> Loaded:
    """Decode a recording of any shape (the loader calls this directly: no conversion)."""
    return run_deep(load_shapes, name, data, compressed)


def load_shapes(name: str, data: bytes, compressed: bool) -> Loaded:
    head = raw_kind(data)
    if head == b"[":
        refuse_unknown_array(name, data)  # before the decode builds all of it
        loaded = Loaded(name, "boundary-row", compressed, len(data))
        loaded.defer_domain(data, "$", "array")
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
    # Fast path: the snapshot's skeleton decoded in the same pass (the usual recording), shared
    # with the sniffs that already asked about these bytes.
    parsed = toplevel.parse(data)
    if isinstance(parsed.error, RecursionError):
        raise InputError(name, f"JSON nests deeper than {MAX_DEPTH} levels", "$")
    # Anything unusual: the careful path, which reports or degrades part by part.
    top: TopLevel = parsed.top if parsed.top is not None else _decode(name, data, TopLevel, "$")
    return _from_top(name, top, data, compressed, len(data), "$")


def load_doc(name: str, doc: dict[str, Any], compressed: bool) -> Loaded:
    """The ``Loaded`` of a recording an importer built in memory (``Conversion.doc``): what
    ``load`` gives for its bytes (``afp record`` writes them), without encoding it. Values the
    loader keeps as JSON are taken as they are when they already are JSON (the recorder's long
    arrays), else encoded one by one (small ones); the rest is decoded as from the bytes."""
    return run_deep(_from_top, name, _struct_of(TopLevel, doc), b"", compressed, 0, "$")


_NESTED: dict[str, type] = {"recording": TopLevel, "snapshot": Snapshot}


def _struct_of(cls: type, doc: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    for f in msgspec.structs.fields(cls):
        if f.encode_name not in doc:
            continue
        value = doc[f.encode_name]
        nested = _NESTED.get(f.name)
        if nested is not None and isinstance(value, dict):
            value = _struct_of(nested, value)
        elif f.name == "recorders" and isinstance(value, list):
            value = [_struct_of(RecorderRow, r) if isinstance(r, dict) else r for r in value]
            if not all(isinstance(r, RecorderRow) for r in value):
                value = msgspec.json.decode(_ENCODER.encode(value), type=f.type)
        elif not (isinstance(value, Raw) and _takes_raw(f.type)):
            value = msgspec.json.decode(_ENCODER.encode(value), type=f.type)
        kwargs[f.name] = value
    return cls(**kwargs)


def _takes_raw(tp: Any) -> bool:
    return tp is Raw or Raw in getattr(tp, "__args__", ())


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
        loaded.defer_domain(top.data, f"{base}.data", "boundary-row")
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
    inner: TopLevel
    if isinstance(top.recording, TopLevel):
        inner = top.recording  # the fast path decoded it with the envelope
    elif raw_kind(top.recording) != b"{":
        raise InputError(name, "expected an object", f"{base}.recording")
    else:
        inner = _decode(name, top.recording, TopLevel, f"{base}.recording")
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
    if top.structure is not UNSET:
        loaded.structure = top.structure
    if top.snapshot is not UNSET:
        loaded.snapshot = _snapshot(loaded, top.snapshot, f"{base}.snapshot")
    loaded.defer_domain(top.events, f"{base}.events", "trace")  # type: ignore[arg-type]
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
        loaded.snapshot = _snapshot(loaded, top.snapshot, f"{base}.snapshot")
    if top.events is not UNSET:
        if raw_kind(top.events) == b"[":
            loaded.typed_events_raw = top.events
        else:
            loaded.warn(
                "events-unreadable",
                f"{base}.events is not an array: the typed event stream is unreadable, not absent",
            )
    structure = top.structure if top.structure is not UNSET else top.blueprint
    if structure is not UNSET:
        loaded.structure = structure
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


def _snapshot(loaded: Loaded, raw: Raw | Snapshot, path: str) -> Snapshot | None:
    if isinstance(raw, Snapshot):
        snap = raw
    elif raw_kind(raw) != b"{":
        loaded.warn("snapshot-unreadable", f"{path} is not an object: unreadable, not absent")
        return None
    else:
        snap = _decode(loaded.file, raw, Snapshot, path)
    if snap.commitLog is not UNSET and raw_kind(snap.commitLog) not in (b"[", b"n"):
        loaded.warn("commit-log-unreadable", f"{path}.commitLog is not an array: unreadable")
        snap.commitLog = UNSET
    return snap


def _extensions(loaded: Loaded, top: TopLevel) -> None:
    if top.controlDeps is not UNSET:
        loaded.control_deps_raw = top.controlDeps
    if top.quality is not UNSET:
        loaded.quality_raw = top.quality
    if top.imported is not UNSET:
        loaded.import_raw = top.imported


def _set_boundary_from_snapshot(loaded: Loaded, base: str) -> None:
    snap = loaded.snapshot
    rows = [] if snap is None or snap.recorders is UNSET else snap.recorders
    chosen: int | None = None
    for i, row in enumerate(rows):
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
    row = rows[chosen]
    loaded.boundary_row = row
    _resolve_mode(loaded, row)
    path = f"{base}.recorders[{chosen}].data"
    if row.data is UNSET or raw_kind(row.data) != b"[":
        loaded.warn(
            "boundaries-unreadable",
            f"{path} is not an array: the boundary events are unreadable, not absent",
        )
        return
    loaded.defer_domain(row.data, path, "boundary-row")  # decoded when first read


def _resolve_mode(loaded: Loaded, row: RecorderRow) -> None:
    meta = row.meta
    if isinstance(meta, dict) and isinstance(meta.get("mode"), str):
        loaded.mode, loaded.mode_source = meta["mode"], "meta"
    elif isinstance(row.description, str) and "lean" in row.description:
        loaded.mode, loaded.mode_source = "lean", "description"
    else:
        loaded.mode, loaded.mode_source = "full", "assumed"


# --------------------------------------------------------------------------- re-projection

_ENCODER = msgspec.json.Encoder()
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])


def _summ_raw(raw: msgspec.Raw, keep: bool) -> msgspec.Raw:
    """Summarise embeddings inside one JSON value, keeping the bytes when nothing changes."""
    from agentbisect.model.boundary.embeddings import EMBEDDING_MARKER, summarize_embeddings

    if keep or EMBEDDING_MARKER not in bytes(raw):
        return raw
    value = msgspec.json.decode(raw)
    new = summarize_embeddings(value)
    return raw if new is value else msgspec.Raw(_ENCODER.encode(new))


def convert(
    name: str,
    data: bytes,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Conversion:
    """Re-project a recording afp reads (shapes A–E) into shape B, or A to carry drops.

    Which shape it is comes from the loader's detection (``Loaded.shape``); only the raw parts
    are decoded again here, to pass them through byte for byte.
    """
    loaded = run_deep(load_shapes, name, data, False)
    return run_deep(_reproject, loaded, data, detail, keep_embeddings, max_events)


def _reproject(
    loaded: Loaded, data: bytes, detail: Detail, keep: bool, max_events: object
) -> Conversion:
    # Only `afp record` re-projects: the other commands read recordings without importing the
    # recorder, envelope writer and file writer (7 modules and gzip, ~1.5 ms of every start).
    from agentbisect.model.boundary.lean import lean_raw
    from agentbisect.model.boundary.recorder import FULL_DESCRIPTION, LEAN_DESCRIPTION
    from agentbisect.model.envelope import build_envelope, stream_complete, typed_run_ids
    from agentbisect.model.record import normalize_cap

    notes: list[HonestyFlag] = []

    def add(name: str, note: str) -> None:
        notes.append(flag(name, note))

    shape = loaded.shape
    top: dict[str, msgspec.Raw] = _RAW_DICT.decode(data) if raw_kind(data) == b"{" else {}
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
            add(
                "redacted",
                f"the input trace was redacted ({loaded.trace_redaction!r}); the output "
                "still holds its markers but no longer says so",
            )
    elif shape == "snapshot":
        rec_parts = {"snapshot": msgspec.Raw(data)}
    else:  # bare boundary row (object or array)
        rec_parts = {}
        row_source = top.get("data") if top else msgspec.Raw(data)

    input_mode = loaded.mode if loaded.boundary_row is not None else "full"
    out_mode: Detail = detail
    if input_mode == "lean" and detail == "full":
        out_mode = "lean"
        add(
            "lean-input",
            "the input boundary row is lean: its content was never captured and cannot be "
            "restored, so the output stays lean",
        )

    def project_events(raw: msgspec.Raw) -> list[msgspec.Raw]:
        out: list[msgspec.Raw] = []
        for item in _RAW_LIST.decode(raw):
            if raw_kind(item) != b"{":
                continue  # null holes and non-objects are not events (the loader warned)
            item = _summ_raw(item, keep)
            if out_mode == "lean":
                item = msgspec.Raw(lean_raw(item))
            out.append(item)
        return out

    def new_row(events: list[msgspec.Raw], base: dict[str, Any] | None) -> dict[str, Any]:
        row: dict[str, Any] = dict(base) if base else {"id": "boundary-1"}
        meta: dict[str, Any] = {}
        if base and "meta" in base and raw_kind(base["meta"]) == b"{":
            meta = dict(_RAW_DICT.decode(base["meta"]))
        row.update(
            name=BOUNDARY_ROW_NAME,
            description=LEAN_DESCRIPTION if out_mode == "lean" else FULL_DESCRIPTION,
            preferredOperation="translate",
            data=events,
            meta={**meta, "mode": out_mode},
        )
        return row

    # ---- snapshot and its boundary row
    snapshot: dict[str, Any] | None = None
    if "snapshot" in rec_parts and raw_kind(rec_parts["snapshot"]) == b"{":
        snap_raw = _RAW_DICT.decode(rec_parts["snapshot"])
        snapshot = {k: v if k == "recorders" else _summ_raw(v, keep) for k, v in snap_raw.items()}
        rows_raw = snap_raw.get("recorders")
        if rows_raw is not None and raw_kind(rows_raw) == b"[":
            rows: list[Any] = []
            done = False
            for r in _RAW_LIST.decode(rows_raw):
                if raw_kind(r) != b"{":
                    rows.append(r)
                    continue
                row = _RAW_DICT.decode(r)
                is_b = not done and "name" in row and bytes(row["name"]) == b'"BoundaryEvents"'
                if is_b and "data" in row and raw_kind(row["data"]) == b"[":
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
    elif row_source is not None and raw_kind(row_source) == b"[":
        snapshot = {"recorders": [new_row(project_events(row_source), None)]}
    elif "snapshot" in rec_parts:
        add("snapshot-unreadable", "the input snapshot is not an object; dropped")

    # ---- typed events: cap and summarise
    typed_in = typed_out = dropped_now = 0
    events_out: list[msgspec.Raw] | None = None
    if "events" in rec_parts and raw_kind(rec_parts["events"]) == b"[" and shape != "trace":
        items = [i for i in _RAW_LIST.decode(rec_parts["events"]) if raw_kind(i) != b"n"]
        typed_in = len(items)
        dropped_now = max(0, len(items) - normalize_cap(max_events))
        events_out = [_summ_raw(i, keep) for i in items[dropped_now:]]
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

    # ---- drop accounting and the output shape: only an envelope says what it dropped before
    dropped_total = first_retained = None
    run = loaded.envelope_run if envelope is not None else None
    if run is not None and is_num(run.droppedEvents):
        dropped_total = run.droppedEvents + dropped_now
    if run is not None and is_num(run.firstRetainedEventIndex):
        first_retained = run.firstRetainedEventIndex + dropped_now
    if envelope is not None:
        env: dict[str, Any] = dict(envelope)
        run_obj = (
            dict(_RAW_DICT.decode(envelope["run"]))
            if "run" in envelope and raw_kind(envelope["run"]) == b"{"
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
            add(
                "multiple-runs",
                "typed events span several runs (" + ", ".join(ids[:4]) + "); the envelope "
                "states the last one, which the boundary row and snapshot describe",
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
        add(
            "drops-unproven",
            "the input was a bare recording, which cannot say whether it had already lost "
            "events: droppedEvents counts only this cut and firstRetainedEventIndex is absent",
        )
    else:
        doc = recording
        shape_out = "recording"
    return Conversion(
        data=_ENCODER.encode(doc),
        shape_in=SHAPES[loaded.shape],
        shape_out=shape_out,
        detail=out_mode,
        typed_in=typed_in,
        typed_out=typed_out,
        dropped_now=dropped_now,
        dropped_total=dropped_total,
        first_retained=first_retained,
        notes=notes,
    )
