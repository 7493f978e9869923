"""Causal mode (spec §8) on fixture A (§12.1) with a scripted runner, and the verdict, cost and
statistics rules on their own."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec import UNSET

from agentbisect.bisect.causal.probes import (
    MissingContext,
    RerunOptions,
    bisect_culprits,
    cost_stats_from,
    find_dropped_context,
    median,
    probe_flipped,
    run_probe,
    sample_count,
    sequential,
    similarity_stats,
    verdict_for,
)
from agentbisect.bisect.embed.vectors import EmbeddingCache, MockEmbedder
from agentbisect.bisect.pipeline.localize import localize
from agentbisect.importers import load
from agentbisect.model.run import Run
from agentbisect.render.text import format_report
from agentbisect.results.bisect import bisect_result, classify_suspect
from agentbisect.results.report import AblationRunStats, SimilarityStats, to_builtins
from tests.conftest import MINI

ORIGINAL = "Refund approved: the promo covers order 17 even at 40 days."
DECLINED = "Refund declined: order 17 is outside the 30-day window."


def ids_of(payload: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for s in payload.get("specs", []):
        for k in ("ignoredTools", "excludeInjectionIds", "excludeMemoryIds"):
            out.update(s.get(k, []))
    return out


class Scripted:
    """The §12.1 runner, recording (probe ids, seed) in call order."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[str, ...], int]] = []

    def __call__(self, payload: dict[str, Any], seed: int, probe: str) -> dict[str, Any]:
        ids = ids_of(payload)
        self.calls.append((tuple(sorted(ids)), seed))
        if "promo-fact" in ids:
            return {"output": DECLINED, "cost": {"loops": 2, "tokens": 310}}
        if "lookup" in ids:
            return {"output": ORIGINAL, "cost": {"loops": 1, "tokens": 200 + seed}}
        if "m-7" in ids:
            return {"output": ORIGINAL, "cost": {"loops": 3, "tokens": 405}}
        return {"output": ORIGINAL, "cost": {"loops": 3, "tokens": 400}}


def test_fixture_a_causal() -> None:
    script = Scripted()
    rerun = RerunOptions(runner=sequential(script), original_output=ORIGINAL, flip_threshold=0.9)
    report = localize(
        Run(load(str(MINI / "mini-a.json"))), at_step="llm#6", rerun=rerun, upstream=True
    )
    assert report.mode == "causal"
    assert script.calls == [
        ((), 0),
        ((), 1),
        ((), 2),
        (("lookup",), 0),
        (("lookup",), 1),
        (("lookup",), 2),
        (("promo-fact",), 0),
        (("promo-fact",), 1),
        (("promo-fact",), 2),
        (("m-7",), 0),
        (("m-7",), 1),
        (("m-7",), 2),
        (("tone-skill",), 0),
        (("tone-skill",), 1),
        (("tone-skill",), 2),
    ]
    b = to_builtins(report.baseline)
    assert b == {
        "samples": 3,
        "flips": 0,
        "similarity": {
            "mean": 1.0000000000000002,
            "min": 1.0000000000000002,
            "max": 1.0000000000000002,
            "stdev": 0,
        },
        "cost": {
            "samples": 3,
            "loops": {"median": 3, "min": 3, "max": 3},
            "tokens": {"median": 400, "min": 400, "max": 400},
        },
    }
    by = {
        (s.detail.toolName or s.detail.injectionId) if s.detail else s.source: s
        for s in report.suspects
    }
    lookup, promo, m7, tone = by["lookup"], by["promo-fact"], by["m-7"], by["tone-skill"]
    assert lookup.verdict.verdict == "not-confirmed" and lookup.runs.flips == 0
    assert to_builtins(lookup.cost) == {
        "reducedCostOnRemoval": True,
        "loopsSaved": 2,
        "tokensSaved": 199,
        "stable": True,
    }
    assert classify_suspect(lookup) == "cost-cause"
    assert promo.verdict.verdict == "confirmed" and promo.runs.flips == 3
    assert promo.runs.similarity.mean == 0.8642273645473869
    assert promo.verdict.claim.startswith("CAUSAL:")
    assert "ablating injection 'promo-fact'" in promo.verdict.claim and "3/3" in promo.verdict.claim
    assert "0.864 ± 0.000" in promo.verdict.claim
    assert to_builtins(promo.cost) == {
        "reducedCostOnRemoval": False,
        "loopsSaved": 1,
        "tokensSaved": 90,
        "stable": True,
    }
    assert classify_suspect(promo) == "content-bug"
    assert to_builtins(m7.cost) == {
        "reducedCostOnRemoval": False,
        "loopsSaved": 0,
        "tokensSaved": -5,
        "stable": True,
    }
    assert classify_suspect(m7) == "no-detected-effect"
    assert to_builtins(tone.cost) == {
        "reducedCostOnRemoval": False,
        "loopsSaved": 0,
        "tokensSaved": 0,
        "stable": True,
    }
    assert (
        tone.verdict.claim.startswith("NOT CONFIRMED:")
        and "correlational proxy" in tone.verdict.claim
    )
    for s in report.suspects:
        if s.kind in ("stage", "arg"):
            assert s.runs is UNSET and s.verdict is UNSET
    text = format_report(bisect_result(report))
    assert "    cost: no cost effect (loops −0) → class: no-detected-effect" in text
    assert "    cost: REDUCED on removal — −2 loop(s), −199 tok" in text
    assert "baseline (no ablation): 0/3 flipped · similarity 1.000 ± 0.000" in text
    assert "mode: CAUSAL" in text


