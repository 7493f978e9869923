"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md); its option
table and body.

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
The work is ``agentbisect.bisect.api.bisect_run``; this module checks options, loads, renders
and applies ``--fail-on``. The library's defaults are ``agentbisect.bisect.options.DEFAULTS``.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any

from agentbisect.bisect.options import ATTRIBUTION_SCORES, RANKINGS, SCORERS
from agentbisect.bisect.options import DEFAULTS as D
from agentbisect.core.errors import GateTripped
from agentbisect.core.options import (
    FILE,
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.render.formats import BisectFormat


class Attribution(StrEnum):
    surrogate = "surrogate"


def _choices(name: str, values: tuple[str, ...]) -> type[StrEnum]:
    """The typer choice type of a strategy option, from the library's one list of its values."""
    return StrEnum(name, [(v.replace("-", "_"), v) for v in values])  # type: ignore[return-value]


AttributionScore = _choices("AttributionScore", ATTRIBUTION_SCORES)
Scorer = _choices("Scorer", SCORERS)
Ranking = _choices("Ranking", RANKINGS)


HELP = """Localize the context behind a wrong agent step (correlational; causal with --rerun).

Ranks the context that flowed into the trigger step (tool results, injections, earlier
steps) by a correlational proxy score; only --rerun verdicts are causal claims.

Examples:

\b
  afp bisect run.json --at-llm -1                 # the last LLM call
  afp bisect run.json --at-step call-llm#40 --format text
  afp bisect run.json --at-llm -1 --json --fail-on slice-truncated
  afp bisect run.json --at-step call-llm#40 --rerun './replay.sh' --comparator contains:refund
"""

RERUN = Opt(
    "rerun",
    "--rerun",
    metavar="CMD",
    help="Causal mode: run CMD once per probe and seed (split like a shell, run without one).",
)
UPSTREAM = Opt(
    "upstream",
    "--upstream",
    kind=bool,
    help="Exactly the upstream library's report: mock embedder, upstream ranking, its "
    "honesty flags only, no afp fields.",
)
FAIL_ON = Opt(
    "fail_on",
    "--fail-on",
    default=[],
    metavar="FLAG",
    multiple=True,
    help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable.",
)

SPEC = CommandSpec(
    "bisect",
    HELP,
    FILE,
    Opt(
        "at_step",
        "--at-step",
        metavar="STEP_ID",
        help="Trigger: the runtimeStageId of the step that went wrong (afp aggregate lists them).",
    ),
    Opt(
        "at_llm",
        "--at-llm",
        kind=int,
        metavar="N",
        help="Trigger: the N-th LLM call (0-based; -1 = the last).",
    ),
    Opt(
        "control_deps",
        "--control-deps",
        metavar="FILE",
        help="JSON map runtimeStageId -> {deciderId, label?}: the decisions that routed each step.",
    ),
    Opt(
        "max_depth",
        "--max-depth",
        kind=int,
        default=D.max_depth,
        min=0,
        metavar="N",
        help="Slice budget: follow causes at most N hops back from the trigger.",
    ),
    Opt(
        "max_nodes",
        "--max-nodes",
        kind=int,
        default=D.max_nodes,
        min=1,
        metavar="N",
        help="Slice budget: at most N steps in the backward slice.",
    ),
    Opt(
        "max_suspects",
        "--max-suspects",
        kind=int,
        default=D.max_suspects,
        min=0,
        metavar="N",
        help="Report at most N suspects (content-backed ones are kept before structure-only).",
    ),
    Opt(
        "embedder",
        "--embedder",
        metavar="mock|wordllama|cmd:COMMAND",
        help="Text embedder for content scores (cmd: JSON texts on stdin, one vector each on "
        "stdout). Default: wordllama when the embed extra is installed, else mock.",
    ),
    Opt(
        "ranking",
        "--ranking",
        kind=Ranking,
        help="evidence-first (default: suspects whose own text backs the answer first) or "
        "upstream (path × semantic score).",
    ),
    Opt(
        "expected",
        "--expected",
        metavar="TEXT|@FILE",
        help="The right answer: evidence scores become contrastive (what the two answers "
        "disagree on).",
    ),
    Opt(
        "no_cache",
        "--no-cache",
        kind=bool,
        help="Neither read nor write the on-disk vector cache.",
    ),
    Opt(
        "scorer",
        "--scorer",
        kind=Scorer,
        default=Scorer(D.scorer),
        help="How suspects' content is scored.",
    ),
    RERUN,
    Opt(
        "samples",
        "--samples",
        kind=int,
        default=D.samples,
        min=2,
        metavar="N",
        help="Seeded reruns per probe.",
    ),
    Opt(
        "original_output",
        "--original-output",
        metavar="TEXT|@FILE",
        help="The wrong answer to compare reruns with; default: the run's final answer.",
    ),
    Opt(
        "comparator",
        "--comparator",
        default=D.comparator,
        metavar="similarity|contains:WORD|regex:PATTERN",
        help="When a rerun's answer counts as changed.",
    ),
    Opt(
        "flip_threshold",
        "--flip-threshold",
        kind=float,
        default=D.flip_threshold,
        metavar="R",
        help="similarity comparator: an answer less similar than R to the original flipped.",
    ),
    Opt(
        "max_ablations",
        "--max-ablations",
        kind=int,
        default=D.max_ablations,
        min=0,
        metavar="N",
        help="Rerun-test at most the top N suspects.",
    ),
    Opt(
        "culprits",
        "--culprits",
        kind=bool,
        help="Also search for the set of suspects that together flip it.",
    ),
    Opt(
        "missing_context",
        "--missing-context",
        metavar="FILE",
        help='JSON {"available": [{id, content?}], "sent": [{id}]}: test what was never sent.',
    ),
    Opt(
        "jobs",
        "--jobs",
        kind=int,
        default=D.jobs,
        min=1,
        metavar="N",
        help="Parallel reruns per probe.",
    ),
    Opt(
        "rerun_timeout",
        "--rerun-timeout",
        kind=float,
        default=D.rerun_timeout,
        min=0.001,
        metavar="SECONDS",
        help="Kill a rerun (and its process group) after SECONDS.",
    ),
    Opt(
        "attribution",
        "--attribution",
        kind=Attribution,
        help="surrogate: rerun once per random ablation mask and fit a sparse linear model; "
        f"a weight per source, sets that act together (needs {RERUN.flag}; not with "
        f"{UPSTREAM.flag}).",
    ),
    Opt(
        "masks",
        "--masks",
        kind=int,
        default=D.masks,
        min=10,
        metavar="N",
        help="Ablation masks (= reruns) for the surrogate.",
    ),
    Opt(
        "keep_prob",
        "--keep-prob",
        kind=float,
        default=D.keep_prob,
        metavar="P",
        help="Chance each source is kept in a mask (0 < P < 1).",
    ),
    Opt(
        "mask_seed",
        "--mask-seed",
        kind=int,
        default=D.mask_seed,
        metavar="SEED",
        help="Seed of the mask draw.",
    ),
    Opt(
        "attribution_score",
        "--attribution-score",
        kind=AttributionScore,
        default=AttributionScore(D.attribution_score),
        help="What the surrogate fits: flip (the comparator, 0/1) or similarity (1 − cosine).",
    ),
    format_opt(
        BisectFormat,
        "table (default), json, text (upstream's plain-text rendering), or html (a "
        "self-contained page; with -o).",
    ),
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
    from agentbisect.render.progress import rerun_progress

    name = pick_json_format(fmt, as_json)
    opts = BisectOptions(**{k: v.value if isinstance(v, Enum) else v for k, v in options.items()})
    check_options(opts)
    check_output(output, force, [file])
    run = load_run(file, verbose, import_options(trace_id, logs))
    # The bar's totals come from bisect_run's plan, exact before each phase's first rerun.
    with rerun_progress(enabled=opts.rerun is not None) as bar:
        on_call, on_plan = (bar.call, bar.plan) if bar is not None else (None, None)
        result = bisect_run(run, opts, on_call=on_call, on_plan=on_plan, overview=name == "html")
    del run  # only the HTML page reads the run again (see cli/aggregate.py)
    emit(name, result, output, force)
    if opts.fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in opts.fail_on or f in opts.fail_on})
        if hit:
            raise GateTripped(
                f"gate tripped ({FAIL_ON.flag}): honesty flag(s) raised: {', '.join(hit)}"
            )
