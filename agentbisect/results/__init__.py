"""Result types: what each analysis returns and every renderer reads.

A result carries everything its renderers need (selected rows, titles, flags, the warnings to
say on stderr); renderers compute nothing. ``BisectResult`` lives beside the localizer
(``agentbisect.results.bisect``); the genui statistics are ``schema.genui.GenuiStats``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Raw, Struct, field

from agentbisect.core.honesty import HonestyFlag

if TYPE_CHECKING:
    from agentbisect.model.boundary.calls import LlmCallRow, ToolCallRow
    from agentbisect.model.boundary.index import Range
    from agentbisect.model.boundary.rollup import BoundaryAggregate
    from agentbisect.model.boundary.strip import Stop
    from agentbisect.model.boundary.timeline import Timeline
    from agentbisect.schema.events import DomainEvent
    from agentbisect.schema.genui import GenuiStats


class EventsResult(Struct):
    """``afp events``: the selected domain events, as decoded and as their exact recorded bytes."""

    file: str
    total: int
    indices: list[int]
    events: list[DomainEvent]  # aligned with indices
    # Every event's exact bytes, split out of the row on first call: only the JSON outputs need
    # them, and a table of a 30 MB run would otherwise decode the row a second time (~15 ms).
    all_raws: Callable[[], list[Raw]]
    lean: bool
    flags: list[HonestyFlag]
    notes: list[str] = field(default_factory=list)  # said on stderr (e.g. nothing matched)
    page: bool = True  # a long terminal table goes through the pager (NO_PAGER turns it off)

    @property
    def title(self) -> str:
        return f"{len(self.indices)} of {self.total} domain events — {self.file}"

    @property
    def raws(self) -> list[Raw]:
        """The selected events' exact recorded bytes, aligned with ``indices``."""
        every = self.all_raws()
        return [every[i] for i in self.indices]


class StepGraphResult(Struct):
    """``afp events``' step-graph option: the step graph as its JSON document."""

    graph: dict[str, Any]
    lean: bool
    flags: list[HonestyFlag]


class AggregateResult(Struct, dict=True):  # dict: room for the cached overview
    """``afp aggregate``: rollups, the boundary index and the step strip, with display choices."""

    source: dict[str, Any]
    run_row: BoundaryAggregate
    aggregates: list[BoundaryAggregate]
    hidden: list[bool]  # aligned with aggregates: all-zero agent-internal rows (shown with ``ALL``)
    ranges: list[Range]
    parents: dict[str, str]  # group id -> parent group id, to nest the index tree
    strip: list[Stop]
    flags: list[HonestyFlag]
    llm_calls: list[LlmCallRow] = field(default_factory=list)
    localizable: set[str] = field(default_factory=set)  # step ids AT_STEP takes
    show_all: bool = False
    # imported runs only (traces, transcripts): one row per LLM/tool step, the ids AT_STEP
    # takes, and every trace the file held
    calls: list[dict[str, Any]] | None = None
    traces: list[dict[str, Any]] | None = None
    # Built only when a renderer reads ``overview`` (the HTML page): JSON and tables never pay.
    overview_of: Callable[[], RunOverview] | None = None

    @cached_property
    def overview(self) -> RunOverview | None:
        """The run as the visual report shows it (timeline, calls, boundaries), on first read."""
        return self.overview_of() if self.overview_of is not None else None

    def _llm_calls_json(self) -> list[dict[str, Any]]:
        # One to_builtins over the list (in C), then the one added field: a 50,000-call trace's
        # rows cost a tenth of what a dict per row built in Python did.
        rows: list[dict[str, Any]] = msgspec.to_builtins(self.llm_calls)
        localizable = self.localizable
        for row in rows:
            row["inCommitLog"] = row["step"] in localizable
        return rows

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "run": self.run_row,
            "aggregates": self.aggregates,
            "index": self.ranges,
            "strip": self.strip,
            "llmCalls": self._llm_calls_json(),
            "honestyFlags": self.flags,
        }
        if self.calls is not None:
            out["calls"] = self.calls
        if self.traces is not None:
            out["traces"] = self.traces
        return out


class Totals(Struct):
    llmCalls: int
    toolCalls: int
    tokensIn: int | float
    tokensOut: int | float
    # as the run's rollup row has it: UNSET while no run exit is recorded, None when it exited
    # but its entry or exit time is unknown (the table says "unknown" then, and so must a report)
    durationMs: int | float | msgspec.UnsetType | None
    events: int
    boundaries: int  # boundary passes (entry/exit pairs)


class BoundaryRow(Struct):
    """One boundary pass in entry order; ``depth`` nests it (entry order is tree pre-order)."""

    runtimeStageId: str
    name: str
    kind: str
    depth: int
    rollup: BoundaryAggregate | None = None
    open: bool = False


class RunOverview(Struct):
    """Everything a visual report of one run shows: shape, totals, flags, the timeline, each
    boundary pass with its rollup, and the per-call rows (``agentbisect.analyses.overview`` builds it)."""

    source: dict[str, Any]
    totals: Totals
    flags: list[HonestyFlag]
    timeline: Timeline
    boundaries: list[BoundaryRow]
    runRollup: BoundaryAggregate
    llmCalls: list[LlmCallRow]
    toolCalls: list[ToolCallRow]


class GenuiResult(Struct):
    """``afp genui-stats``: the statistics plus where the rows came from and the day range."""

    stats: GenuiStats
    source: str
    from_day: str | None = None
    to_day: str | None = None
    warnings: list[str] = field(default_factory=list)  # inconsistent rows, said on stderr


class RecordSummary(Struct):
    """``afp record``: what was read and written, and every limit of the output."""

    file_out: str
    shape_in: str
    shape_out: str
    detail: str
    compressed_in: bool
    typed_in: int
    typed_out: int
    domain_in: int | None
    domain_out: int
    boundaries: int
    ranges: int | None  # None: no commit axis
    unclosed: int
    bytes_in: int
    bytes_out: int
    flags: list[HonestyFlag]

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.file_out,
            "shapeIn": self.shape_in,
            "shapeOut": self.shape_out,
            "detail": self.detail,
            "gzipIn": self.compressed_in,
            "typedEvents": {"in": self.typed_in, "out": self.typed_out},
            "domainEvents": {"in": self.domain_in, "out": self.domain_out},
            "boundaryEvents": self.boundaries,
            "ranges": self.ranges,
            "unclosedRanges": self.unclosed,
            "bytes": {"in": self.bytes_in, "out": self.bytes_out},
            "honestyFlags": self.flags,
        }
