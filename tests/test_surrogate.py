"""Surrogate attribution against a fake rerun command with known ground truth (tests/fake_rerun.py):
one culprit, two that each suffice (OR, invisible to leave-one-out), two both needed (AND), seeded
noise, pure coin flips; in process and through the real rerun protocol."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from msgspec import UNSET

from agentbisect.bisect.causal.probes import RerunOptions, run_ablation_tier, sequential
from agentbisect.bisect.causal.rerun import CommandRunner
from agentbisect.bisect.causal.surrogate import (
    DEFAULT_MASKS,
    SurrogateOptions,
    candidates_from,
    draw_masks,
    parallel_batch,
    run_surrogate,
)
from agentbisect.bisect.embed.vectors import EmbeddingCache, MockEmbedder
from agentbisect.core.errors import ExternalCommandFailed
from agentbisect.results.report import AblationSpec, Suspect, SuspectDetail, to_builtins
from tests.conftest import ROOT
from tests.fake_rerun import WRONG, Truth, removed_ids
from tests.surrogate_cases import approved_changed, context_suspects

FAKE = str(ROOT / "tests" / "fake_rerun.py")
SAMPLES = 3


class Recorder:
    """The fake's in-process answer, remembering every (payload, seed, probe) it was asked."""

    def __init__(self, truth: Truth) -> None:
        self.truth = truth
        self.calls: list[tuple[dict[str, Any], int, str]] = []

    def __call__(self, payload: dict[str, Any], seed: int, probe: str) -> dict[str, Any]:
        self.calls.append((payload, seed, probe))
        return self.truth.answer(payload, seed, probe)


def attribute(
    truth: str, n: int = 30, noise: float = 0.0, **opts: Any
) -> tuple[Any, Recorder, RerunOptions]:
    rec = Recorder(Truth.parse(truth, noise))
    rerun = RerunOptions(
        runner=sequential(rec),
        original_output=WRONG,
        samples=SAMPLES,
        outcome_changed=approved_changed,
    )
    out = run_surrogate(
        context_suspects(n), rerun, EmbeddingCache(MockEmbedder()), SurrogateOptions(**opts)
    )
    return out, rec, rerun


def top(out: Any, k: int) -> set[str]:
    return {w.id for w in out.attribution.weights[:k]}


def flags(out: Any) -> list[str]:
    return [f.flag for f in out.flags]


def test_one_culprit_is_first_with_the_full_effect() -> None:
    out, rec, _ = attribute("one:s07")
    a = out.attribution
    assert a.weights[0].id == "s07"
    assert a.weights[0].weight == pytest.approx(1.0, abs=0.02)
    assert all(abs(w.weight) < 0.05 for w in a.weights[1:])
    assert a.fit.metric == "heldout-r2"
    assert a.fit.value is not None and a.fit.value > 0.95
    assert flags(out) == []  # 0 % noise: no flag
    assert a.culprits is UNSET  # a good fit needs no set search
    assert a.masks == DEFAULT_MASKS
    assert a.rerunsUsed == SAMPLES + DEFAULT_MASKS == len(rec.calls)


def test_mask_calls_follow_the_rerun_protocol() -> None:
    out, rec, _ = attribute("one:s07", n=12, masks=20, keep_prob=0.7, seed=5)
    kept = draw_masks(20, 12, 0.7, 5)
    mask_calls = rec.calls[SAMPLES:]
    assert [c[2] for c in rec.calls[:SAMPLES]] == ["baseline"] * SAMPLES
    assert [c[1] for c in rec.calls[:SAMPLES]] == list(range(SAMPLES))
    assert [(seed, probe) for _, seed, probe in mask_calls] == [(k, f"mask#{k}") for k in range(20)]
    for k, (payload, _, _) in enumerate(mask_calls):
        assert removed_ids(payload) == {f"s{j:02d}" for j in range(12) if not kept[k, j]}
        assert all(s["kind"] == "injection" for s in payload["specs"])
    removed_in = {w.id: w.removedIn for w in out.attribution.weights}
    assert removed_in == {f"s{j:02d}": int((~kept[:, j]).sum()) for j in range(12)}


def test_or_culprits_top_the_surrogate_where_leave_one_out_sees_nothing() -> None:
    out, _, _ = attribute("or:s03,s21")
    assert top(out, 2) == {"s03", "s21"}
    assert flags(out) == []
    w = {x.id: x.weight for x in out.attribution.weights}
    assert w["s03"] > 0.25 and w["s21"] > 0.25

    # leave-one-out on the same fake: both culprits come back not confirmed
    sus = context_suspects(30)
    rerun = RerunOptions(
        runner=sequential(Truth.parse("or:s03,s21").answer),
        original_output=WRONG,
        samples=SAMPLES,
        outcome_changed=approved_changed,
        max_suspects=30,
    )
    run_ablation_tier(sus, rerun, EmbeddingCache(MockEmbedder()))
    verdicts = {s.detail.injectionId: s.verdict.verdict for s in sus}  # type: ignore[union-attr]
    assert verdicts["s03"] == verdicts["s21"] == "not-confirmed"
    assert set(verdicts.values()) == {"not-confirmed"}


