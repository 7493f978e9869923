"""``afp record``: make a canonical recording from a capture or re-project an existing one."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.errors import UsageError

# The recorder, the loader's schemas and rich are imported inside the functions that use them:
# every `afp` call imports this module, and start-up cost is paid thousands of times in CI.
if TYPE_CHECKING:
    from agentbisect.load import Loaded
    from agentbisect.record import Conversion

# The value of agentbisect.record.DEFAULT_MAX_EVENTS, copied because typer needs it when this
# module is imported and importing agentbisect.record for it would load the recorder every time.
DEFAULT_MAX_EVENTS = 10_000

HELP = """Write a canonical recording from a JSON Lines capture or any recording afp reads.

INPUT is either a recording in any shape afp reads (envelope, {snapshot, events, structure},
trace, bare snapshot, bare BoundaryEvents row; gzip or '-' for stdin), which is re-projected,
or a capture: JSON Lines, one object per line, each with exactly one of these keys:

\b
  {"afp": "capture", "version": 1, "structure": {...}, "recorderId": "..."}
      optional header, first line only (structure = the chart, recorderId = row id)
  {"flow": "<callback>", "event": {...}, "ts": <epoch ms>, "commits": <n>}
      one engine flow callback; <callback> is runStart, runEnd, runFailed,
      subflowEntry, subflowExit, fork, decision or loop; event is the callback's
      upstream object (payload, name, subflowId, description, mappedInput,
      outputState, structuredError, parent, children, decider, chosen,
      rationale, target, iteration, traversalContext {runId, runtimeStageId,
      stageId, subflowPath})
  {"typed": {"type": ..., "payload": {...}, "meta": {...}}, "commits": <n>}
      one typed agentfootprint event, as emitted
  {"commit": {"stage": ..., "stageId": ..., "runtimeStageId": ..., ...}}
      one commit-log bundle; appending it advances the commit count by one
  {"snapshot": {"sharedState": {...}, "runId": ...}}
      the engine snapshot's other parts (optional, last one wins)

"commits" is the commit count at the moment the line's event fired; it carries forward to
later lines, and each commit line sets it to the length of the commit log. A capture with
neither "commits" nor commit lines was recorded without commit tracking: every position is 0
and the boundary index stays empty (legacy; this cannot be repaired later).

The output is {snapshot, events, structure}, or the agentfootprint.recording.v1 envelope when
typed events were dropped by --max-events (only an envelope can carry droppedEvents). It is
written atomically, never over INPUT, and never over an existing file without --force. The
summary goes to stderr.

