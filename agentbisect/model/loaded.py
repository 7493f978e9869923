"""``Loaded``: a recording's parts as read, each decoded into typed Structs on first use.

Every failure to read becomes an ``InputError`` naming the file, the JSON path and what was
expected. Problems that only limit what can be said (an unreadable boundary row, holes in an event
array, unknown event types) do not fail the load: they become warnings on the result.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct, field

from agentbisect.core.arrayhead import first_items
from agentbisect.core.deep import MAX_DEPTH, run_deep
from agentbisect.core.errors import InputError
from agentbisect.core.honesty import HonestyFlag, flag
from agentbisect.schema.events import KNOWN_TYPES, DomainEvent, KnownEvent, OtherEvent
from agentbisect.schema.recording import (
    CommitBundle,
    EnvelopeRun,
    RecorderRow,
    Snapshot,
    TreeNode,
    TypedEvent,
)


class DomainEvents(Struct):
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


class Loaded(Struct):
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
    boundary_row: RecorderRow | None = None
    boundary_rows_ignored: list[str] = field(default_factory=list)
    domain_source: str | None = None  # where domain events came from, None when absent
    _domain: DomainEvents | None = None
    mode: str = "full"
    mode_source: str = "assumed"
    control_deps_raw: Raw | None = None
    quality_raw: Raw | None = None
    import_raw: Raw | None = None  # the ``import`` key an importer wrote (traces, transcripts)
    shape_name: str = ""  # how messages name the shape: set by the importer that read it
    _warnings: list[HonestyFlag] = field(default_factory=list)
    _typed: list[TypedEvent] | None = None
    # A domain-event array not decoded yet: (raw, JSON path, where its warnings go).
    _pending: tuple[Raw | bytes, str, int] | None = None

    def warn(self, name: str, note: str) -> None:
        self._warnings.append(flag(name, note))

    @property
    def warnings(self) -> list[HonestyFlag]:
        """The loader's honesty flags, in the order the parts were read."""
        if self._pending is not None:
            self._decode_domain()
        return self._warnings

    @property
    def domain(self) -> DomainEvents | None:
        """The domain events (the boundary row's, a trace's), decoded on first use."""
        if self._pending is not None:
            self._decode_domain()
        return self._domain

    @domain.setter
    def domain(self, value: DomainEvents | None) -> None:
        self._pending = None
        self._domain = value

    def defer_domain(self, raw: Raw | bytes, path: str, source: str) -> None:
        """Take ``raw`` as the domain-event array, decoded when first asked for.

        A command that never reads the events (``afp bisect``: the commit log, the typed events
        and the tree) skips their decoding, ~28 MB of a 30 MB run. The decode's warnings land
        where they would have had it been decoded now, and it cannot fail on a part the loader
        already read as JSON.
        """
        self.domain_source = source
        self._pending = (raw, path, len(self._warnings))

    @property
    def domain_pending(self) -> bool:
        """Whether a domain-event array is waiting to be decoded."""
        return self._pending is not None

    def _decode_domain(self) -> None:
        assert self._pending is not None
        raw, path, at = self._pending
        dom = run_deep(decode_domain_events, self.file, raw, path)
        # Settled only once decoded: an error would be raised again, never read as "no events".
        self._domain = dom
        self._warnings[at:at] = domain_warnings(dom, path)
        self._pending = None

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
        return snap.commitLog

    def commit_log_empty(self) -> bool:
        raw = self.commit_log_raw()
        if raw is None or raw_kind(raw) == b"n":
            return True
        return len(raw) < 64 and bytes(raw).replace(b" ", b"").strip() == b"[]"


# --------------------------------------------------------------------------- reading bytes


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
    return raw_kind(raw) == b"{"


# --------------------------------------------------------------------------- formats


def raw_kind(raw: Raw | bytes) -> bytes:
    """The first byte of a raw JSON value (its kind), without copying the value."""
    view = memoryview(raw)
    head = view[:64].tobytes().lstrip()
    return head[:1] if head else bytes(view).lstrip()[:1]


# --------------------------------------------------------------------------- event arrays

_EVENT_DECODERS: list[tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]]] = []


def _event_decoders() -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]]:
    """The domain-event array and item decoders, built on first use: building them reads the
    annotations of every event Struct (~0.5 ms), and bisect never decodes the domain events."""
    if not _EVENT_DECODERS:
        _EVENT_DECODERS.append(
            (msgspec.json.Decoder(list[KnownEvent | None]), msgspec.json.Decoder(KnownEvent))
        )
    return _EVENT_DECODERS[0]


class _Head(msgspec.Struct):
    type: Any = UNSET
    runtimeStageId: Any = UNSET
    commitIdxBefore: Any = UNSET


_HEAD = msgspec.json.Decoder(_Head)


# How many items open a bare array of domain events, at most, before one has a known type.
PROBE_ITEMS = 1_000