def test_and_culprits_top_the_surrogate() -> None:
    out, _, _ = attribute("and:s03,s21")
    assert top(out, 2) == {"s03", "s21"}
    assert flags(out) == []


def test_noisy_outputs_still_put_the_culprit_first() -> None:
    out, _, _ = attribute("one:s07", noise=0.1)
    assert out.attribution.weights[0].id == "s07"
    # the seeded flips also hit the un-ablated baseline: it is unstable, and says so
    assert out.baseline.flips > 0
    assert "baseline-unstable" in flags(out)


def test_coin_flips_are_unreliable() -> None:
    out, _, _ = attribute("coin")
    a = out.attribution
    assert a.fit.value is not None and a.fit.value < 0.5
    assert "surrogate-unreliable" in flags(out)
    note = next(f.note for f in out.flags if f.flag == "surrogate-unreliable")
    assert "held-out R²" in note and "not trustworthy" in note
    # the poor fit triggers the set search, which finds no set that reproduces the flip
    assert a.culprits is not UNSET
    assert a.culprits.verdict in ("not-reproducible", "inconclusive")  # type: ignore[union-attr]
    assert a.culprits.culprits == []  # type: ignore[union-attr]


def test_three_way_redundancy_is_unreliable_and_the_set_search_names_the_set() -> None:
    out, rec, _ = attribute("or:s01,s02,s03")
    a = out.attribution
    assert top(out, 3) == {"s01", "s02", "s03"}
    assert "surrogate-unreliable" in flags(out)  # a linear model explains ~3/7 of an AND of three
    c = a.culprits
    assert c is not UNSET
    assert c.verdict == "confirmed"  # type: ignore[union-attr]
    assert [sorted(r.label for r in grp) for grp in c.culprits] == [  # type: ignore[union-attr]
        ["injection 's01'", "injection 's02'", "injection 's03'"]
    ]
    # the search ran only over the six top-weighted sources
    searched = {i for p, _, _ in rec.calls[SAMPLES + a.masks :] for i in removed_ids(p)}
    assert searched <= {w.id for w in sorted(a.weights, key=lambda w: -w.weight)[:6]}
    assert a.rerunsUsed == len(rec.calls) == SAMPLES + a.masks + c.runsUsed  # type: ignore[union-attr]


def test_culprit_search_on_request_even_with_a_good_fit() -> None:
    out, _, _ = attribute("or:s03,s21", culprits=True)
    c = out.attribution.culprits
    assert c is not UNSET and c.verdict == "confirmed"  # type: ignore[union-attr]
    assert [sorted(r.label for r in grp) for grp in c.culprits] == [  # type: ignore[union-attr]
        ["injection 's03'", "injection 's21'"]
    ]


def test_outcome_that_never_changes_has_no_fit_value_and_is_flagged() -> None:
    out, _, _ = attribute("none", culprits=False)
    assert out.attribution.fit.value is None
    assert out.attribution.changedMasks == 0
    assert all(w.weight == 0 for w in out.attribution.weights)
    assert flags(out) == ["surrogate-unreliable"]
    assert "never varied" in out.flags[0].note


def test_similarity_score_ranks_the_culprit_first() -> None:
    rec = Recorder(Truth.parse("one:s04"))
    rerun = RerunOptions(runner=sequential(rec), original_output=WRONG, samples=SAMPLES)
    out = run_surrogate(
        context_suspects(10),
        rerun,
        EmbeddingCache(MockEmbedder()),
        SurrogateOptions(score="similarity"),
    )
    a = out.attribution
    assert a.score == "similarity"
    assert a.weights[0].id == "s04" and a.weights[0].weight > 0
    assert a.fit.value is not None and a.fit.value > 0.95


def test_cost_totals_sum_every_rerun() -> None:
    out, rec, _ = attribute("one:s07", n=10, masks=16)
    cost = out.attribution.cost
    assert cost is not UNSET
    assert cost.runs == len(rec.calls)  # type: ignore[union-attr]
    assert cost.loops == len(rec.calls)  # type: ignore[union-attr]
    assert cost.tokens == sum(1000 - 10 * len(removed_ids(p)) for p, _, _ in rec.calls)  # type: ignore[union-attr]


def test_same_seed_same_attribution_other_seed_other_masks() -> None:
    a1, _, _ = attribute("and:s01,s05", n=12, seed=3)
    a2, _, _ = attribute("and:s01,s05", n=12, seed=3)
    a3, _, _ = attribute("and:s01,s05", n=12, seed=4)
    assert to_builtins(a1.attribution) == to_builtins(a2.attribution)
    assert [w.removedIn for w in a1.attribution.weights] != [
        w.removedIn for w in a3.attribution.weights
    ]


def test_draw_masks_keeps_with_the_given_probability() -> None:
    kept = draw_masks(400, 50, 0.3, 0)
    assert kept.shape == (400, 50)
    assert abs(kept.mean() - 0.3) < 0.01
    assert np.array_equal(kept, draw_masks(400, 50, 0.3, 0))


