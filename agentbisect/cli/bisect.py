"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
The work is ``agentbisect.bisect.api.bisect_run``; this module parses options and renders.
"""

from __future__ import annotations

from enum import StrEnum

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import format_option, pick_format
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT, check_output, emit
from agentbisect.errors import GateTripped, UsageError
from agentbisect.honesty import FLAGS
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


class Ranking(StrEnum):
    evidence_first = "evidence-first"
    upstream = "upstream"


@app.command("bisect")
@guarded
def bisect(
    file: str = typer.Argument(..., help="Recording (path, '-' for stdin, gzip ok)."),
    at_step: str | None = typer.Option(
        None, "--at-step", help="Trigger: the runtimeStageId of the step that went wrong."
    ),
    at_llm: int | None = typer.Option(
        None, "--at-llm", help="Trigger: the N-th LLM call (0-based; -1 = the last)."
    ),
    control_deps: str | None = typer.Option(
        None, "--control-deps", help="JSON map runtimeStageId -> {deciderId, label?}."
    ),
    max_depth: int = typer.Option(DEFAULT_MAX_DEPTH, "--max-depth", min=0),
    max_nodes: int = typer.Option(DEFAULT_MAX_NODES, "--max-nodes", min=1),
    max_suspects: int = typer.Option(DEFAULT_MAX_SUSPECTS, "--max-suspects", min=0),
    embedder: str | None = typer.Option(
        None,
        "--embedder",
        help="mock | wordllama | cmd:COMMAND (JSON texts on stdin, one vector each on stdout). "
        "Default: wordllama when the embed extra is installed, else mock.",
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
        help="The right answer (TEXT or @FILE): evidence scores become contrastive.",
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Neither read nor write the on-disk vector cache."
    ),
    scorer: str = typer.Option(
        "semantic-alignment", "--scorer", help="semantic-alignment or lexical-overlap."
    ),
    rerun: str | None = typer.Option(
        None, "--rerun", help="Causal mode: command run once per probe and seed (argv, no shell)."
    ),
    samples: int = typer.Option(3, "--samples", min=2, help="Seeded reruns per probe."),
    original_output: str | None = typer.Option(
        None, "--original-output", help="The wrong answer (TEXT or @FILE); default: the run's."
    ),
    comparator: str = typer.Option(
        "similarity", "--comparator", help="similarity | contains:WORD | regex:PATTERN."
    ),
    flip_threshold: float = typer.Option(DEFAULT_FLIP_THRESHOLD, "--flip-threshold"),
    max_ablations: int = typer.Option(5, "--max-ablations", min=0),
    culprits: bool = typer.Option(False, "--culprits", help="Also run the multi-culprit search."),
    missing_context: str | None = typer.Option(
        None, "--missing-context", help='JSON {"available": [...], "sent": [...]}.'
    ),
    jobs: int = typer.Option(1, "--jobs", min=1, help="Parallel reruns per probe."),
    rerun_timeout: float = typer.Option(
        300.0, "--rerun-timeout", min=0.001, help="Seconds before a rerun is killed."
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
        DEFAULT_MASKS, "--masks", min=10, help="Ablation masks (= reruns) for the surrogate."
    ),
    keep_prob: float = typer.Option(
        DEFAULT_KEEP_PROB, "--keep-prob", help="Chance each source is kept in a mask (0 < P < 1)."
    ),
    mask_seed: int = typer.Option(0, "--mask-seed", help="Seed of the mask draw."),
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
    as_json: bool = typer.Option(False, "--json", help="Shorthand for --format json."),
    upstream: bool = typer.Option(
        False,
        "--upstream",
        help="Exactly the upstream library's report: mock embedder, upstream ranking, its "
        "honesty flags only, no afp fields.",
    ),
    fail_on: list[str] = typer.Option(
        [], "--fail-on", help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable."
    ),
) -> None:
    """Localize the context behind a wrong agent step (correlational; causal with --rerun)."""
    name = pick_format(fmt, "json" if as_json else None, "--json", "table")
    for flag_name in fail_on:
        if flag_name != "any" and flag_name not in FLAGS:
            raise UsageError(
                f"--fail-on {flag_name}: not a flag; choose from any, {', '.join(FLAGS)}"
            )
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
        scorer=scorer,
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
    run = load_run(file, False)
    # the surrogate's reruns are known in advance: its baseline and one per mask
    total = samples + masks if attribution is not None else None
    with rerun_progress(enabled=rerun is not None, total=total) as on_call:
        result = bisect_run(run, opts, on_call=on_call)
    emit(name, result, output, force)
    if fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")
