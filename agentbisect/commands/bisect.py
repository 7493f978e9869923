"""``afp bisect``'s option table and body (the options' help: ``agentbisect/cli/bisect.py``).

The work is ``agentbisect.bisect.api.bisect_run``; this module checks options, loads, renders
and applies ``--fail-on``.
"""

from __future__ import annotations

from enum import StrEnum

from agentbisect.commands.spec import (
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    Opt,
    file_arg,
    format_opt,
)
from agentbisect.core.errors import GateTripped
from agentbisect.render.formats import BisectFormat

# Option defaults, the values of agentbisect.bisect.pipeline.localize.DEFAULTS and
# agentbisect.bisect.causal.probes.DEFAULT_FLIP_THRESHOLD: copied because the option tables need them
# before any work, and importing the library for them would load it on every `afp` call
# (tests/test_cli_defaults.py checks that they are equal).
DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_NODES = 80
DEFAULT_MAX_SUSPECTS = 12
DEFAULT_FLIP_THRESHOLD = 0.8
DEFAULT_MASKS = 64  # agentbisect.bisect.causal.surrogate.DEFAULT_MASKS (why 64: see there)
DEFAULT_KEEP_PROB = 0.5


class Attribution(StrEnum):
    surrogate = "surrogate"


class AttributionScore(StrEnum):
    flip = "flip"
    similarity = "similarity"


class Scorer(StrEnum):
    semantic_alignment = "semantic-alignment"
    lexical_overlap = "lexical-overlap"


class Ranking(StrEnum):
    evidence_first = "evidence-first"
    upstream = "upstream"


SPEC = CommandSpec(
    "bisect",
    file_arg(),
    Opt("at_step", "--at-step", metavar="STEP_ID"),
    Opt("at_llm", "--at-llm", kind=int, metavar="N"),
    Opt("control_deps", "--control-deps", metavar="FILE"),
    Opt("max_depth", "--max-depth", kind=int, default=DEFAULT_MAX_DEPTH, min=0, metavar="N"),
    Opt("max_nodes", "--max-nodes", kind=int, default=DEFAULT_MAX_NODES, min=1, metavar="N"),
    Opt(
        "max_suspects", "--max-suspects", kind=int, default=DEFAULT_MAX_SUSPECTS, min=0, metavar="N"
    ),
    Opt("embedder", "--embedder", metavar="mock|wordllama|cmd:COMMAND"),
    Opt("ranking", "--ranking", kind=Ranking),
    Opt("expected", "--expected", metavar="TEXT|@FILE"),
    Opt("no_cache", "--no-cache", kind=bool),
    Opt("scorer", "--scorer", kind=Scorer, default=Scorer.semantic_alignment),
    Opt("rerun", "--rerun", metavar="CMD"),
    Opt("samples", "--samples", kind=int, default=3, min=2, metavar="N"),
    Opt("original_output", "--original-output", metavar="TEXT|@FILE"),
    Opt(
        "comparator",
        "--comparator",
        default="similarity",
        metavar="similarity|contains:WORD|regex:PATTERN",
    ),
    Opt(
        "flip_threshold",
        "--flip-threshold",
        kind=float,
        default=DEFAULT_FLIP_THRESHOLD,
        metavar="R",
    ),
    Opt("max_ablations", "--max-ablations", kind=int, default=5, min=0, metavar="N"),
    Opt("culprits", "--culprits", kind=bool),
    Opt("missing_context", "--missing-context", metavar="FILE"),
    Opt("jobs", "--jobs", kind=int, default=1, min=1, metavar="N"),
    Opt(
        "rerun_timeout", "--rerun-timeout", kind=float, default=300.0, min=0.001, metavar="SECONDS"
    ),
    Opt("attribution", "--attribution", kind=Attribution),
    Opt("masks", "--masks", kind=int, default=DEFAULT_MASKS, min=10, metavar="N"),
    Opt("keep_prob", "--keep-prob", kind=float, default=DEFAULT_KEEP_PROB, metavar="P"),
    Opt("mask_seed", "--mask-seed", kind=int, default=0, metavar="SEED"),
    Opt(
        "attribution_score",
        "--attribution-score",
        kind=AttributionScore,
        default=AttributionScore.flip,
    ),
    format_opt(BisectFormat),
    OUTPUT,
    FORCE,
    JSON,
    Opt("upstream", "--upstream", kind=bool),
    VERBOSE,
    Opt("fail_on", "--fail-on", default=[], metavar="FLAG", multiple=True),
    TRACE_ID,
    LOGS,
)


def run(
    *,
    file: str,
    at_step: str | None,
    at_llm: int | None,
    control_deps: str | None,
    max_depth: int,
    max_nodes: int,
    max_suspects: int,
    embedder: str | None,
    ranking: Ranking | None,
    expected: str | None,
    no_cache: bool,
    scorer: Scorer,
    rerun: str | None,
    samples: int,
    original_output: str | None,
    comparator: str,
    flip_threshold: float,
    max_ablations: int,
    culprits: bool,
    missing_context: str | None,
    jobs: int,
    rerun_timeout: float,
    attribution: Attribution | None,
    masks: int,
    keep_prob: float,
    mask_seed: int,
    attribution_score: AttributionScore,
    fmt: BisectFormat | None,
    output: str | None,
    force: bool,
    as_json: bool,
    upstream: bool,
    verbose: bool,
    fail_on: list[str],
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.bisect.api import BisectOptions, bisect_run, check_options
    from agentbisect.commands.common import import_options, load_run, pick_json_format
    from agentbisect.commands.output import check_output, emit
    from agentbisect.render.progress import rerun_progress

    name = pick_json_format(fmt, as_json)
    opts = BisectOptions(
        at_step=at_step,
        at_llm=at_llm,
        control_deps=control_deps,
        max_depth=max_depth,
        max_nodes=max_nodes,
        max_suspects=max_suspects,
        scorer=scorer.value,
        rerun=rerun,
        samples=samples,
        original_output=original_output,
        comparator=comparator,
        flip_threshold=flip_threshold,
        max_ablations=max_ablations,
        culprits=culprits,
        missing_context=missing_context,
        jobs=jobs,
        rerun_timeout=rerun_timeout,
        upstream=upstream,
        fail_on=fail_on,
        attribution=attribution.value if attribution is not None else None,
        masks=masks,
        keep_prob=keep_prob,
        mask_seed=mask_seed,
        attribution_score=attribution_score.value,
        embedder=embedder,
        ranking=ranking.value if ranking is not None else None,
        expected=expected,
        no_cache=no_cache,
    )
    check_options(opts)
    check_output(output, force, [file])
    run = load_run(file, verbose, import_options(trace_id, logs))
    # The bar's totals come from bisect_run's plan, exact before each phase's first rerun.
    with rerun_progress(enabled=rerun is not None) as bar:
        on_call, on_plan = (bar.call, bar.plan) if bar is not None else (None, None)
        result = bisect_run(run, opts, on_call=on_call, on_plan=on_plan, overview=name == "html")
    del run  # only the HTML page reads the run again (see commands/aggregate.py)
    emit(name, result, output, force)
    if fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")