def test_fixture_a_culprits() -> None:
    script = Scripted()
    art_report = localize(Run(load(str(MINI / "mini-a.json"))), at_step="llm#6", upstream=True)
    rerun = RerunOptions(
        runner=sequential(script), original_output=ORIGINAL, samples=2, flip_threshold=0.9
    )
    res = bisect_culprits(art_report.suspects, rerun, EmbeddingCache(MockEmbedder()))
    probes = [(tuple(p.ablated), p.flipped) for p in res.probes]
    assert probes == [
        ((), False),
        (
            ("tool 'lookup'", "injection 'promo-fact'", "memory 'm-7'", "injection 'tone-skill'"),
            True,
        ),
        (("tool 'lookup'", "injection 'promo-fact'"), True),
        (("tool 'lookup'",), False),
        (("injection 'promo-fact'",), True),
        (("tool 'lookup'", "memory 'm-7'", "injection 'tone-skill'"), False),
    ]
    assert res.verdict == "confirmed"
    assert [[c.label for c in grp] for grp in res.culprits] == [["injection 'promo-fact'"]]
    assert res.runsUsed == 12


def test_fixture_a_missing_context() -> None:
    def restorer(payload: dict[str, Any], seed: int, probe: str) -> str:
        restored = {u["id"] for u in payload["restore"]}
        return DECLINED if "refund-policy" in restored else ORIGINAL

    mc = MissingContext(
        available=[
            {"id": "promo-fact"},
            {"id": "refund-policy", "content": "Refunds only within 30 days."},
            {"id": "m-7"},
        ],
        sent=[{"id": "promo-fact"}, {"id": "m-7"}],
        runner=sequential(restorer),
        original_output=ORIGINAL,
        flip_threshold=0.9,
    )
    report = localize(
        Run(load(str(MINI / "mini-a.json"))), at_step="llm#6", missing_context=mc, upstream=True
    )
    assert report.mode == "causal" and report.baseline is UNSET
    (c,) = report.dropped
    assert (c.id, c.content) == ("refund-policy", "Refunds only within 30 days.")
    assert c.verdict.verdict == "confirmed" and c.runs.flips == 3
    assert c.runs.similarity.mean == 0.8642273645473869
    assert "restoring" in c.verdict.claim and c.verdict.claim.startswith("CAUSAL:")
    assert report.restorationBaseline.flips == 0
    text = format_report(bisect_result(report))
    assert "MISSING CONTEXT (1 dropped" in text and " 1. [dropped 'refund-policy']" in text
    assert "baseline (no restoration): 0/3 flipped" in text


def test_missing_context_without_runner_and_nothing_dropped() -> None:
    rec = Run(load(str(MINI / "mini-a.json")))
    r1 = localize(
        rec, at_step="llm#6", missing_context=MissingContext([{"id": "a", "content": None}], [])
    )
    assert r1.mode == "correlational" and to_builtins(r1.dropped) == [{"id": "a", "content": None}]
    called = []
    r2 = localize(
        rec,
        at_step="llm#6",
        missing_context=MissingContext(
            [{"id": "a"}], [{"id": "a"}], runner=sequential(lambda *a: called.append(a))
        ),
    )
    assert to_builtins(r2.dropped) == [] and not called and r2.restorationBaseline is UNSET