Lean (--detail lean) drops payload, args, result, content and contentSummary from every
domain event. It is not redaction: rationale, reason and systemPromptText survive, and the
typed events and snapshot still hold full content.
"""


@app.command("record", help=HELP)
@guarded
def record_command(
    input_path: str = typer.Argument(..., metavar="INPUT", help="Capture (.jsonl) or recording."),
    output: str = typer.Option(..., "-o", "--output", help="File to write (.gz compresses)."),
    detail: str = typer.Option(
        "full", "--detail", help="full: domain events with content; lean: without content."
    ),
    keep_embeddings: bool = typer.Option(
        False,
        "--keep-embeddings",
        help="Keep raw embedding vectors (default: replace them with {dims, norm}).",
    ),
    max_events: float = typer.Option(
        DEFAULT_MAX_EVENTS,
        "--max-events",
        help="Keep at most N typed events, dropping the oldest (bad values: 10000).",
    ),
    gzip: bool = typer.Option(False, "--gzip", help="gzip the output (also implied by .gz)."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing OUTPUT."),
) -> None:
    if detail not in ("full", "lean"):
        raise UsageError(f"--detail must be full or lean, not {detail!r}")
    if output in ("", "-"):
        raise UsageError("-o needs a file path (the recording is written atomically to a file)")
    if os.path.isdir(output):
        raise UsageError(f"{output} is a directory; -o needs a file path")
    _refuse_same_file(input_path, output)
    if not force and os.path.lexists(output):
        raise UsageError(f"{output} exists; pass --force to overwrite it")
    from agentbisect.load import load_bytes, read_input
    from agentbisect.record import (
        convert_capture,
        gzip_bytes,
        is_capture,
        reproject,
        write_atomic,
    )

    name, data, compressed = read_input(input_path)
    size_in = _size_on_disk(input_path, data)
    loaded_in: Loaded | None = None
    if is_capture(data):
        conv = convert_capture(
            name,
            data,
            detail=detail,  # type: ignore[arg-type]
            keep_embeddings=keep_embeddings,
            max_events=max_events,
        )
    else:
        conv = reproject(
            name,
            data,
            detail=detail,  # type: ignore[arg-type]
            keep_embeddings=keep_embeddings,
            max_events=max_events,
        )
        loaded_in = load_bytes(data, name)
    out_bytes = conv.data
    if gzip or output.endswith(".gz"):
        out_bytes = gzip_bytes(out_bytes)
    # Load what we are about to write first: a file every afp command reads, or nothing.
    loaded_out = load_bytes(conv.data, output)
    write_atomic(output, out_bytes, force=force)
    _summary(conv, loaded_in, loaded_out, compressed, size_in, len(out_bytes), max_events)


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


def _summary(
    conv: Conversion,
    loaded_in: Loaded | None,
    out: Loaded,
    compressed: bool,
    size_in: int,
    size_out: int,
    max_events: float,
) -> None:
    from agentbisect.boundary.rebuild import rebuild_index
    from agentbisect.record import normalize_cap
    from agentbisect.render.console import stderr_console
    from agentbisect.render.safetext import safe

    err = stderr_console()
    domain = out.domain.events if out.domain else []
    build = rebuild_index(domain, out.commit_log_empty())
    boundaries = sum(1 for e in domain if e.type.startswith(("run.", "subflow.")))
    domain_in = len(loaded_in.domain.events) if loaded_in is not None and loaded_in.domain else None

    def line(label: str, value: Any) -> None:
        text = safe(f"{label:<12} ")
        text.append_text(safe(value))
        err.print(text)

    line("read", conv.shape_in + (" (gzip)" if compressed else ""))
    line("wrote", f"{out.file}: {conv.shape_out}, detail {conv.detail}")
    line("typed", f"{conv.typed_in} in, {conv.typed_out} out")
    line(
        "domain",
        (f"{domain_in} in, " if domain_in is not None else "") + f"{len(domain)} out",
    )
    line("boundaries", f"{boundaries} run/subflow events")
    line(
        "ranges",
        "none (no commit axis)"
        if build.legacy
        else f"{build.index.size} ({len(build.unclosed)} unclosed)",
    )
    line("bytes", f"{size_in} before, {size_out} after")

    warnings: list[tuple[str, str]] = []
    if build.legacy:
        warnings.append(
            (
                "commit-axis-absent",
                "no commit axis: recorded without commit tracking (legacy); the boundary index "
                "and step strip are empty and this cannot be repaired",
            )
        )
    if conv.dropped_now:
        warnings.append(
            (
                "events-dropped",
                f"dropped the {conv.dropped_now} oldest typed events (cap "
                f"{normalize_cap(max_events)}); droppedEvents "
                + (str(conv.dropped_total) if conv.dropped_total is not None else "partly unknown")
                + ", firstRetainedEventIndex "
                + (str(conv.first_retained) if conv.first_retained is not None else "not proven"),
            )
        )
    elif conv.dropped_total:
        warnings.append(
            ("events-dropped", f"the input had already dropped {conv.dropped_total} events")
        )
    if out.shape == "recording" and conv.dropped_total is None:
        warnings.append(
            (
                "drops-unknown",
                "droppedEvents unknown: a bare recording cannot say whether events were "
                "dropped before it was written",
            )
        )
    if build.unclosed:
        shown = ", ".join(build.unclosed[:5]) + (" …" if len(build.unclosed) > 5 else "")
        warnings.append(
            (
                "unclosed-ranges",
                f"{len(build.unclosed)} unclosed range(s) (crash, pause or partial freeze): "
                + shown,
            )
        )
    if out.structure is None:
        warnings.append(("structure-absent", "no structure (chart) in the output"))
    if conv.detail == "lean":
        warnings.append(
            (
                "lean-no-content",
                "lean: the boundary events carry no captured content (payload, args, result, "
                "content, contentSummary). Lean is not redaction: free text such as rationale, "
                "reason and systemPromptText survives, and the typed events and snapshot keep "
                "full content",
            )
        )
    warnings.extend(conv.notes)
    seen = {flag for flag, _ in warnings}
    for source in (loaded_in, out):
        for w in source.warnings if source is not None else []:
            if w.flag not in seen and w.flag not in ("structure-absent", "boundaries-absent"):
                seen.add(w.flag)
                warnings.append((w.flag, w.note))
    if out.boundary_row is None and "boundaries-absent" not in seen:
        warnings.append(("boundaries-absent", "no BoundaryEvents row: no domain events"))
    for flag, note in warnings:
        text = safe("warning ", "yellow")
        text.append_text(safe(f"[{flag}] {note}"))
        err.print(text)
