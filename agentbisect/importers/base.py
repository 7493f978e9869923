"""The importer interface: what one input-format module provides, and what conversion returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec
from msgspec import Struct, field

from agentbisect.core.honesty import HonestyFlag
from agentbisect.core.options import LOGS, TRACE_ID

if TYPE_CHECKING:
    from agentbisect.model.record import RunRecording

Detail = Literal["full", "lean"]
DEFAULT_MAX_EVENTS = 10_000  # the recording API's default typed-event cap


class ImportOptions(Struct):
    """Options only some formats take: which trace of several (``TRACE_ID``) and log records
    in other files (``LOGS``) for OpenTelemetry traces. Importers that take none refuse them."""

    trace_id: str | None = None
    logs: list[str] = field(default_factory=list)

    def given(self) -> list[str]:
        """The command-line names of the options that were set."""
        return ([TRACE_ID.flag] if self.trace_id is not None else []) + (
            [LOGS.flag] if self.logs else []
        )


class InputBuffer:
    """The input's bytes, held in one place so that an importer may let them go once read.

    ``load.load`` reads a file and hands its bytes over in one of these, keeping no other
    reference. An importer that reads the whole input into a model of its own (traces: spans)
    declares ``RELEASES_INPUT = True``, receives the buffer instead of ``bytes`` and calls
    ``release()`` once read, so a 150 MB trace is not kept alive while its recording is built.
    Every other importer receives ``data`` as bytes (the buffer keeps them alive meanwhile).
    """

    __slots__ = ("data", "size")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)

    def release(self) -> None:
        """Drop the bytes (``size`` still says how many there were)."""
        self.data = b""


_ENCODER = msgspec.json.Encoder()


class Conversion(msgspec.Struct, kw_only=True):
    """A canonical recording made from an input (the bytes ``afp record`` writes: ``joined()``)
    and what the conversion had to say about it."""

    # shape B {snapshot, events, structure}, or the envelope A when drops are carried: as bytes
    # (a re-projected recording), or as ``doc``, the recording in memory (a run replayed through
    # the recorder), whose long values are the recorder's JSON (``msgspec.Raw``), handed to the
    # loader as they are: never joined into one buffer nor decoded a second time.
    data: bytes = b""
    doc: Any = None
    shape_in: str
    shape_out: str  # "recording" | "envelope"
    detail: str
    typed_in: int
    typed_out: int
    dropped_now: int
    dropped_total: int | None  # None: unknown (a bare recording cannot say)
    first_retained: int | None
    notes: list[HonestyFlag] = []

    def joined(self) -> bytes:
        """The whole recording's bytes (what ``afp record`` writes)."""
        return self.data if self.doc is None else _ENCODER.encode(self.doc)


def recorded(
    rec: RunRecording,
    doc: Any,
    *,
    shape_in: str,
    envelope: bool,
    detail: str,
    notes: list[HonestyFlag],
) -> Conversion:
    """The ``Conversion`` of a run replayed through the recorder (a capture, a synthesized trace
    or transcript): ``doc`` is its recording, or the envelope when drops are carried, handed
    over in memory (``Conversion.doc``): its long values, already JSON, are never copied."""
    return Conversion(
        doc=doc,
        shape_in=shape_in,
        shape_out="envelope" if envelope else "recording",
        detail=detail,
        typed_in=rec.event_count,
        typed_out=len(rec.tail),
        dropped_now=rec.dropped_events,
        dropped_total=rec.dropped_events,
        first_retained=rec.first_retained_event_index,
        notes=notes,
    )


class Importer(Protocol):
    """One input format. A module with these names is an importer (see ``importers/__init__``).

    ``sniff`` looks at the (decompressed) bytes and says whether they are this format; it must be
    cheap and must not raise. ``convert`` turns them into a canonical recording; every command
    reads that recording (``load.load`` decodes it into the ``Loaded`` a ``Run`` is built from),
    and ``afp record`` writes it. What the format cannot carry goes into ``Conversion.notes`` as
    registered honesty flags.
    """

    NAME: str  # short id, e.g. "capture"
    LABEL: str  # how messages and ``VERBOSE`` name it, e.g. "capture (JSON Lines)"

    def sniff(self, data: bytes) -> bool: ...

    def convert(
        self,
        name: str,
        data: bytes,
        *,
        detail: Detail = "full",
        keep_embeddings: bool = False,
        max_events: object = DEFAULT_MAX_EVENTS,
    ) -> Conversion: ...
