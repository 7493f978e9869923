"""Event selection for ``afp events``: filters by type, stage, subflow path and commit position."""

from __future__ import annotations

import fnmatch

from agentbisect.core.errors import UsageError
from agentbisect.core.options import AT, STAGE, SUBFLOW_PATH, TYPES
from agentbisect.core.suggest import say_nearest
from agentbisect.model.run import Run
from agentbisect.results import EventsResult, StepGraphResult
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
            raise UsageError(f"{AT.flag} needs a commit axis, and this recording has none (legacy)")
        build = run.index_build
        members = {i for r in run.index.enclosing(at) for i in build.events_of(r)}
        idx = [i for i in idx if i in members]
    filtered = bool(types) or stage is not None or path is not None or at is not None
    notes = _nothing_matched(run, types, stage, path, at) if filtered and not idx else []
    if limit is not None:
        idx = idx[:limit]
    return EventsResult(
        file=lo.file,
        total=len(evs),
        indices=idx,
        events=[evs[i] for i in idx],
        all_raws=lo.domain.raws,
        lean=lo.mode == "lean",
        flags=run.flags,
        notes=notes,
    )


def _nothing_matched(
    run: Run, types: list[str] | None, stage: str | None, path: str | None, at: float | None
) -> list[str]:
    """Why no event was selected: each filter that matches nothing on its own, with the nearest
    names the run does have (a typo such as ``llm_end`` for ``llm.end`` must not pass silently)."""
    evs = run.events
    notes: list[str] = []
    known_types = sorted({e.type for e in evs})
    for pattern in types or []:
        if not any(fnmatch.fnmatchcase(t, pattern) for t in known_types):
            notes.append(
                f"{TYPES.flag} {pattern}: no event of this type; "
                + say_nearest(pattern, known_types, "event type")
            )
    if stage is not None:
        ids = [r for e in evs if isinstance(r := getattr(e, "runtimeStageId", None), str)]
        if stage not in ids:
            notes.append(
                f"{STAGE.flag} {stage}: no event has this runtimeStageId; "
                + say_nearest(stage, ids, "step id")
            )
    if path is not None:
        paths = [
            "/".join(e.path[1:]) for e in evs if not isinstance(e, OtherEvent) and len(e.path) > 1
        ]
        want = "/".join(s for s in path.strip("/").split("/") if s and s != "__root__")
        if not any(p == want or p.startswith(want + "/") for p in paths):
            notes.append(
                f"{SUBFLOW_PATH.flag} {path}: no event under this subflow path; "
                + say_nearest(want, paths, "subflow path")
            )
    if at is not None and not run.index.enclosing(at):
        ranges = run.index.all()
        top = max(
            (r.endIdx if isinstance(r.endIdx, int | float) else r.startIdx for r in ranges),
            default=0,
        )
        notes.append(
            f"{AT.flag} {at:g}: no boundary range encloses this commit position "
            f"(the ranges span 0..{top:g})"
        )
    if not notes:
        notes.append("no event matched all the filters together (each matches some on its own)")
    return notes


def step_graph(run: Run) -> StepGraphResult:
    """The run's step graph (``afp events``' step-graph option)."""
    return StepGraphResult(run.step_graph.to_json(), run.loaded.mode == "lean", run.flags)
