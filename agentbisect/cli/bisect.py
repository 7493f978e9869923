"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md); its option
table and body.

Correlational by default (proxies only); with ``RERUN`` every probe is rerun and judged, and only
those verdicts are causal. ``FAIL_ON`` turns honesty flags into a CI gate (exit 1). The work is
``agentbisect.bisect.api.bisect_run``; this module checks options, loads, renders and applies
``FAIL_ON``. The library's options (rows, defaults, choices) are ``agentbisect.bisect.options``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from agentbisect.bisect.options import (
    ATTRIBUTION,
    ATTRIBUTION_SCORE,
    COMPARATOR,
    CONTROL_DEPS,
    CULPRITS,
    EMBEDDER,
    FAIL_ON,
    FLIP_THRESHOLD,
    JOBS,
    KEEP_PROB,
    MASK_SEED,
    MASKS,
    MAX_ABLATIONS,
    MAX_DEPTH,
    MAX_NODES,
    MAX_SUSPECTS,
    MISSING_CONTEXT,
    NO_CACHE,
    ORIGINAL_OUTPUT,
    RANKING,
    REPLAY,
    REPLAY_BUDGET_REQUESTS,
    REPLAY_BUDGET_TOKENS,
    REPLAY_KEY_ENV,
    REPLAY_MODEL,
    REPLAY_TIMEOUT,
    RERUN_TIMEOUT,
    SAMPLES,
    SCORER,
    UPSTREAM,
)
from agentbisect.core.errors import GateTripped
from agentbisect.core.options import (
    AT_LLM,
    AT_STEP,
    DETAILS,
    EXPECTED,
    FILE,
    FORCE,
    JSON,
    LOGS,
    NO_PAGER,
    OUTPUT,
    RERUN,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    format_opt,
)
from agentbisect.render.formats import BisectFormat

FORMAT = format_opt(
    BisectFormat,
    "table (default), json, text (upstream's plain-text rendering), or html (a "
    "self-contained page; with -o).",
)

# The examples' comments line up in the printed help, not here.
HELP = f"""Localize the context behind a wrong agent step (correlational; causal with {RERUN.flag}).

Ranks the context that flowed into the trigger step (tool results, injections, earlier
steps) by a correlational proxy score; only {RERUN.flag} verdicts are causal claims.

Examples:

\b
  afp bisect run.json {AT_LLM.flag} -1                 # the last LLM call
  afp bisect run.json {AT_STEP.flag} call-llm#40 {FORMAT.flag} text
  afp bisect run.json {AT_LLM.flag} -1 {JSON.flag} {FAIL_ON.flag} slice-truncated
  afp bisect run.json {AT_STEP.flag} call-llm#40 {RERUN.flag} './replay.sh' {COMPARATOR.flag} contains:refund
  afp bisect trace.json {AT_LLM.flag} -1 {REPLAY.flag} http://127.0.0.1:11434/v1 {COMPARATOR.flag} 'contains:90 days'
"""

SPEC = CommandSpec(
    "bisect",
    HELP,
    FILE,
    AT_STEP,
    AT_LLM,
    CONTROL_DEPS,
    MAX_DEPTH,
    MAX_NODES,
    MAX_SUSPECTS,
    EMBEDDER,
    RANKING,
    EXPECTED,
    NO_CACHE,
    SCORER,
    RERUN,
    REPLAY,
    REPLAY_MODEL,
    REPLAY_KEY_ENV,
    REPLAY_TIMEOUT,
    REPLAY_BUDGET_REQUESTS,
    REPLAY_BUDGET_TOKENS,
    SAMPLES,
    ORIGINAL_OUTPUT,
    COMPARATOR,
    FLIP_THRESHOLD,
    MAX_ABLATIONS,
    CULPRITS,
    MISSING_CONTEXT,
    JOBS,
    RERUN_TIMEOUT,
    ATTRIBUTION,
    MASKS,
    KEEP_PROB,
    MASK_SEED,
    ATTRIBUTION_SCORE,
    FORMAT,
    DETAILS,
    NO_PAGER,
    OUTPUT,
    FORCE,
    JSON,
    UPSTREAM,
    VERBOSE,
    FAIL_ON,
    TRACE_ID,
    LOGS,
)


def run(
    *,
    file: str,
    fmt: BisectFormat | None,
    details: bool,
    no_pager: bool,
    output: str | None,
    force: bool,
    as_json: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
    **options: Any,
) -> None:
    """The body; every other row of ``SPEC`` is a ``BisectOptions`` field of the same name
    (choices passed as their string values)."""
    from agentbisect.bisect.api import BisectOptions, bisect_run, check_options
    from agentbisect.cli.common import import_options, load_run, pick_json_format
    from agentbisect.cli.output import check_output, emit
    from agentbisect.render.progress import replay_plan, rerun_progress

    name = pick_json_format(fmt, as_json)
    opts = BisectOptions(**{k: v.value if isinstance(v, Enum) else v for k, v in options.items()})
    check_options(opts)
    check_output(output, force, [file])
    imports = import_options(trace_id, logs)
    run = load_run(file, verbose, imports)
    # The bar's totals come from bisect_run's plan, exact before each phase's first rerun.
    with rerun_progress(enabled=opts.causal) as bar:
        on_call, on_plan = (bar.call, bar.plan) if bar is not None else (None, None)
        plan: Callable[[int, bool, str], None] | None = on_plan
        if opts.replay is not None:
            from agentbisect.bisect.causal.client import shown_url

            plan = replay_plan(on_plan, shown_url(opts.replay))
        result = bisect_run(
            run,
            opts,
            on_call=on_call,
            on_plan=plan,
            overview=name == "html",
            import_options=imports,
            on_tokens=bar.tokens if bar is not None else None,
        )
    del run  # only the HTML page reads the run again (see cli/aggregate.py)
    result.details, result.page = details, not no_pager
    emit(name, result, output, force)
    if opts.fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in opts.fail_on or f in opts.fail_on})
        if hit:
            raise GateTripped(
                f"gate tripped ({FAIL_ON.flag}): honesty flag(s) raised: {', '.join(hit)}"
            )
