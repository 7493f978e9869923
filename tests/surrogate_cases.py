"""Synthetic contexts for the surrogate tests and ``benchmarks/surrogate_bench.py``: N injection
suspects ``s00``, ``s01``, … with one rerun spec each, and the APPROVED comparator the fake rerun
command (``tests/fake_rerun.py``) is judged by."""

from __future__ import annotations

from agentbisect.results.report import AblationSpec, Suspect, SuspectDetail


def source_id(i: int) -> str:
    return f"s{i:02d}"


def context_suspects(n: int) -> list[Suspect]:
    """N ablatable injection suspects in rank order, all on one path (score only breaks ties)."""
    return [
        Suspect(
            source=f"ctx#{i}",
            kind="injection",
            detail=SuspectDetail(injectionId=source_id(i)),
            score=1 - i / 1000,
            structuralScore=1,
            hasContentEvidence=False,
            edgePath=[],
            ablation=AblationSpec(kind="injection", excludeInjectionIds=[source_id(i)]),
        )
        for i in range(n)
    ]


def approved_changed(a: str, b: str) -> bool:
    """The outcome flipped: one answer says APPROVED and the other does not."""
    return ("APPROVED" in a) != ("APPROVED" in b)
