"""``record_file``: make a canonical recording from any input afp reads and write it atomically.

The library half of ``afp record``: pick the importer (capture JSON Lines, or a recording to
re-project), convert, check that what will be written loads, write it, and summarise what was
read and written with every limit of the output as a registered honesty flag.
"""

from __future__ import annotations

import os

from agentbisect.core.errors import UsageError
from agentbisect.core.files import check_target, gzip_bytes, write_atomic
from agentbisect.core.honesty import HonestyFlag, dedupe, flag
from agentbisect.core.inputbytes import read_input
from agentbisect.core.options import DETAIL
from agentbisect.importers import InputBuffer, convert_with, importer_for, load_bytes
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail, ImportOptions
from agentbisect.model.boundary.rebuild import rebuild_index
from agentbisect.model.loaded import Loaded
from agentbisect.model.record import normalize_cap
from agentbisect.results import RecordSummary


def check_output(input_path: str, output: str, *, force: bool) -> None:
    """Refuse outputs that are not regular files, that are the input, or that exist (without
    force)."""
    if output in ("", "-"):
        raise UsageError("-o needs a file path (the recording is written atomically to a file)")
    if os.path.isdir(output):
        raise UsageError(f"{output} is a directory; -o needs a file path")
    _refuse_same_file(input_path, output)
    check_target(output, force=force)  # before any work: a FIFO or a device is never replaced


def record_file(
    input_path: str,
    output: str,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
    gzip: bool | None = None,
    force: bool = False,
    options: ImportOptions | None = None,
) -> RecordSummary:
    """Convert ``input_path`` (or ``-``) into a canonical recording at ``output``.

    ``gzip=None`` compresses when ``output`` ends in ``.gz``. The output is written atomically,
    never over the input, and never over an existing file unless ``force``.
    """
    if detail not in ("full", "lean"):
        raise UsageError(f"{DETAIL.flag} must be full or lean, not {detail!r}")
    check_output(input_path, output, force=force)
    from agentbisect.importers import recording

    name, data, compressed = read_input(input_path)
    size_in = _size_on_disk(input_path, data)
    imp = importer_for(data) or recording
    # Only the buffer holds the bytes of an input that is converted (not read again below): a
    # trace importer lets them go once its spans are read, before the long synthesis (the 217 MB
    # of a 1,000,000-span trace were alive through it).
    again = data if imp is recording else None
    buf = InputBuffer(data)
    del data
    conv = convert_with(
        imp,
        name,
        buf,
        options,
        detail=detail,
        keep_embeddings=keep_embeddings,
        max_events=max_events,
    )
    del buf
    loaded_in = load_bytes(again, name) if again is not None else None
    recorded = conv.joined()
    out_bytes = recorded
    if gzip or (gzip is None and output.endswith(".gz")):
        out_bytes = gzip_bytes(out_bytes)
    # Load what we are about to write first: a file every afp command reads, or nothing.
    loaded_out = load_bytes(recorded, output)
    write_atomic(output, out_bytes, force=force)
    return summarize(conv, loaded_in, loaded_out, compressed, size_in, len(out_bytes), max_events)


def _refuse_same_file(input_path: str, output: str) -> None:
    if input_path == "-":
        return
    if os.path.realpath(input_path) == os.path.realpath(output):
        raise UsageError(f"refusing to overwrite the input {input_path} with its own output")
    try:
        if os.path.samefile(input_path, output):
            raise UsageError(
                f"refusing to overwrite the input {input_path} (same file as {output})"
            )
    except OSError:
        pass  # one of them does not exist: they cannot be the same file


def _size_on_disk(path: str, data: bytes) -> int:
    if path == "-":
        return len(data)
    try:
        return os.path.getsize(path)
    except OSError:
        return len(data)


def summarize(
    conv: Conversion,
    loaded_in: Loaded | None,
    out: Loaded,
    compressed: bool,
    size_in: int,
    size_out: int,
    max_events: object,
) -> RecordSummary:
    """What was read and written, and every limit of the output (each condition once)."""
    domain = out.domain.events if out.domain else []
    build = rebuild_index(domain, out.commit_log_empty())
    domain_in = len(loaded_in.domain.events) if loaded_in is not None and loaded_in.domain else None

    flags: list[HonestyFlag] = []

    def add(name: str, note: str) -> None:
        flags.append(flag(name, note))

    if build.legacy:
        add(
            "commit-axis-absent",
            "no commit axis: recorded without commit tracking (legacy); the boundary index "
            "and step strip are empty and this cannot be repaired",
        )
    if conv.dropped_now:
        add(
            "events-dropped",
            f"dropped the {conv.dropped_now} oldest typed events (cap "
            f"{normalize_cap(max_events)}); droppedEvents "
            + (str(conv.dropped_total) if conv.dropped_total is not None else "partly unknown")
            + ", firstRetainedEventIndex "
            + (str(conv.first_retained) if conv.first_retained is not None else "not proven"),
        )
    elif conv.dropped_total:
        add("events-dropped", f"the input had already dropped {conv.dropped_total} events")
    if out.shape == "recording" and conv.dropped_total is None:
        add(
            "drops-unknown",
            "droppedEvents unknown: a bare recording cannot say whether events were "
            "dropped before it was written",
        )
    if build.unclosed:
        shown = ", ".join(build.unclosed[:5]) + (" …" if len(build.unclosed) > 5 else "")
        add(
            "unclosed-ranges",
            f"{len(build.unclosed)} unclosed range(s) (crash, pause or partial freeze): " + shown,
        )
    if out.structure is None:
        add("structure-absent", "no structure (chart) in the output")
    if conv.detail == "lean":
        add(
            "lean-no-content",
            "lean: the boundary events carry no captured content (payload, args, result, "
            "content, contentSummary). Lean is not redaction: free text such as rationale, "
            "reason and systemPromptText survives, and the typed events and snapshot keep "
            "full content",
        )
    flags.extend(conv.notes)
    for source in (loaded_in, out):
        if source is not None:
            ours = ("structure-absent", "boundaries-absent")  # said here in our own words
            flags.extend(w for w in source.warnings if w.flag not in ours)
    if out.boundary_row is None:
        add("boundaries-absent", "no BoundaryEvents row: no domain events")
    return RecordSummary(
        file_out=out.file,
        shape_in=conv.shape_in + (" (gzip)" if compressed else ""),
        shape_out=conv.shape_out,
        detail=conv.detail,
        compressed_in=compressed,
        typed_in=conv.typed_in,
        typed_out=conv.typed_out,
        domain_in=domain_in,
        domain_out=len(domain),
        boundaries=sum(1 for e in domain if e.type.startswith(("run.", "subflow."))),
        ranges=None if build.legacy else build.index.size,
        unclosed=len(build.unclosed),
        bytes_in=size_in,
        bytes_out=size_out,
        flags=dedupe(flags),
    )
