"""Event selection for ``afp events``: filters by type, stage, subflow path and commit position."""

from __future__ import annotations

import fnmatch

from agentbisect.errors import UsageError
from agentbisect.results import EventsResult, StepGraphResult
from agentbisect.run import Run
from agentbisect.schema.events import OtherEvent


def select_events(
    run: Run,
    *,
    types: list[str] | None = None,
    stage: str | None = None,
    path: str | None = None,
    at: float | None = None,
    limit: int | None = None,
) -> EventsResult:
    """The run's domain events that pass every filter given (``types`` are glob patterns)."""
    lo = run.loaded
    if lo.domain is None:
        raise UsageError(f"{lo.file}: the recording has no domain events to list")
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
        build = run.index_build
        members = {i for r in run.index.enclosing(at) for i in build.events_of(r)}
        idx = [i for i in idx if i in members]
    if limit is not None:
        idx = idx[:limit]
    raws = lo.domain.raws()
    return EventsResult(
        file=lo.file,
        total=len(evs),
        indices=idx,
        events=[evs[i] for i in idx],
        raws=[raws[i] for i in idx],
        lean=lo.mode == "lean",
        flags=run.flags,
    )


def step_graph(run: Run) -> StepGraphResult:
    """The run's step graph (``afp events --steps``)."""
    return StepGraphResult(run.step_graph.to_json(), run.loaded.mode == "lean", run.flags)
