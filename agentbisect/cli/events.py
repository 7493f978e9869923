"""``afp events``: the run's unified domain-event stream (or its step graph)."""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import FILE_ARG, JSON_OPT, VERBOSE_OPT
from agentbisect.errors import UsageError
from agentbisect.schema.events import OtherEvent

if TYPE_CHECKING:
    from agentbisect.run import Run

# Rendering and the run model are imported inside the command to keep `afp` start-up short.


@app.command("events")
@guarded
def events(
    file: str = FILE_ARG,
    types: list[str] = typer.Option(
        [], "--type", "-t", help="Only these types; glob patterns such as 'llm.*'. Repeatable."
    ),
    stage: str | None = typer.Option(None, "--stage", help="Only events of this runtimeStageId."),
    path: str | None = typer.Option(
        None, "--path", help="Only events under this subflow path prefix, e.g. sf-tools or a/b."
    ),
    at: float | None = typer.Option(
        None,
        "--at",
        help="Only the boundary events (entry and exit) of the ranges enclosing this commit "
        "position.",
    ),
    limit: int | None = typer.Option(None, "--limit", min=0, help="At most N events."),
    steps: bool = typer.Option(False, "--steps", help="Print the step graph instead."),
    as_json: bool = JSON_OPT,
    table: bool = typer.Option(False, "--table", help="Force the table even in a pipe."),
    verbose: bool = VERBOSE_OPT,
) -> None:
    """Print the domain-event stream: a table on a terminal, JSON Lines in a pipe or with --json.

    JSON Lines carry each event exactly as recorded (upstream camelCase names, field order and
    any fields from newer producers), so `afp events run.json | jq 'select(.type=="llm.end")'`
    works.
    """
    from agentbisect.cli.common import load_run, warn_flags
    from agentbisect.render.console import stdout_is_terminal
    from agentbisect.render.events import (
        events_jsonl,
        events_table,
        step_graph_json,
        step_graph_table,
    )

    if as_json and table:
        raise UsageError("--json and --table exclude each other")
    run = load_run(file, verbose)
    use_json = as_json or (not table and not stdout_is_terminal())
    lean = run.loaded.mode == "lean"
    if steps:
        graph = run.step_graph.to_json()
        if use_json:
            step_graph_json(graph)
        else:
            step_graph_table(graph, lean)
            warn_flags(run)
        return
    if run.loaded.domain is None:
        warn_flags(run)
        raise UsageError(f"{run.loaded.file}: the recording has no domain events to list")
    picked = _select(run, types, stage, path, at)
    if limit is not None:
        picked = picked[:limit]
    if use_json:
        raws = run.loaded.domain.raws()
        events_jsonl(raws[i] for i in picked)
        warn_flags(run)
    else:
        title = f"{len(picked)} of {len(run.events)} domain events — {run.loaded.file}"
        events_table(((i, run.events[i]) for i in picked), lean, title)
        warn_flags(run)


def _select(
    run: Run, types: list[str], stage: str | None, path: str | None, at: float | None
) -> list[int]:
    evs = run.events
    idx = list(range(len(evs)))
    if types:
        idx = [i for i in idx if any(fnmatch.fnmatchcase(evs[i].type, p) for p in types)]
    if stage is not None:
        idx = [i for i in idx if getattr(evs[i], "runtimeStageId", None) == stage]
    if path is not None:
        want = ["__root__", *[s for s in path.strip("/").split("/") if s and s != "__root__"]]
        n = len(want)
        idx = [
            i
            for i in idx
            if not isinstance(evs[i], OtherEvent) and evs[i].path[:n] == want  # type: ignore[union-attr]
        ]
    if at is not None:
        if run.index_build.legacy:
            raise UsageError("--at needs a commit axis, and this recording has none (legacy)")
        members = _enclosing_events(run, at)
        idx = [i for i in idx if i in members]
    return idx


def _enclosing_events(run: Run, at: float) -> set[int]:
    """Indices of the events that opened or closed a range enclosing commit position ``at``."""
    build = run.index_build
    return {i for r in run.index.enclosing(at) for i in build.events_of(r)}
