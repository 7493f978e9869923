"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import msgspec
import typer
from msgspec import UNSET
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from agentbisect.bisect.ablation import suspect_label
from agentbisect.bisect.artifacts import Artifacts, artifacts_from_loaded, control_deps_from_json
from agentbisect.bisect.causal import (
    DEFAULT_FLIP_THRESHOLD,
    Comparator,
    MissingContext,
    RerunOptions,
    bisect_culprits,
    classify_suspect,
)
from agentbisect.bisect.embed import EmbeddingCache, MockEmbedder
from agentbisect.bisect.jsjson import to_fixed
from agentbisect.bisect.localize import DEFAULTS, TriggerError, localize
from agentbisect.bisect.render_text import format_report, hop_text
from agentbisect.bisect.report import AblationRunStats, ContextBugReport, report_json
from agentbisect.bisect.rerun import CommandRunner
from agentbisect.cli.app import app, guarded
from agentbisect.errors import GateTripped, InputError, UsageError
from agentbisect.load import load
from agentbisect.render.console import (
    stderr_console,
    stderr_is_terminal,
    stdout_console,
    write_bytes,
)
from agentbisect.render.text import safe

FLAG_NAMES = (
    "slice-truncated",
    "untracked-sources",
    "no-control-deps",
    "no-read-tracking",
    "no-llm-call-ids",
    "baseline-unstable",
)


def _read_json_file(path: str, what: str) -> Any:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the {what} file ({exc.strerror or exc})") from None
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc})") from None


def _comparator(spec: str) -> Comparator | None:
    if spec == "similarity":
        return None
    if spec.startswith("contains:") and len(spec) > len("contains:"):
        word = spec[len("contains:") :]
        return lambda a, b: (word in a) != (word in b)
    if spec.startswith("regex:") and len(spec) > len("regex:"):
        try:
            rx = re.compile(spec[len("regex:") :])
        except re.error as exc:
            raise UsageError(f"--comparator: bad regular expression ({exc})") from None
        return lambda a, b: bool(rx.search(a)) != bool(rx.search(b))
    raise UsageError("--comparator must be similarity, contains:WORD or regex:PATTERN")


