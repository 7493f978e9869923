"""Honesty flags and slice stats (bisect.md §7, §9.1 ``sliceStats``).

Flag names, order and the variable content of each note are the contract; the sentences are ours.
"""

from __future__ import annotations

from msgspec import UNSET

from agentbisect.bisect.options import CONTROL_DEPS
from agentbisect.bisect.pipeline.slice import Slice
from agentbisect.core.honesty import HonestyFlag, flag
from agentbisect.results.report import AblationRunStats, SliceStats, Truncated


def slice_stats(sl: Slice, max_depth: int, max_nodes: int) -> SliceStats:
    data = control = weighted = incomplete = 0
    for n in sl.nodes:
        if n.incompleteSources:
            incomplete += 1
        for e in n.parentEdges:
            if e.kind == "data":
                data += 1
            else:
                control += 1
            if e.weight != 1:
                weighted += 1
    tr = sl.root.truncated
    return SliceStats(
        nodes=len(sl.nodes),
        dataEdges=data,
        controlEdges=control,
        weightedEdges=weighted,
        incompleteNodes=incomplete,
        maxDepth=max_depth,
        maxNodes=max_nodes,
        truncated=Truncated(byDepth=tr[0], byNodes=tr[1]) if tr is not None else UNSET,
    )


def slice_flags(
    stats: SliceStats, *, has_control_deps: bool, has_read_tracking: bool, llm_ids: list[str]
) -> list[HonestyFlag]:
    flags: list[HonestyFlag] = []
    tr = stats.truncated
    if tr is not UNSET:
        limits = []
        if tr.byDepth:
            limits.append(f"maxDepth ({stats.maxDepth})")
        if tr.byNodes:
            limits.append(f"maxNodes ({stats.maxNodes})")
        flags.append(
            flag(
                "slice-truncated",
                f"the slice was cut by {' + '.join(limits)}; older causes beyond that horizon "
                "are invisible to the ranking.",
            )
        )
    if stats.incompleteNodes > 0:
        flags.append(
            flag(
                "untracked-sources",
                f"{stats.incompleteNodes} slice node(s) also read untracked inputs "
                "(args/env/silent); such reads make no edges, so the slice is incomplete there.",
            )
        )
    if not has_control_deps:
        flags.append(
            flag(
                "no-control-deps",
                "no control-dependence lookup was supplied (attach a controlDepRecorder, or "
                f"pass {CONTROL_DEPS.flag}): decisions that routed execution are missing from the "
                "slice.",
            )
        )
    if not has_read_tracking:
        flags.append(
            flag(
                "no-read-tracking",
                "the recording has no stageReads: read-to-write edges cannot be followed, so "
                "the slice may be just the trigger.",
            )
        )
    if not llm_ids:
        flags.append(
            flag(
                "no-llm-call-ids",
                "no LLM-call ids (no llm_start events): no edge was weighted, the ranking is "
                "structure-only; pass events or LLM-call ids.",
            )
        )
    return flags


def tier_words(restoration: bool) -> tuple[str, str]:
    """How claims name a tier's baseline and its verdicts."""
    if restoration:
        return "un-restored", "restoration"
    return "un-ablated", "ablation"


def baseline_unstable_flag(baseline: AblationRunStats, *, restoration: bool) -> HonestyFlag:
    what, tier = tier_words(restoration)
    return flag(
        "baseline-unstable",
        f"the {what} baseline changed outcome in {baseline.flips}/{baseline.samples} seeded "
        f"reruns: the scenario is not stable, so every {tier} verdict is inconclusive.",
    )