def test_candidates_merge_shared_specs_and_skip_arg_and_stage() -> None:
    sus = context_suspects(3)
    twin = Suspect(
        source="ctx#9",
        kind="injection",
        detail=SuspectDetail(injectionId="s01"),
        score=0.1,
        structuralScore=0.1,
        hasContentEvidence=False,
        edgePath=[],
        ablation=AblationSpec(kind="injection", excludeInjectionIds=["s01"]),
    )
    arg = Suspect(
        source="seed#0",
        kind="arg",
        score=1,
        structuralScore=1,
        hasContentEvidence=False,
        edgePath=[],
        ablation=AblationSpec(kind="arg", source="seed#0", note="runner must override"),
    )
    stage = Suspect(
        source="r#1",
        kind="stage",
        score=1,
        structuralScore=1,
        hasContentEvidence=False,
        edgePath=[],
    )
    cands = candidates_from([arg, stage, *sus, twin])
    assert [c.spec["excludeInjectionIds"] for c in cands] == [["s00"], ["s01"], ["s02"]]
    assert [s.source for s in cands[1].suspects] == ["ctx#1", "ctx#9"]
    assert cands[1].ranks == [4, 6]


def test_no_ablatable_suspect_runs_no_mask() -> None:
    rec = Recorder(Truth.parse("one:s00"))
    rerun = RerunOptions(
        runner=sequential(rec), original_output=WRONG, outcome_changed=approved_changed
    )
    stage = Suspect(
        source="r#1",
        kind="stage",
        score=1,
        structuralScore=1,
        hasContentEvidence=False,
        edgePath=[],
    )
    out = run_surrogate([stage], rerun, EmbeddingCache(MockEmbedder()))
    assert out.attribution.weights == [] and out.attribution.masks == 0
    assert len(rec.calls) == SAMPLES  # the baseline only
    assert flags(out) == ["surrogate-unreliable"]
    assert "no suspect can be ablated" in out.flags[0].note


@pytest.mark.parametrize(
    ("opts", "msg"),
    [
        ({"masks": 9}, "at least 10"),
        ({"keep_prob": 0.0}, "strictly between"),
        ({"keep_prob": 1.0}, "strictly between"),
        ({"score": "logprob"}, "flip"),
    ],
)
def test_bad_options_are_refused(opts: dict[str, Any], msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        SurrogateOptions(**opts).check()


def test_real_command_in_parallel_gives_the_in_process_answer() -> None:
    argv = [sys.executable, FAKE, "--truth", "or:s02,s05", "--noise", "0.05", "--noise-seed", "1"]
    runner = CommandRunner(argv, "llm#6", timeout=60, jobs=2)
    rerun = RerunOptions(
        runner=runner, original_output=WRONG, samples=2, outcome_changed=approved_changed
    )
    opts = SurrogateOptions(masks=12, seed=2)
    emb = EmbeddingCache(MockEmbedder())
    try:
        real = run_surrogate(
            context_suspects(6), rerun, emb, opts, batch=parallel_batch(runner.run_one, jobs=2)
        )
    finally:
        runner.kill_all()
    assert runner.calls == 2 + 12
    rec = Recorder(Truth.parse("or:s02,s05", 0.05, 1))
    rerun_in = RerunOptions(
        runner=sequential(rec), original_output=WRONG, samples=2, outcome_changed=approved_changed
    )
    fake = run_surrogate(context_suspects(6), rerun_in, emb, opts)
    assert to_builtins(real.attribution) == to_builtins(fake.attribution)
    assert to_builtins(real.baseline) == to_builtins(fake.baseline)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_failing_mask_kills_the_masks_still_running(tmp_path: Path) -> None:
    """--jobs: one rerun fails while another hangs; the hung one is killed, not waited for."""
    pidfile = tmp_path / "pids"
    finished = tmp_path / "finished"
    script = tmp_path / "rerun.py"
    script.write_text(
        "import json, os, sys, time\n"
        "req = json.loads(sys.stdin.read())\n"
        "if req['probe'] == 'mask#0':\n"
        "    time.sleep(0.5)\n"
        "    sys.exit(1)\n"
        f"open({str(pidfile)!r}, 'a').write(f'{{os.getpid()}} ')\n"
        "time.sleep(4)\n"
        f"open({str(finished)!r}, 'w').write('waited for')\n"
    )
    runner = CommandRunner([sys.executable, str(script)], "llm#6", timeout=600, jobs=2)
    batch = parallel_batch(runner.run_one, 2, abort=runner.kill_all)
    calls = [({"specs": []}, k, f"mask#{k}") for k in range(2)]
    with pytest.raises(ExternalCommandFailed, match="mask#0"):
        batch(calls)
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 1
    time.sleep(0.3)
    assert not _alive(pids[0]), "a hung rerun outlived the failure"
    assert not finished.exists(), "the failure waited for a hung rerun instead of killing it"
