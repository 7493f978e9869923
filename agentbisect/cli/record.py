"""``afp record``: make a canonical recording from a capture or re-project an existing one.

This module declares the options for typer; the body is ``agentbisect.commands.record.run``.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import (
    JSON_OPT,
    LOGS_OPT,
    TRACE_ID_OPT,
    VERBOSE_OPT,
    format_option,
)
from agentbisect.commands import record as body
from agentbisect.commands.record import DEFAULT_MAX_EVENTS, Detail
from agentbisect.render.formats import SummaryFormat

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

Examples:

\b
  afp record run.capture.jsonl -o run.recording.json
  afp record big.recording.json -o small.json.gz --detail lean --max-events 2000
  afp record run.json -o out.json --force --format json | jq .honestyFlags
"""


@app.command("record", help=HELP)
@guarded
def record_command(
    input_path: str = typer.Argument(
        ...,
        metavar="INPUT",
        help="Capture (.jsonl), recording, OpenTelemetry trace or chat transcript; - for stdin.",
    ),
    output: str = typer.Option(
        ..., "-o", "--output", metavar="FILE", help="File to write (.gz compresses)."
    ),
    detail: Detail = typer.Option(
        Detail.full, "--detail", help="full: domain events with content; lean: without content."
    ),
    keep_embeddings: bool = typer.Option(
        False,
        "--keep-embeddings",
        help="Keep raw embedding vectors (default: replace them with {dims, norm}).",
    ),
    max_events: int = typer.Option(
        DEFAULT_MAX_EVENTS,
        "--max-events",
        min=1,
        metavar="N",
        help="Keep at most N typed events (a whole number ≥ 1), dropping the oldest.",
    ),
    gzip: bool = typer.Option(False, "--gzip", help="gzip the output (also implied by .gz)."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing OUTPUT."),
    fmt: SummaryFormat | None = format_option(
        SummaryFormat, "The summary: table (on stderr, the default) or json (on stdout)."
    ),
    as_json: bool = JSON_OPT,
    verbose: bool = VERBOSE_OPT,
    trace_id: str | None = TRACE_ID_OPT,
    logs: list[str] | None = LOGS_OPT,
) -> None:
    # The parameters are exactly the body's keyword arguments.
    body.run(**locals())
