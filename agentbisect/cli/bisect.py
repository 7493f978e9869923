"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
This module declares the options for typer; the body is ``agentbisect.commands.bisect.run``.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import (
    FILE_ARG,
    JSON_OPT,
    LOGS_OPT,
    TRACE_ID_OPT,
    VERBOSE_OPT,
    format_option,
)
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT
from agentbisect.commands import bisect as body
from agentbisect.commands.bisect import (
    DEFAULT_FLIP_THRESHOLD,
    DEFAULT_KEEP_PROB,
    DEFAULT_MASKS,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_NODES,
    DEFAULT_MAX_SUSPECTS,
    Attribution,
    AttributionScore,
    Ranking,
    Scorer,
)
from agentbisect.render.formats import BisectFormat


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
    # The parameters are exactly the body's keyword arguments.
    body.run(**locals())
