"""``afp diff GOOD BAD``: where two runs of the same task part ways, and which difference did it;
its option table and body. The work is ``agentbisect.diff.api.diff_runs``."""

from __future__ import annotations

from agentbisect.bisect.options import (
    EMBEDDER,
    FAIL_ON,
    FLIP_THRESHOLD,
    NO_CACHE,
    REPLAY,
    REPLAY_KEY_ENV,
    REPLAY_MODEL,
    REPLAY_TIMEOUT,
)
from agentbisect.core.errors import GateTripped, UsageError
from agentbisect.core.options import (
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    REPORT_FORMATS,
    TRACE_ID,
    VERBOSE,
    Arg,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.render.formats import DiffFormat

GOOD = Arg(
    "good",
    "GOOD",
    "The run that went right (any input afp reads: a recording, a trace, a transcript).",
)
BAD = Arg("bad", "BAD", "The run that went wrong (it may be of another format than GOOD).")
GOOD_LOGS = Opt(
    "good_logs", "--good-logs", metavar="FILE", multiple=True, help=f"{LOGS.help} For GOOD."
)
BAD_LOGS = Opt(
    "bad_logs", "--bad-logs", metavar="FILE", multiple=True, help=f"{LOGS.help} For BAD."
)
GOOD_TRACE_ID = Opt(
    "good_trace_id", "--good-trace-id", metavar="TRACE_ID", help=f"{TRACE_ID.help} For GOOD."
)
BAD_TRACE_ID = Opt(
    "bad_trace_id", "--bad-trace-id", metavar="TRACE_ID", help=f"{TRACE_ID.help} For BAD."
)
DIVERGED = "diverged"  # the one gate of afp diff
DIFF_FAIL_ON = FAIL_ON.replace(
    help=f"'{DIVERGED}': exit 1 (after printing) when the runs part ways — a golden run "
    "against today's. Repeatable.",
    metavar=DIVERGED,
)
DIFF_REPLAY = REPLAY.replace(
    help="Causal check: put the good run's version of each top difference into the bad call, "
    "send it to the OpenAI-compatible URL/chat/completions and see whether the answer comes "
    "back right (without it every score is a correlational proxy)."
)
DIFF_FLIP_THRESHOLD = FLIP_THRESHOLD.replace(
    help="Similarity comparator: two LLM outputs that state the same numbers, codes and names "
    "still differ when their similarity is below R."
)
FORMAT = format_opt(DiffFormat, REPORT_FORMATS)

HELP = f"""Compare a good run with a bad run of the same task: where they part ways, and which
difference fed it.

The two runs' steps (LLM calls, tool calls, retrievals, agent steps) are aligned by what they
are and what they were given, never by ids or times; afp reports the first step whose inputs
differ, the first LLM call whose output differs, and the context sources of that call that
differ between the runs (tool results, documents, system-prompt parts, earlier outputs, user
messages), each with its changed spans, ranked by how much the bad answer draws on the bad side
rather than the good side. Ids, times and formatting are never differences.

Examples:

\b
  afp diff golden.json today.json                      # one screen
  afp diff good.otlp.json bad.jsonl {JSON.flag} | jq .differences[0]
  afp diff good.json bad.json {FORMAT.flag} html {OUTPUT.flag} diff.html
  afp diff golden.json today.json {DIFF_FAIL_ON.flag} {DIVERGED}      # CI gate
"""

SPEC = CommandSpec(
    "diff",
    HELP,
    (GOOD, BAD),
    FORMAT,
    JSON,
    OUTPUT,
    FORCE,
    DIFF_FAIL_ON,
    GOOD_LOGS,
    BAD_LOGS,
    GOOD_TRACE_ID,
    BAD_TRACE_ID,
    EMBEDDER,
    DIFF_FLIP_THRESHOLD,
    NO_CACHE,
    DIFF_REPLAY,
    REPLAY_MODEL,
    REPLAY_KEY_ENV,
    REPLAY_TIMEOUT,
    VERBOSE,
)


def run(
    *,
    good: str,
    bad: str,
    fmt: DiffFormat | None,
    as_json: bool,
    output: str | None,
    force: bool,
    fail_on: list[str],
    good_logs: list[str] | None,
    bad_logs: list[str] | None,
    good_trace_id: str | None,
    bad_trace_id: str | None,
    embedder: str | None,
    flip_threshold: float,
    no_cache: bool,
    replay: str | None,
    replay_model: str | None,
    replay_key_env: str | None,
    replay_timeout: float,
    verbose: bool,
) -> None:
    from agentbisect.cli.common import import_options, load_run, pick_json_format
    from agentbisect.cli.output import check_output, emit
    from agentbisect.diff.api import diff_runs
    from agentbisect.diff.options import DiffOptions

    name = pick_json_format(fmt, as_json)
    for value in fail_on:
        if value != DIVERGED:
            raise UsageError(f"{DIFF_FAIL_ON.flag} {value}: afp diff's only gate is '{DIVERGED}'")
    check_output(output, force, [good, bad])
    bad_imports = import_options(bad_trace_id, bad_logs)
    good_run = load_run(good, verbose, import_options(good_trace_id, good_logs))
    bad_run = load_run(bad, verbose, bad_imports)
    opts = DiffOptions(
        embedder=embedder,
        no_cache=no_cache,
        flip_threshold=flip_threshold,
        replay=replay,
        replay_model=replay_model,
        replay_key_env=replay_key_env,
        replay_timeout=replay_timeout,
    )
    result = diff_runs(good_run, bad_run, opts, bad_import_options=bad_imports)
    emit(name, result, output, force)
    if fail_on and result.diverged:
        raise GateTripped(f"{DIFF_FAIL_ON.flag} {DIVERGED}: the runs part ways")
