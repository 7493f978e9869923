"""``Run``: the one in-memory model of a recording that every analysis reads.

It holds the loaded parts and derives, on first use, the boundary index, groups, step strip, step
graph and rollups. Everything the evidence cannot support is collected as honesty flags here, so
that every renderer shows the same limits.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from msgspec import UNSET

from agentbisect.core.honesty import FLAGS, HonestyFlag, dedupe, flag
from agentbisect.model.commitlog import CommitLog
from agentbisect.model.loaded import (
    Loaded,
    commit_log_step_ids,
    decode_commit_log,
    decode_domain_events,
    decode_execution_tree,
)
from agentbisect.model.steps import (
    ControlDeps,
    QualityEntry,
    final_answer,
    llm_call_ids_from_events,
    quality_lowest,
    reads_from_tree,
    recorded_control_deps,
)
from agentbisect.schema.events import SLOT_PROPS, DomainEvent
from agentbisect.schema.imported import ImportMeta, ImportSummary

T = TypeVar("T")

if TYPE_CHECKING:
    from agentbisect.model.boundary.graph import StepGraph
    from agentbisect.model.boundary.index import CommitRangeIndex
    from agentbisect.model.boundary.rebuild import IndexBuild
    from agentbisect.model.boundary.rollup import BoundaryAggregate, PathTotals
    from agentbisect.model.boundary.strip import Group, Stop


class Run:
    """A loaded recording plus everything derived from it (lazily)."""

    # A plain class with what ``@dataclass`` generated for it (init, repr, eq, unhashable):
    # importing dataclasses (with copy) and generating the methods cost ~1 ms of every start-up.
    __match_args__ = ("loaded",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.__post_init__()

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(loaded={self.loaded!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return (self.loaded,) == (other.loaded,)  # what the dataclass compared
        return NotImplemented

    def __post_init__(self) -> None:
        if not self.loaded.domain_pending:
            # Nothing to decode (no boundary row): complete now, so that ``loaded.domain`` is
            # the typed half when that is all there is, as readers of ``loaded`` expect.
            self.events  # noqa: B018

    @cached_property
    def events(self) -> list[DomainEvent]:
        """The domain events, decoded (and completed from the typed stream) on first use: a
        command that reads none of them (bisect) does not pay for the biggest part of a run."""
        self._derived_typed_half = False
        self._complete_domain_events()
        return self.loaded.domain.events if self.loaded.domain is not None else []

    @property
    def derived_typed_half(self) -> bool:
        """Whether the LLM/tool/injection/composition events were rebuilt from the typed stream."""
        self.events  # noqa: B018 - decided while the events are completed
        return self._derived_typed_half

    def _complete_domain_events(self) -> None:
        """§5.5 cases 2–3: rebuild the typed half when the row lacks it (or there is no row)."""
        lo = self.loaded
        dom = lo.domain
        if dom is not None and any(e.known and e.type not in _FLOW_TYPES for e in dom.events):
            return  # case 1: the row carries both halves, in capture order
        if dom is None and lo.domain_source is None and lo.boundary_row is not None:
            return  # the row exists but is unreadable: do not pretend otherwise
        typed = lo.typed_events()
        if not typed:
            return
        # Only these rare recordings need the recorder's typed ingestion: import it here.
        from agentbisect.model.boundary.derive import merge_by_ts, typed_half

        half = typed_half(typed)
        if not half:
            return
        if dom is not None:
            flow_ts = [getattr(e, "ts", None) for e in dom.events]
            items = merge_by_ts(dom.raws(), flow_ts, half)
        else:
            items = half
            lo.domain_source = "typed-events"
        lo.domain = decode_domain_events(lo.file, b"[" + b",".join(items) + b"]", "$.events")
        self._derived_typed_half = True

    # ----------------------------------------------------------------- derived structures

    # The boundary structures are imported on first use: bisect and events never build them.

    @cached_property
    def index_build(self) -> IndexBuild:
        from agentbisect.model.boundary.rebuild import rebuild_index

        return rebuild_index(self.events, self.loaded.commit_log_empty())

    @property
    def index(self) -> CommitRangeIndex:
        return self.index_build.index

    @cached_property
    def groups(self) -> list[Group]:
        from agentbisect.model.boundary.strip import build_groups

        return build_groups(self.index)

    def step_strip(self, drill: str | None = None) -> list[Stop]:
        from agentbisect.model.boundary.strip import build_strip

        return build_strip(self.groups, drill)

    @cached_property
    def step_graph(self) -> StepGraph:
        from agentbisect.model.boundary.graph import build_step_graph

        return build_step_graph(self.events)

    @cached_property
    def step_graph_counts(self) -> tuple[int, int]:
        """(nodes, malformed events) of the step graph, counted without building it when it is
        not built already: the flags and ``source()`` need only these."""
        graph = self.__dict__.get("step_graph")
        if graph is not None:
            return len(graph.nodes), graph.malformed
        from agentbisect.model.boundary.graph import count_step_graph

        return count_step_graph(self.events)

    @cached_property
    def _totals(self) -> PathTotals:
        # One pass over the events serves both the boundary rollups and the run row. Imported
        # here: bisect and events never ask for them.
        from agentbisect.model.boundary.rollup import PathTotals

        return PathTotals(self.events)

    @cached_property
    def aggregates(self) -> list[BoundaryAggregate]:
        from agentbisect.model.boundary.rollup import aggregate_all_boundaries

        return aggregate_all_boundaries(self.events, self._totals)

    @cached_property
    def run_row(self) -> BoundaryAggregate:
        from agentbisect.model.boundary.rollup import aggregate_run

        return aggregate_run(self.events, self._totals)

    @cached_property
    def usage_out_of_range(self) -> int:
        """llm.end events whose usage holds a count outside [0, 2**53] (left out of totals).

        Counted here rather than read off the rollup totals, so that the flags of a run that
        never aggregates (bisect, events) do not build them.
        """
        from agentbisect.core.js import countable
        from agentbisect.schema.events import LlmEnd

        bad = 0
        for ev in self.events:
            if isinstance(ev, LlmEnd) and ev.usage is not UNSET:
                u = ev.usage
                if not (countable(u.input) and countable(u.output)):
                    bad += 1
        return bad

    @cached_property
    def commit_count(self) -> int | None:
        raw = self.loaded.commit_log_raw()
        if raw is None:
            return None
        items = msgspec.json.decode(raw, type=list[msgspec.Raw] | None)
        return 0 if items is None else len(items)

    @cached_property
    def run_ids(self) -> list[str]:
        """Distinct typed-event run ids in first-seen order (consumer-emitted events excluded)."""
        seen: dict[str, None] = {}
        for ev in self.loaded.typed_events():
            meta = ev.meta
            if meta is UNSET:
                continue
            rid = meta.runId
            if isinstance(rid, str) and rid and rid != "consumer-scope":
                seen.setdefault(rid, None)
        return list(seen)

    # ----------------------------------------------------------------- what the localizer reads

    @cached_property
    def commit_log(self) -> CommitLog:
        """The commit log, indexed: bundles, writes per step and per key (bisect.md §1.2)."""
        return CommitLog(decode_commit_log(self.loaded))

    def committed_step_ids(self) -> set[str]:
        """The ids of the steps with a commit (what ``AT_STEP`` takes), without indexing the
        log when it is not indexed already: ``afp aggregate`` reads nothing else of it."""
        log = self.__dict__.get("commit_log")
        if log is not None:
            return {b.runtimeStageId for b in log.bundles}
        return commit_log_step_ids(self.loaded)

    @cached_property
    def _reads(self) -> tuple[dict[str, list[str]], bool]:
        return reads_from_tree(decode_execution_tree(self.loaded))

    @property
    def reads_of(self) -> dict[str, list[str]]:
        """runtimeStageId -> the keys that step read (execution-tree ``stageReads``)."""
        return self._reads[0]

    @property
    def has_read_tracking(self) -> bool:
        return self._reads[1]

    def keys_read(self, runtime_stage_id: str) -> list[str]:
        return self._reads[0].get(runtime_stage_id, [])

    @cached_property
    def _llm_calls(self) -> tuple[list[str], int]:
        return llm_call_ids_from_events(self.loaded.typed_events())

    @property
    def llm_call_ids(self) -> list[str]:
        """The runtimeStageIds of the LLM calls, in call order (first ``llm_start`` of each)."""
        return self._llm_calls[0]

    @cached_property
    def control_deps(self) -> ControlDeps | None:
        """The control-dependence lookup recorded with the run (assignable: ``afp bisect``'s control deps)."""
        return recorded_control_deps(self.loaded)

    @cached_property
    def quality_lowest(self) -> QualityEntry | None:
        return quality_lowest(self.loaded)

    @cached_property
    def final_answer(self) -> str | None:
        return final_answer(self.loaded.typed_events())

    # ----------------------------------------------------------------- read helpers (§2.10)

    def of_type(self, type_: str) -> list[DomainEvent]:
        return [e for e in self.events if e.type == type_]

    def boundaries(self) -> list[DomainEvent]:
        """``run.*`` and ``subflow.*`` events, entries and exits interleaved in capture order."""
        return [e for e in self.events if e.type in _BOUNDARY_TYPES]

    def steps(self) -> list[DomainEvent]:
        """The entry half of the boundaries (``run.entry``, ``subflow.entry``)."""
        return [e for e in self.events if e.type in ("run.entry", "subflow.entry")]

    def visible_steps(self) -> list[DomainEvent]:
        """Steps minus agent-internal subflows (slot subflows stay visible)."""
        return [e for e in self.steps() if getattr(e, "isAgentInternal", None) is not True]

    def boundary_pair(self, runtime_stage_id: str) -> tuple[DomainEvent | None, DomainEvent | None]:
        """The last entry and the last exit carrying that id (run or subflow)."""
        entry = exit_ = None
        for e in self.events:
            if getattr(e, "runtimeStageId", None) != runtime_stage_id:
                continue
            tag = e.type
            if tag in ("run.entry", "subflow.entry"):
                entry = e
            elif tag in ("run.exit", "subflow.exit"):
                exit_ = e
        return entry, exit_

    def slot_boundaries(self) -> dict[str, list[DomainEvent]]:
        """Slot subflow entries *and* exits grouped as systemPrompt / messages / tools."""
        out: dict[str, list[DomainEvent]] = {"systemPrompt": [], "messages": [], "tools": []}
        for e in self.events:
            if e.type in ("subflow.entry", "subflow.exit"):
                prop = SLOT_PROPS.get(getattr(e, "slotKind", None))  # type: ignore[arg-type]
                if prop is not None:
                    out[prop].append(e)
        return out

    # ----------------------------------------------------------------- honesty

    @cached_property
    def import_meta(self) -> ImportMeta | None:
        """What the importer of a trace or transcript recorded (``None`` for other inputs)."""
        return self._decode_import(ImportMeta)

    @cached_property
    def import_summary(self) -> ImportSummary | None:
        """The import key's flags and trace list only (cheap: the source map is skipped)."""
        return self._decode_import(ImportSummary)

    def _decode_import(self, typ: type[T]) -> T | None:
        raw = self.loaded.import_raw
        if raw is None:
            return None
        try:
            return msgspec.json.decode(raw, type=typ)
        except msgspec.MsgspecError as exc:
            # Complete the events first: their warnings came first when they were decoded at
            # load, and the order of the flags is part of the output.
            self.events  # noqa: B018
            self.loaded.warn(
                "import-unreadable", f"the recording's import key is unreadable ({exc}); ignored"
            )
            return None

    @cached_property
    def flags(self) -> list[HonestyFlag]:
        # run_ids decodes the typed events, whose decoding problems land in loaded.warnings:
        # take it first so that those warnings are not missed.
        run_ids = self.run_ids
        meta = self.import_summary  # (its own decoding problem lands in loaded.warnings)
        # An importer's flags travel in the recording, first (as on the import itself), so the
        # file `afp record` wrote says the same as the trace it came from.
        out = [flag(f.flag, f.note) for f in meta.flags if f.flag in FLAGS] if meta else []
        out.extend(self.loaded.warnings)
        lo = self.loaded
        build = self.index_build
        if lo.domain is not None:
            if build.legacy:
                out.append(
                    flag(
                        "commit-axis-absent",
                        "recorded without commit tracking (every boundary position is 0): no "
                        "boundary index and no step strip; this cannot be repaired",
                    )
                )
            if build.unclosed:
                out.append(
                    flag(
                        "unclosed-ranges",
                        f"{len(build.unclosed)} boundary range(s) never closed (crash, pause or a "
                        "partial freeze): "
                        + ", ".join(build.unclosed[:5])
                        + (" …" if len(build.unclosed) > 5 else ""),
                    )
                )
            if build.reopened:
                out.append(
                    flag(
                        "duplicate-range-keys",
                        "a range was reopened under a key that was still open (nested "
                        "sub-executor or id collision); the earlier one stays open: "
                        + ", ".join(sorted(set(build.reopened))[:5]),
                    )
                )
            if build.phantoms:
                out.append(
                    flag(
                        "phantom-ranges",
                        f"{build.phantoms} range(s) end before they start (corrupt positions); "
                        "listed but never enclosing anything",
                    )
                )
            if build.unpositioned and not build.legacy:
                out.append(
                    flag(
                        "unpositioned-events",
                        f"{build.unpositioned} boundary event(s) have no numeric commit position "
                        "and were left out of the index",
                    )
                )
            if build.skipped:
                out.append(
                    flag(
                        "unindexable-events",
                        f"{build.skipped} boundary event(s) lack the id needed to pair them",
                    )
                )
            if lo.mode == "lean":
                out.append(
                    flag(
                        "lean-no-content",
                        "lean boundary bundle: structure only, no payloads, arguments, results or "
                        "model output (not redaction: rationale, reason and system-prompt text "
                        "survive)",
                    )
                )
        if self.derived_typed_half:
            out.append(
                flag(
                    "typed-half-rebuilt",
                    "LLM, tool, injection and composition events were rebuilt from the typed "
                    "event stream (the boundary row lacked them): they have no commit position",
                )
            )
        malformed = self.step_graph_counts[1] if lo.domain is not None else 0
        problems = []
        if malformed:
            problems.append(
                f"{malformed} event(s) lacked fields the step graph needs (e.g. llm.end "
                "without usage) and were skipped"
            )
        out_of_range = self.usage_out_of_range if lo.domain is not None else 0
        if out_of_range:
            problems.append(
                f"{out_of_range} llm.end event(s) carry a token count that is negative or above "
                "2**53; those counts are left out of every total"
            )
        if problems:
            out.append(flag("malformed-events", "; ".join(problems)))
        env = lo.envelope_run
        if env is not None:
            dropped = env.droppedEvents
            if isinstance(dropped, int | float) and dropped > 0:
                first = env.firstRetainedEventIndex
                out.append(
                    flag(
                        "events-dropped",
                        f"the event cap dropped {dropped} typed event(s); the stream starts at "
                        f"event {first if first is not UNSET else 'unknown'} (boundary row "
                        "unaffected)",
                    )
                )
            if env.complete is False:
                out.append(flag("run-incomplete", "the producer says the run was not complete"))
        skipped = self._llm_calls[1]
        if skipped:
            out.append(
                flag(
                    "llm-calls-without-id",
                    f"{skipped} llm_start event(s) without meta.runtimeStageId were skipped: "
                    "those LLM calls cannot be named or weighted",
                )
            )
        if len(run_ids) > 1:
            out.append(
                flag(
                    "multiple-runs",
                    f"typed events span {len(run_ids)} runs ({', '.join(run_ids[:4])}); "
                    "the snapshot and boundary row hold only the last",
                )
            )
        return dedupe(out)

    # ----------------------------------------------------------------- description

    def source(self) -> dict[str, Any]:
        """What was read, for JSON output and ``VERBOSE``."""
        lo = self.loaded
        events = self.events  # completing them may say where they came from (domain_source)
        dom = lo.domain
        out: dict[str, Any] = {
            "file": lo.file,
            "shape": lo.shape,
            "shapeName": lo.shape_name,
            "gzip": lo.compressed,
            "bytes": lo.size,
            "boundaries": lo.domain_source or "absent",
            "mode": lo.mode if dom is not None else None,
            "modeSource": lo.mode_source if dom is not None else None,
            "commitAxis": "absent"
            if (dom is not None and self.index_build.legacy)
            else ("present" if dom is not None else "unknown"),
            "counts": {
                "domainEvents": len(events),
                "typedEvents": len(lo.typed_events()),
                "commits": self.commit_count,
                "ranges": self.index.size,
                "aggregates": len(self.aggregates),
                "stepNodes": self.step_graph_counts[0],
                "unknownTypes": dom.unknown_types if dom else 0,
                "malformed": dom.malformed if dom else 0,
            },
            "droppedEvents": "unknown",
        }
        if lo.boundary_row is not None and lo.boundary_row.id is not UNSET:
            out["boundaryRowId"] = lo.boundary_row.id
        env = lo.envelope_run
        if env is not None:
            out["droppedEvents"] = (
                env.droppedEvents if env.droppedEvents is not UNSET else "unknown"
            )
            if env.firstRetainedEventIndex is not UNSET:
                out["firstRetainedEventIndex"] = env.firstRetainedEventIndex
            if env.complete is not UNSET:
                out["complete"] = env.complete
        if self.run_ids:
            out["runIds"] = self.run_ids
        return out


_FLOW_TYPES = frozenset(
    {
        "run.entry",
        "run.exit",
        "subflow.entry",
        "subflow.exit",
        "fork.branch",
        "decision.branch",
        "loop.iteration",
    }
)
_BOUNDARY_TYPES = frozenset({"run.entry", "run.exit", "subflow.entry", "subflow.exit"})
