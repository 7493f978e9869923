"""``afp bisect``: localize the context that made an agent step go wrong (bisect.md).

Correlational by default (proxies only); with ``--rerun CMD`` every probe is rerun and judged, and
only those verdicts are causal. ``--fail-on FLAG`` turns honesty flags into a CI gate (exit 1).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.errors import GateTripped, InputError, UsageError
from agentbisect.honesty import FLAGS

# The bisect library (numpy), rich and the schemas are imported inside the functions that use
# them: every `afp` call imports this module, and start-up cost is paid thousands of times in CI.
if TYPE_CHECKING:
    from agentbisect.bisect.artifacts import Artifacts
    from agentbisect.bisect.causal import Comparator, MissingContext, RerunOptions
    from agentbisect.bisect.localize import TriggerError
    from agentbisect.bisect.rerun import CommandRunner

# Option defaults, the values of agentbisect.bisect.localize.DEFAULTS and
# agentbisect.bisect.causal.DEFAULT_FLIP_THRESHOLD: copied because typer needs them when this
# module is imported, and importing the library for them would load numpy on every `afp` call.
DEFAULT_MAX_DEPTH = 12
DEFAULT_MAX_NODES = 80
DEFAULT_MAX_SUSPECTS = 12
DEFAULT_FLIP_THRESHOLD = 0.8


def _read_json_file(path: str, what: str) -> Any:
    import msgspec

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
        if name != "any" and name not in FLAGS:
            raise UsageError(f"--fail-on {name}: not a flag; choose from any, {', '.join(FLAGS)}")
    if culprits and rerun is None:
        raise UsageError("--culprits needs --rerun")
    compare = _comparator(comparator)

    from agentbisect.bisect.artifacts import artifacts_from_loaded, control_deps_from_json
    from agentbisect.bisect.causal import MissingContext, RerunOptions, bisect_culprits
    from agentbisect.bisect.embed import EmbeddingCache, MockEmbedder
    from agentbisect.bisect.localize import TriggerError, localize
    from agentbisect.bisect.rerun import CommandRunner
    from agentbisect.load import load

    loaded = load(file)
    deps = None
    if control_deps is not None:
        deps = control_deps_from_json(_read_json_file(control_deps, "control-deps"), control_deps)
    art = artifacts_from_loaded(loaded, control_deps=deps)
    if art.warnings:
        from rich.text import Text

        from agentbisect.render.console import stderr_console

        for w in art.warnings:
            stderr_console().print(Text("afp: warning: " + w))
    step = _resolve_step(art, at_step, at_llm)

    emb = EmbeddingCache(MockEmbedder())
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
                from rich.text import Text

                from agentbisect.render.console import stderr_console, stderr_is_terminal

                err = stderr_console()
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
        from agentbisect.bisect.report import report_json
        from agentbisect.render.console import write_bytes

        write_bytes((report_json(report, indent=2) + "\n").encode("utf-8", "surrogatepass"))
    elif fmt == "text":
        from agentbisect.bisect.render_text import format_report
        from agentbisect.render.console import write_bytes

        write_bytes((format_report(report) + "\n").encode("utf-8", "surrogatepass"))
    else:
        from agentbisect.render.bisect import render_report

        render_report(report)

    if fail_on:
        raised = [f.flag for f in report.honestyFlags]
        hit = sorted({f for f in raised if "any" in fail_on or f in fail_on})
        if hit:
            raise GateTripped(f"gate tripped (--fail-on): honesty flag(s) raised: {', '.join(hit)}")


def clean_probe(probe: str) -> str:
    return probe if len(probe) <= 40 else probe[:39] + "…"
