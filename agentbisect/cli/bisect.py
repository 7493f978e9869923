"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
The work is ``agentbisect.bisect.api.bisect_run``; this module parses options and renders.
"""

from __future__ import annotations

from enum import StrEnum

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import (
    FILE_ARG,
    JSON_OPT,
    LOGS_OPT,
    TRACE_ID_OPT,
    VERBOSE_OPT,
    format_option,
    import_options,
    pick_json_format,
)
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT, check_output, emit
from agentbisect.errors import GateTripped
from agentbisect.render.formats import BisectFormat

# Option defaults, the values of agentbisect.bisect.localize.DEFAULTS and
# agentbisect.bisect.causal.DEFAULT_FLIP_THRESHOLD: copied because typer needs them when this
# module is imported, and importing the library for them would load numpy on every `afp` call
# (tests/test_cli_defaults.py checks that they are equal).
DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_NODES = 80
DEFAULT_MAX_SUSPECTS = 12
DEFAULT_FLIP_THRESHOLD = 0.8
DEFAULT_MASKS = 64  # agentbisect.bisect.surrogate.DEFAULT_MASKS (why 64: see there)
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


@app.command("bisect")
@guarded
def bisect(
    file: str = FILE_ARG,
    at_step: str | None = typer.Option(
        None,
        "--at-step",
        metavar="STEP_ID",
        help="Trigger: the runtimeStageId of the step that went wrong (afp aggregate lists them).",
    ),
    at_llm: int | None = typer.Option(
        None, "--at-llm", metavar="N", help="Trigger: the N-th LLM call (0-based; -1 = the last)."
    ),
    control_deps: str | None = typer.Option(
        None,
        "--control-deps",
        metavar="FILE",
        help="JSON map runtimeStageId -> {deciderId, label?}: the decisions that routed each step.",
    ),
    max_depth: int = typer.Option(
        DEFAULT_MAX_DEPTH,
        "--max-depth",
        min=0,
        metavar="N",
        help="Slice budget: follow causes at most N hops back from the trigger.",
    ),
    max_nodes: int = typer.Option(
        DEFAULT_MAX_NODES,
        "--max-nodes",
        min=1,
        metavar="N",
        help="Slice budget: at most N steps in the backward slice.",
    ),
    max_suspects: int = typer.Option(
        DEFAULT_MAX_SUSPECTS,
        "--max-suspects",
        min=0,
        metavar="N",
        help="Report at most N suspects (content-backed ones are kept before structure-only).",
    ),
    embedder: str | None = typer.Option(
        None,
        "--embedder",
        metavar="mock|wordllama|cmd:COMMAND",
        help="Text embedder for content scores (cmd: JSON texts on stdin, one vector each on "
        "stdout). Default: wordllama when the embed extra is installed, else mock.",
    ),
    ranking: Ranking | None = typer.Option(
        None,
        "--ranking",
        help="evidence-first (default: suspects whose own text backs the answer first) or "
        "upstream (path × semantic score).",
    ),
    expected: str | None = typer.Option(
        None,
        "--expected",
        metavar="TEXT|@FILE",
        help="The right answer: evidence scores become contrastive (what the two answers "
        "disagree on).",
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Neither read nor write the on-disk vector cache."
    ),
    scorer: Scorer = typer.Option(
        Scorer.semantic_alignment, "--scorer", help="How suspects' content is scored."
    ),
    rerun: str | None = typer.Option(
        None,
        "--rerun",
        metavar="CMD",
        help="Causal mode: run CMD once per probe and seed (split like a shell, run without one).",
    ),
    samples: int = typer.Option(
        3, "--samples", min=2, metavar="N", help="Seeded reruns per probe."
    ),
    original_output: str | None = typer.Option(
        None,
        "--original-output",
        metavar="TEXT|@FILE",
        help="The wrong answer to compare reruns with; default: the run's final answer.",
    ),
    comparator: str = typer.Option(
        "similarity",
        "--comparator",
        metavar="similarity|contains:WORD|regex:PATTERN",
        help="When a rerun's answer counts as changed.",
    ),
    flip_threshold: float = typer.Option(
        DEFAULT_FLIP_THRESHOLD,
        "--flip-threshold",
        metavar="R",
        help="similarity comparator: an answer less similar than R to the original flipped.",
    ),
    max_ablations: int = typer.Option(
        5, "--max-ablations", min=0, metavar="N", help="Rerun-test at most the top N suspects."
    ),
    culprits: bool = typer.Option(
        False, "--culprits", help="Also search for the set of suspects that together flip it."
    ),
    missing_context: str | None = typer.Option(
        None,
        "--missing-context",
        metavar="FILE",
        help='JSON {"available": [{id, content?}], "sent": [{id}]}: test what was never sent.',
    ),
    jobs: int = typer.Option(1, "--jobs", min=1, metavar="N", help="Parallel reruns per probe."),
    rerun_timeout: float = typer.Option(
        300.0,
        "--rerun-timeout",
        min=0.001,
        metavar="SECONDS",
        help="Kill a rerun (and its process group) after SECONDS.",
    ),
    attribution: Attribution | None = typer.Option(
        None,
        "--attribution",
        help=(
            "surrogate: rerun once per random ablation mask and fit a sparse linear model; "
            "a weight per source, sets that act together (needs --rerun; not with --upstream)."
        ),
    ),
    masks: int = typer.Option(
        DEFAULT_MASKS,
        "--masks",
        min=10,
        metavar="N",
        help="Ablation masks (= reruns) for the surrogate.",
    ),
    keep_prob: float = typer.Option(
        DEFAULT_KEEP_PROB,
        "--keep-prob",
        metavar="P",
        help="Chance each source is kept in a mask (0 < P < 1).",
    ),
    mask_seed: int = typer.Option(0, "--mask-seed", metavar="SEED", help="Seed of the mask draw."),
    attribution_score: AttributionScore = typer.Option(
        AttributionScore.flip,
        "--attribution-score",
        help="What the surrogate fits: flip (the comparator, 0/1) or similarity (1 − cosine).",
    ),
    fmt: BisectFormat | None = format_option(
        BisectFormat,
        "table (default), json, text (upstream's plain-text rendering), or html (a "
        "self-contained page; with -o).",
    ),
    output: str | None = OUTPUT_OPT,
    force: bool = FORCE_OPT,
    as_json: bool = JSON_OPT,
    upstream: bool = typer.Option(
        False,
        "--upstream",
        help="Exactly the upstream library's report: mock embedder, upstream ranking, its "
        "honesty flags only, no afp fields.",
    ),
    verbose: bool = VERBOSE_OPT,
    fail_on: list[str] = typer.Option(
        [],
        "--fail-on",
        metavar="FLAG",
        help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable.",
    ),
    trace_id: str | None = TRACE_ID_OPT,
    logs: list[str] | None = LOGS_OPT,
) -> None:
    """Localize the context behind a wrong agent step (correlational; causal with --rerun).

    Ranks the context that flowed into the trigger step (tool results, injections, earlier
    steps) by a correlational proxy score; only --rerun verdicts are causal claims.

    Examples:

    \b
      afp bisect run.json --at-llm -1                 # the last LLM call
      afp bisect run.json --at-step call-llm#40 --format text
      afp bisect run.json --at-llm -1 --json --fail-on slice-truncated
      afp bisect run.json --at-step call-llm#40 --rerun './replay.sh' --comparator contains:refund
    """
    name = pick_json_format(fmt, as_json)
    from agentbisect.bisect.api import BisectOptions, bisect_run, check_options
    from agentbisect.cli.common import load_run
    from agentbisect.render.progress import rerun_progress

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
    # The surrogate's reruns are known in advance (its baseline and one per mask); leave-one-out
    # runs a baseline and at most --max-ablations probes, each --samples reruns.
    total, at_most = None, False
    if attribution is not None:
        total = samples + masks
    elif not culprits and missing_context is None:
        total, at_most = samples * (1 + max_ablations), True
    with rerun_progress(enabled=rerun is not None, total=total, at_most=at_most) as on_call:
        result = bisect_run(run, opts, on_call=on_call)
    emit(name, result, output, force)
    if fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")