def _original_output(value: str | None, art: Artifacts) -> str:
    if value is None:
        if art.final_answer is None:
            raise UsageError(
                "the recording carries no final answer (no turn_end/llm_end content): "
                "pass --original-output TEXT or @FILE"
            )
        return art.final_answer
    if value.startswith("@"):
        try:
            return Path(value[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--original-output: cannot read {value[1:]} ({exc})") from None
    return value


def _missing_context(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    obj = _read_json_file(path, "missing-context")
    if not isinstance(obj, dict):
        raise InputError(path, 'expected {"available": [{"id", "content"?}], "sent": [{"id"}]}')
    lists: list[list[dict[str, Any]]] = []
    for key in ("available", "sent"):
        items = obj.get(key, [])
        if not isinstance(items, list):
            raise InputError(path, "expected an array", f"$.{key}")
        for i, u in enumerate(items):
            if not isinstance(u, dict) or not isinstance(u.get("id"), str):
                raise InputError(path, 'expected {"id": string, "content"?}', f"$.{key}[{i}]")
        lists.append(items)
    return lists[0], lists[1]


def _resolve_step(art: Artifacts, at_step: str | None, at_llm: int | None) -> str | None:
    if at_step is not None and at_llm is not None:
        raise UsageError("give --at-step or --at-llm, not both")
    if at_llm is None:
        return at_step
    ids = art.llm_call_ids
    if not ids:
        raise UsageError("--at-llm: the recording has no LLM calls (no llm_start events)")
    if not -len(ids) <= at_llm < len(ids):
        raise UsageError(
            f"--at-llm {at_llm}: the recording has {len(ids)} LLM call(s) "
            f"(0..{len(ids) - 1}, or -1 for the last): {', '.join(ids)}"
        )
    return ids[at_llm]


def _trigger_error(exc: TriggerError, art: Artifacts) -> UsageError:
    ids = art.llm_call_ids
    msg = exc.message.removeprefix("localize: ")
    if ids:
        top = [i for i in ids if i in art.log.last_idx]
        msg += f". LLM-call ids in this recording: {', '.join(ids)}"
        if not top:
            msg += (
                " (none of them committed at the top level: inside a composition only "
                "top-level steps can be localized)"
            )
        elif len(top) < len(ids):
            msg += f"; of these, in the commit log: {', '.join(top)}"
    else:
        msg += ". The recording has no LLM-call ids (no llm_start events)"
    return UsageError(msg)


# ------------------------------------------------------------------------- terminal rendering


def _stats_text(b: AblationRunStats) -> str:
    s = b.similarity
    return (
        f"{b.flips}/{b.samples} flipped · similarity {to_fixed(s.mean, 3)} ± "
        f"{to_fixed(s.stdev, 3)} [{to_fixed(s.min, 3)}, {to_fixed(s.max, 3)}]"
    )


def _render_terminal(r: ContextBugReport) -> None:
    con = stdout_console()
    causal = r.mode == "causal"
    banner = (
        "CAUSAL — verdicts are the only causal claims"
        if causal
        else "CORRELATIONAL — proxies only, no causal claim"
    )
    head = Text()
    head.append(banner, style="bold green" if causal else "bold yellow")
    head.append("\ntrigger ")
    head.append_text(safe(r.step, "bold"))
    head.append(" ")
    head.append_text(safe(r.stepName if r.stepName is not UNSET else "?"))
    head.append(f" ({r.triggerSource}")
    if r.triggerScore is not UNSET:
        head.append(f", score {to_fixed(r.triggerScore, 2)}")  # type: ignore[arg-type]
    head.append(f") · ranked by {r.rankedBy}")
    st = r.sliceStats
    head.append(
        f"\nslice: {st.nodes} nodes · {st.dataEdges} data · {st.controlEdges} control · "
        f"{st.weightedEdges} influence-weighted edges (budgets depth {st.maxDepth}, "
        f"nodes {st.maxNodes})"
    )
    con.print(Panel(head, title="afp bisect", expand=False))

    table = Table(title=f"Suspects ({len(r.suspects)})", show_lines=False)
    for col, just in (
        ("#", "right"),
        ("kind", "left"),
        ("identity", "left"),
        ("stage", "left"),
        ("score", "right"),
        ("path", "right"),
        ("content", "right"),
        ("verdict", "left"),
        ("flips", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for i, s in enumerate(r.suspects, 1):
        upper = s.semanticScore is UNSET
        score = Text(to_fixed(s.score, 3))
        if upper:
            score.append(" ≤", style="dim")  # path-only: an upper bound
        ident = suspect_label(s).split(" ", 1)[1].strip("'")
        verdict = Text("—", style="dim")
        flips = ""
        if s.verdict is not UNSET:
            v = s.verdict.verdict  # type: ignore[union-attr]
            style = {"confirmed": "bold red", "inconclusive": "yellow"}.get(v, "green")
            verdict = Text(v, style=style)
            if s.cost is not UNSET:
                verdict.append(f" ({classify_suspect(s)})", style="dim")
        if s.runs is not UNSET:
            flips = f"{s.runs.flips}/{s.runs.samples}"  # type: ignore[union-attr]
        table.add_row(
            str(i),
            s.kind,
            safe(ident),
            Text.assemble(safe(s.source), " ", safe(s.stageName or "", "dim")),
            score,
            to_fixed(s.structuralScore, 3),
            "—" if upper else to_fixed(s.semanticScore, 3),  # type: ignore[arg-type]
            verdict,
            flips,
        )
    con.print(table)
    if any(s.semanticScore is UNSET for s in r.suspects):
        con.print(Text("≤ path-only score: no content signal, so it is an upper bound", "dim"))

    if r.suspects:
        tree = Tree(Text("Evidence paths (trigger first)", style="bold"))
        for i, s in enumerate(r.suspects, 1):
            branch = tree.add(
                Text.assemble(f"{i}. ", safe(suspect_label(s)), " at ", safe(s.source))
            )
            node = branch.add(safe(s.edgePath[0].from_ if s.edgePath else s.source))
            for h in s.edgePath:
                node = node.add(safe(hop_text(h)))
            if s.verdict is not UNSET:
                branch.add(safe(s.verdict.claim, "italic"))  # type: ignore[union-attr]
        con.print(tree)

    if r.dropped is not UNSET and r.dropped:
        dt = Table(title="Missing context (available, never sent)")
        dt.add_column("#", justify="right")
        dt.add_column("id")
        dt.add_column("verdict")
        dt.add_column("runs")
        for i, c in enumerate(r.dropped, 1):  # type: ignore[arg-type]
            dt.add_row(
                str(i),
                safe(c.id),
                c.verdict.verdict if c.verdict is not UNSET else "—",  # type: ignore[union-attr]
                _stats_text(c.runs) if c.runs is not UNSET else "",  # type: ignore[arg-type]
            )
        con.print(dt)
    if r.baseline is not UNSET:
        con.print(Text("baseline (no ablation): " + _stats_text(r.baseline)))  # type: ignore[arg-type]
    if r.restorationBaseline is not UNSET:
        con.print(
            Text("baseline (no restoration): " + _stats_text(r.restorationBaseline))  # type: ignore[arg-type]
        )
    if r.culprits is not UNSET:
        c = r.culprits
        line = Text(f"culprit search: {c.verdict}", style="bold")  # type: ignore[union-attr]
        for grp in c.culprits:  # type: ignore[union-attr]
            line.append("\n  • ")
            line.append_text(safe(" + ".join(x.label for x in grp)))
        line.append(
            f"\n  {len(c.probes)} probe(s), {c.runsUsed} rerun(s)"  # type: ignore[union-attr]
        )
        con.print(line)
    if r.honestyFlags:
        body = Text()
        for j, fl in enumerate(r.honestyFlags):
            if j:
                body.append("\n")
            body.append(f"⚠ [{fl.flag}] ", style="bold yellow")
            body.append_text(safe(fl.note))
        con.print(Panel(body, title="Honesty", expand=False, border_style="yellow"))
    else:
        con.print(Panel(Text("no honesty flags"), title="Honesty", expand=False))


# ------------------------------------------------------------------------- the command


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
    max_depth: int = typer.Option(DEFAULTS["maxDepth"], "--max-depth", min=0),
    max_nodes: int = typer.Option(DEFAULTS["maxNodes"], "--max-nodes", min=1),
    max_suspects: int = typer.Option(DEFAULTS["maxSuspects"], "--max-suspects", min=0),
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
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    fmt: str | None = typer.Option(None, "--format", help="'text': the plain-text rendering."),
    fail_on: list[str] = typer.Option(
        [], "--fail-on", help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable."
    ),
) -> None:
    """Localize the context behind a wrong agent step (correlational; causal with --rerun)."""
    if embedder != "mock":
        raise UsageError("--embedder: only 'mock' is available (upstream parity is defined for it)")
    if fmt not in (None, "text"):
        raise UsageError("--format: only 'text' is supported")
    if fmt and as_json:
        raise UsageError("give --json or --format text, not both")
    for name in fail_on:
        if name != "any" and name not in FLAG_NAMES:
            raise UsageError(
                f"--fail-on {name}: not a flag; choose from any, {', '.join(FLAG_NAMES)}"
            )
    if culprits and rerun is None:
        raise UsageError("--culprits needs --rerun")
    compare = _comparator(comparator)

    loaded = load(file)
    deps = None
    if control_deps is not None:
        deps = control_deps_from_json(_read_json_file(control_deps, "control-deps"), control_deps)
    art = artifacts_from_loaded(loaded, control_deps=deps)
    for w in art.warnings:
        stderr_console().print(Text("afp: warning: " + w))
    step = _resolve_step(art, at_step, at_llm)

    emb = EmbeddingCache(MockEmbedder())
    err = stderr_console()
    progress = None
    runner: CommandRunner | None = None
    rerun_opts: RerunOptions | None = None
    mc: MissingContext | None = None
    try:
        if rerun is not None or missing_context is not None:
            original = _original_output(original_output, art) if rerun is not None else ""
            if rerun is not None:
                argv = shlex.split(rerun)
                if not argv:
                    raise UsageError("--rerun: empty command")
                if compare is None:
                    err.print(
                        Text(
                            "afp: warning: the similarity comparator with the mock embedder "
                            "rarely flips (letter-frequency cosine); prefer --comparator "
                            "contains:WORD",
                            style="yellow",
                        )
                    )
                on_call = None
                if stderr_is_terminal():
                    from rich.progress import Progress, SpinnerColumn, TextColumn

                    progress = Progress(
                        SpinnerColumn(),
                        TextColumn("{task.description}"),
                        TextColumn("{task.completed} rerun(s)"),
                        console=err,
                        transient=True,
                    )
                    task = progress.add_task("reruns", total=None)
                    progress.start()

                    def on_call(probe: str, seed: int) -> None:
                        assert progress is not None
                        progress.update(
                            task, advance=1, description=f"probe {clean_probe(probe)} seed {seed}"
                        )

                runner = CommandRunner(
                    argv, step or "", timeout=rerun_timeout, jobs=jobs, on_call=on_call
                )
                rerun_opts = RerunOptions(
                    runner=runner,
                    original_output=original,
                    samples=samples,
                    flip_threshold=flip_threshold,
                    outcome_changed=compare,
                    max_suspects=max_ablations,
                )
            if missing_context is not None:
                available, sent = _missing_context(missing_context)
                mc = MissingContext(
                    available=available,
                    sent=sent,
                    runner=runner,
                    original_output=original,
                    samples=samples,
                    flip_threshold=flip_threshold,
                    outcome_changed=compare,
                )
        if runner is not None and step is None and art.quality_lowest is not None:
            runner.step = art.quality_lowest.runtimeStageId
        try:
            report = localize(
                art,
                at_step=step,
                embedder=emb,
                max_depth=max_depth,
                max_nodes=max_nodes,
                max_suspects=max_suspects,
                scorer=scorer,
                rerun=rerun_opts,
                missing_context=mc,
            )
        except TriggerError as exc:
            raise _trigger_error(exc, art) from None
        if culprits and rerun_opts is not None:
            report.culprits = bisect_culprits(report.suspects, rerun_opts, emb)
    finally:
        if progress is not None:
            progress.stop()
        if runner is not None:
            runner.kill_all()

    if as_json:
        write_bytes((report_json(report, indent=2) + "\n").encode("utf-8", "surrogatepass"))
    elif fmt == "text":
        write_bytes((format_report(report) + "\n").encode("utf-8", "surrogatepass"))
    else:
        _render_terminal(report)

    if fail_on:
        raised = [f.flag for f in report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")


def clean_probe(probe: str) -> str:
    return probe if len(probe) <= 40 else probe[:39] + "…"
