"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
The work is ``agentbisect.bisect.api.bisect_run``; this module parses options and renders.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import VERBOSE_OPT, format_option, pick_format
from agentbisect.errors import GateTripped, UsageError
from agentbisect.render.formats import BisectFormat

# Option defaults, the values of agentbisect.bisect.localize.DEFAULTS and
# agentbisect.bisect.causal.DEFAULT_FLIP_THRESHOLD: copied because typer needs them when this
# module is imported, and importing the library for them would load numpy on every `afp` call
# (tests/test_cli_defaults.py checks that they are equal).
DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_NODES = 80
DEFAULT_MAX_SUSPECTS = 12
DEFAULT_FLIP_THRESHOLD = 0.8


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
    embedder: str = typer.Option("mock", "--embedder", help="Embedder (only 'mock')."),
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
    fmt: BisectFormat | None = format_option(
        BisectFormat, "table (default), json, or text (upstream's plain-text rendering)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Shorthand for --format json."),
    upstream: bool = typer.Option(
        False,
        "--upstream",
        help="Exactly the upstream library's report: its honesty flags only, no afp fields.",
    ),
    verbose: bool = VERBOSE_OPT,
    fail_on: list[str] = typer.Option(
        [], "--fail-on", help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable."
    ),
) -> None:
    """Localize the context behind a wrong agent step (correlational; causal with --rerun)."""
    if embedder != "mock":
        raise UsageError("--embedder: only 'mock' is available (upstream parity is defined for it)")
    name = pick_format(fmt, "json" if as_json else None, "--json", "table")
    from agentbisect.bisect.api import BisectOptions, bisect_run, check_options
    from agentbisect.cli.common import load_run
    from agentbisect.render import get_renderer
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
        fail_on=fail_on,
    )
    check_options(opts)
    run = load_run(file, verbose)
    with rerun_progress(enabled=rerun is not None) as on_call:
        result = bisect_run(run, opts, on_call=on_call)
    get_renderer(name).render(result)
    if fail_on:
        raised = [f.flag for f in result.report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")