def refuse_unknown_array(name: str, data: bytes) -> None:
    """Refuse a long bare array whose first ``PROBE_ITEMS`` items hold no domain event of a known
    type, from its first bytes: decoding it whole first cost 22 s and 2.2 GB on 10 M ``{}``."""
    items, more = first_items(data, PROBE_ITEMS)
    if not more or len(items) < PROBE_ITEMS:
        return  # short, or long items: the decode judges it, at a cost it is worth
    for item in items:
        try:
            if _HEAD.decode(item).type in KNOWN_TYPES:
                return
        except (msgspec.MsgspecError, TypeError, RecursionError):
            continue  # (not an object, unhashable type, …: not a known event)
    raise InputError(
        name,
        "expected an array of domain events (items with a known type; "
        f"none of the first {PROBE_ITEMS:,} items has one)",
    )


def decode_domain_events(name: str, raw: Raw | bytes, path: str) -> DomainEvents:
    """Decode a domain-event array; unknown or malformed items are kept as ``OtherEvent``."""
    raw = raw if isinstance(raw, Raw) else Raw(raw)
    fast, one = _event_decoders()
    try:
        items = fast.decode(raw)
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
        kind = raw_kind(item)
        if kind == b"n":
            result.null_holes += 1
            continue
        if kind != b"{":
            result.non_objects += 1
            continue
        kept.append(item)
        try:
            result.events.append(one.decode(item))
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


def domain_warnings(dom: DomainEvents, path: str) -> list[HonestyFlag]:
    """What decoding a domain-event array at ``path`` skipped, as honesty flags."""
    out = []
    if dom.null_holes:
        out.append(flag("null-holes", f"{dom.null_holes} null item(s) in {path} were skipped"))
    if dom.non_objects:
        out.append(
            flag("non-object-events", f"{dom.non_objects} non-object item(s) in {path} skipped")
        )
    if dom.unknown_types:
        out.append(
            flag(
                "unknown-event-types",
                f"{dom.unknown_types} event(s) of types this afp does not know (newer producer?): "
                "kept in the event stream, ignored by the index, step graph and rollups",
            )
        )
    if dom.malformed:
        out.append(
            flag(
                "malformed-events",
                f"{dom.malformed} event(s) of known types could not be read and were ignored "
                "by the analyses",
            )
        )
    return out


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
            if raw_kind(item) == b"n":
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


# --------------------------------------------------------------------------- commit log, tree

_LOG = msgspec.json.Decoder(list[CommitBundle] | None)
_TREE = msgspec.json.Decoder(TreeNode)


def decode_commit_log(loaded: Loaded) -> list[CommitBundle]:
    """The snapshot's commit log as typed bundles (values stay raw); [] when there is none."""
    raw = loaded.commit_log_raw()
    if raw is None:
        return []
    try:
        return run_deep(_LOG.decode, raw) or []
    except msgspec.ValidationError as exc:
        raise InputError(loaded.file, f"commit log: {exc}", "$.snapshot.commitLog") from None


_BUNDLES_PER_DECODE = 500


def commit_log_step_ids(loaded: Loaded) -> set[str]:
    """The step ids of the commit log's bundles, as ``decode_commit_log`` would give them, without
    keeping the decoded log: the bundles are decoded a few hundred at a time, each with the type
    the whole decode uses (a 100,000-span trace's whole decode, even let go, lifted the peak by 73 MiB). A
    log the whole decode refuses is refused with its error (it is asked to say why)."""
    raw = loaded.commit_log_raw()
    if raw is None:
        return set()

    items_of = msgspec.json.Decoder(list[Raw] | None)  # (made here: only aggregate asks)
    some = msgspec.json.Decoder(list[CommitBundle]).decode

    def step_ids() -> set[str] | None:
        try:
            items = items_of.decode(raw)
            if items is None:
                return set()
            ids: set[str] = set()
            # A few hundred bundles per decode: one decode per bundle was most of the time,
            # and the whole log at once lifted the peak.
            for at in range(0, len(items), _BUNDLES_PER_DECODE):
                chunk = b",".join(items[at : at + _BUNDLES_PER_DECODE])
                ids.update([b.runtimeStageId for b in some(b"[" + chunk + b"]")])
            return ids
        except (msgspec.MsgspecError, RecursionError):
            return None

    # Deep-stack thread as for the whole decode: a bundle's values may nest deeply.
    ids = run_deep(step_ids)
    if ids is None:  # refused: let the whole decode say why, exactly as it always did
        ids = {b.runtimeStageId for b in decode_commit_log(loaded)}
    return ids


def decode_execution_tree(loaded: Loaded) -> TreeNode | None:
    """The execution tree's read-tracking skeleton, or None when the snapshot has no tree."""
    snap = loaded.snapshot
    if snap is None or not isinstance(snap.executionTree, Raw):
        return None
    if raw_kind(snap.executionTree) != b"{":
        return None
    try:
        return run_deep(_TREE.decode, snap.executionTree)
    except msgspec.ValidationError as exc:
        raise InputError(
            loaded.file, f"execution tree: {exc}", "$.snapshot.executionTree"
        ) from None
