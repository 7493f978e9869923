"""``afp aggregate``: per-boundary rollups, the whole-run row, the boundary index and strip."""

from __future__ import annotations

from typing import Any

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import FILE_ARG, JSON_OPT, VERBOSE_OPT
from agentbisect.errors import UsageError

# Heavy modules (rich, numpy, the run model) are imported inside the command: `afp` starts for
# every command and `--help`, and CI runs it thousands of times.


@app.command("aggregate")
@guarded
def aggregate(
    file: str = FILE_ARG,
    show_all: bool = typer.Option(
        False, "--all", help="Also show all-zero agent-internal rollups and every index range."
    ),
    drill: str | None = typer.Option(
        None, "--drill", help="Show the step strip inside this group (a runtimeStageId)."
    ),
    as_json: bool = JSON_OPT,
    verbose: bool = VERBOSE_OPT,
) -> None:
    """Rollups per boundary (tokens, LLM calls, tool calls, iterations, durations), plus a
    whole-run row, the rebuilt boundary index and the step strip.

    Upstream attributes events to a boundary by stored subflow path, so nested boundaries count
    toward every ancestor and a top-level agent's calls land only in the Run row; `iterations`
    counts loop back-edges under the boundary's path (0 on real recordings, whose loop events
    carry the root path).
    """
    from agentbisect.cli.common import load_run
    from agentbisect.render.console import write_json

    run = load_run(file, verbose)
    if drill is not None and not any(g.runtimeGroupId == drill for g in run.groups):
        raise UsageError(f"--drill {drill!r}: no such group in the boundary index")
    if as_json:
        doc: dict[str, Any] = {
            "source": run.source(),
            "run": run.run_row,
            "aggregates": run.aggregates,
            "index": run.index.all(),
            "strip": run.step_strip(drill),
            "honestyFlags": run.flags,
        }
        write_json(doc)
        return
    from agentbisect.render.aggregate import (
        flags_block,
        hidden_internal,
        index_tree,
        rollup_table,
        strip_table,
    )
    from agentbisect.schema.events import SubflowEntry

    internal = {
        e.runtimeStageId
        for e in run.events
        if isinstance(e, SubflowEntry) and e.isAgentInternal is True
    }
    aggs = run.aggregates
    rollup_table(run.run_row, aggs, hidden_internal(aggs, internal), show_all)  # type: ignore[arg-type]
    ranges = run.index.all()
    parents = {
        g.runtimeGroupId: g.parentGroupId for g in run.groups if isinstance(g.parentGroupId, str)
    }
    index_tree(ranges, parents, None if show_all else 60)
    strip_table(run.step_strip(drill))
    flags_block(run.flags)
