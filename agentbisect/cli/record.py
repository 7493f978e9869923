"""``afp record``: make a canonical recording from a capture or re-project an existing one; its
option table and body."""

from __future__ import annotations

from agentbisect.core.options import (
    DETAIL,
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    TRACE_ID,
    VERBOSE,
    Arg,
    CommandSpec,
    Detail,
    Opt,
    format_opt,
)
from agentbisect.model.record import DEFAULT_MAX_EVENTS
from agentbisect.render.formats import SummaryFormat

MAX_EVENTS = Opt(
    "max_events",
    "--max-events",
    kind=int,
    default=DEFAULT_MAX_EVENTS,
    min=1,
    metavar="N",
    help="Keep at most N typed events (a whole number ≥ 1), dropping the oldest.",
)
FORMAT = format_opt(
    SummaryFormat, "The summary: table (on stderr, the default) or json (on stdout)."
)

# The capture format (its JSON braces kept as written), then what is said about the options.
CAPTURE_HELP = """Write a canonical recording from a JSON Lines capture or any recording afp reads.

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

"""

HELP = (
    CAPTURE_HELP
    + f"""The output is {{snapshot, events, structure}}, or the agentfootprint.recording.v1 envelope when
typed events were dropped by {MAX_EVENTS.flag} (only an envelope can carry droppedEvents). It is
written atomically, never over INPUT, and never over an existing file without {FORCE.flag}. The
summary goes to stderr.

Lean ({DETAIL.flag} lean) drops payload, args, result, content and contentSummary from every
domain event. It is not redaction: rationale, reason and systemPromptText survive, and the
typed events and snapshot still hold full content.

Examples:

\b
  afp record run.capture.jsonl -o run.recording.json
  afp record big.recording.json -o small.json.gz {DETAIL.flag} lean {MAX_EVENTS.flag} 2000
  afp record run.json -o out.json {FORCE.flag} {FORMAT.flag} json | jq .honestyFlags
"""
)

SPEC = CommandSpec(
    "record",
    HELP,
    Arg(
        "input_path",
        "INPUT",
        "Capture (.jsonl), recording, OpenTelemetry trace or chat transcript; - for stdin.",
    ),
    OUTPUT.replace(required=True, help="File to write (.gz compresses)."),
    DETAIL,
    Opt(
        "keep_embeddings",
        "--keep-embeddings",
        kind=bool,
        help="Keep raw embedding vectors (default: replace them with {dims, norm}).",
    ),
    MAX_EVENTS,
    Opt("gzip", "--gzip", kind=bool, help="gzip the output (also implied by .gz)."),
    FORCE.replace(help="Overwrite an existing OUTPUT."),
    FORMAT,
    JSON,
    VERBOSE,
    TRACE_ID,
    LOGS,
)


def run(
    *,
    input_path: str,
    output: str,
    detail: Detail,
    keep_embeddings: bool,
    max_events: int,
    gzip: bool,
    force: bool,
    fmt: SummaryFormat | None,
    as_json: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.analyses.record import record_file
    from agentbisect.cli.common import import_options, pick_json_format
    from agentbisect.render import get_renderer

    name = pick_json_format(fmt, as_json)
    summary = record_file(
        input_path,
        output,
        detail=detail.value,
        keep_embeddings=keep_embeddings,
        max_events=max_events,
        gzip=True if gzip else None,
        force=force,
        options=import_options(trace_id, logs),
    )
    get_renderer(name).render(summary)
    if verbose:
        from agentbisect.cli.common import say

        say(f"read {summary.bytes_in:,} bytes as {summary.shape_in}; wrote {summary.bytes_out:,}")