def test_unstable_restoration_baseline() -> None:
    mc = MissingContext(
        available=[{"id": "x"}, {"id": "y"}, {"id": "z"}],
        sent=[],
        runner=sequential(lambda p, seed, probe: DECLINED if seed == 1 else ORIGINAL),
        original_output=ORIGINAL,
        flip_threshold=0.9,
        max_candidates=2,
    )
    report = localize(
        Run(load(str(MINI / "mini-a.json"))), at_step="llm#6", missing_context=mc, upstream=True
    )
    assert [f.flag for f in report.honestyFlags][-1] == "baseline-unstable"
    assert "un-restored" in report.honestyFlags[-1].note
    assert [c.verdict.verdict if c.verdict else None for c in report.dropped] == [
        "inconclusive",
        "inconclusive",
        None,
    ]


def test_find_dropped_context_rules() -> None:
    avail = [
        {"id": "a"},
        {"id": "b", "content": 1},
        {"id": "a", "content": "dup"},
        {"id": "__proto__"},
    ]
    dropped, n_avail, n_sent = find_dropped_context(avail, [{"id": "a"}, {"id": "only-sent"}])
    assert dropped == [{"id": "b", "content": 1}, {"id": "__proto__"}]
    assert (n_avail, n_sent) == (3, 2)
    assert avail[2] == {"id": "a", "content": "dup"}  # inputs untouched


def test_probe_rules() -> None:
    emb = EmbeddingCache(MockEmbedder())
    seen: list[int] = []

    def runner(payload: dict[str, Any], seed: int, probe: str) -> str:
        seen.append(seed)
        return "no" if seed else "yes"

    st = run_probe(
        sequential(runner),
        {"specs": []},
        original="yes",
        embedder=emb,
        samples=1,
        outcome_changed=lambda a, b: a != b,
    )
    assert seen == [0, 1] and (st.samples, st.flips) == (2, 1)
    assert st.similarity.min <= st.similarity.mean <= st.similarity.max and st.similarity.stdev > 0
    assert sample_count(float("nan")) == 3 and sample_count(2.7) == 2 and sample_count(1) == 2


def test_majority_and_stats() -> None:
    def stats(flips: int, n: int) -> AblationRunStats:
        return AblationRunStats(
            samples=n, flips=flips, similarity=SimilarityStats(mean=1, min=1, max=1, stdev=0)
        )

    assert probe_flipped(stats(2, 3)) and probe_flipped(stats(2, 2))
    assert not probe_flipped(stats(1, 3)) and not probe_flipped(stats(1, 2))
    assert median([3, 1, 2]) == 2 and median([4, 1, 2, 3]) == 2.5 and median([]) == 0
    assert cost_stats_from(3, [], []) is None
    assert to_builtins(cost_stats_from(3, [3, 4, 5], [])) == {
        "samples": 3,
        "loops": {"median": 4, "min": 3, "max": 5},
    }
    s = similarity_stats([1.0, 0.0])
    assert (s.mean, s.stdev) == (0.5, 0.5)
    assert similarity_stats([]) == SimilarityStats(mean=0, min=0, max=0, stdev=0)


@pytest.mark.parametrize(
    ("flips", "stable", "verdict", "prefix"),
    [
        (3, True, "confirmed", "CAUSAL:"),
        (1, True, "inconclusive", "INCONCLUSIVE:"),
        (0, True, "not-confirmed", "NOT CONFIRMED:"),
        (3, False, "inconclusive", "INCONCLUSIVE:"),
    ],
)
def test_verdict_table(flips: int, stable: bool, verdict: str, prefix: str) -> None:
    st = AblationRunStats(
        samples=3, flips=flips, similarity=SimilarityStats(mean=0.0625, min=0, max=1, stdev=0.5)
    )
    v = verdict_for("tool 'x'", st, stable)
    assert v.verdict == verdict and v.claim.startswith(prefix)
    if verdict == "confirmed":
        assert "ablating tool 'x'" in v.claim and "3/3" in v.claim and "0.063 ± 0.500" in v.claim
    if not stable:
        assert "un-ablated" in v.claim and "tool 'x'" in v.claim
        assert "un-restored" in verdict_for('dropped "d"', st, False, "restoring").claim
