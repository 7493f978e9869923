"""Benchmark the surrogate attribution (issue 13) against leave-one-out, and time its fit.

Counts, not seconds, decide the first part: for contexts of 10, 30 and 100 sources and several
ground truths (tests/fake_rerun.py, in process), how many reruns each method needs to put the
culprit(s) first.

- Leave-one-out (``causal.run_ablation_tier`` with every suspect in budget): the baseline, then
  ``samples`` reruns per suspect in rank order until the first confirmed verdict. Culprits sit
  at random ranks, so this is the mean over trials; "never" when no trial confirms a culprit
  first (the OR case, or noise that makes the zero-tolerance baseline unstable).
- Surrogate (``surrogate.run_surrogate``, set search off): the smallest mask count on a grid at
  which the top-k weights are exactly the k culprits in at least 95 % of trials (different mask
  seeds and culprit placements); reruns = baseline + masks. Also: the hit rate and the
  ``surrogate-unreliable`` rate at the default mask count.

The second part times ``lasso_cv`` alone (the fit, CV included) on 100 sources × 256 masks.

    python benchmarks/surrogate_bench.py [--trials 20] [--sizes 10,30,100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from msgspec import UNSET

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentbisect.bisect.causal.lasso import lasso_cv  # noqa: E402
from agentbisect.bisect.causal.probes import RerunOptions, run_ablation_tier, sequential  # noqa: E402
from agentbisect.bisect.causal.surrogate import (  # noqa: E402
    DEFAULT_MASKS,
    SurrogateOptions,
    draw_masks,
    run_surrogate,
)
from agentbisect.bisect.embed.vectors import EmbeddingCache, MockEmbedder  # noqa: E402
from tests.fake_rerun import WRONG, Truth  # noqa: E402
from tests.surrogate_cases import approved_changed, context_suspects, source_id  # noqa: E402

SAMPLES = 3
GRID = [10, 12, 16, 20, 24, 32, 48, 64, 96, 128, 192, 256]
CASES: dict[str, tuple[str, int, float]] = {
    # name: (rule, culprits, noise)
    "one culprit": ("one", 1, 0.0),
    "OR (each suffices)": ("or", 2, 0.0),
    "AND (both needed)": ("and", 2, 0.0),
    "one culprit, 10% noise": ("one", 1, 0.1),
}


def truth_for(case: str, n: int, trial: int) -> Truth:
    rule, k, noise = CASES[case]
    rng = np.random.default_rng(1000 * n + trial)
    ids = tuple(source_id(int(i)) for i in rng.choice(n, size=k, replace=False))
    return Truth(rule, ids, noise, noise_seed=trial)


def rerun_for(truth: Truth, max_suspects: int = 5) -> RerunOptions:
    return RerunOptions(
        runner=sequential(truth.answer),
        original_output=WRONG,
        samples=SAMPLES,
        outcome_changed=approved_changed,
        max_suspects=max_suspects,
    )


def loo_reruns(case: str, n: int, trials: int) -> tuple[float | None, int]:
    """Mean reruns until leave-one-out's first confirmed verdict is a culprit, and in how many
    trials that happened."""
    needed: list[int] = []
    for t in range(trials):
        truth = truth_for(case, n, t)
        sus = context_suspects(n)
        run_ablation_tier(sus, rerun_for(truth, max_suspects=n), EmbeddingCache(MockEmbedder()))
        for pos, s in enumerate(sus, 1):
            if s.verdict is not UNSET and s.verdict.verdict == "confirmed":
                if s.detail.injectionId in truth.culprits:  # type: ignore[union-attr]
                    needed.append(SAMPLES * (1 + pos))
                break
    return (statistics.mean(needed) if needed else None), len(needed)


def surrogate_trial(case: str, n: int, trial: int, masks: int) -> tuple[bool, bool]:
    """(top-k weights are exactly the culprits, surrogate-unreliable raised)."""
    truth = truth_for(case, n, trial)
    out = run_surrogate(
        context_suspects(n),
        rerun_for(truth),
        EmbeddingCache(MockEmbedder()),
        SurrogateOptions(masks=masks, seed=trial, culprits=False),
    )
    k = len(truth.culprits)
    hit = {w.id for w in out.attribution.weights[:k]} == set(truth.culprits)
    return hit, any(f.flag == "surrogate-unreliable" for f in out.flags)


def masks_needed(case: str, n: int, trials: int) -> int | None:
    for m in GRID:
        hits = 0
        for t in range(trials):
            hits += surrogate_trial(case, n, t, m)[0]
            if (t + 1 - hits) > trials * 0.05:  # already below 95 %: next grid point
                break
        else:
            return m
    return None


def at_masks(case: str, n: int, trials: int, masks: int) -> tuple[float, float]:
    results = [surrogate_trial(case, n, t, masks) for t in range(trials)]
    return (
        sum(h for h, _ in results) / trials,
        sum(f for _, f in results) / trials,
    )


def time_fit(repeat: int) -> None:
    print("\nfit time, lasso_cv on 100 sources × 256 masks (5-fold CV, 25 penalties):")
    removed = (~draw_masks(256, 100, 0.5, 0)).astype(np.float64)
    rng = np.random.default_rng(1)
    targets: dict[str, Callable[[], np.ndarray]] = {
        "one culprit": lambda: removed[:, 7].copy(),
        "OR of two": lambda: removed[:, 7] * removed[:, 42],
        "coin flips (worst case)": lambda: (rng.random(256) < 0.5).astype(np.float64),
    }
    for name, make in targets.items():
        y = make()
        wall, cpu = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            lasso_cv(removed, y)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(
            f"  {name:<26} wall median {statistics.median(wall) * 1000:6.1f} ms "
            f"(max {max(wall) * 1000:6.1f})   CPU median {statistics.median(cpu) * 1000:6.1f} ms"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--sizes", default="10,30,100")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-counts", action="store_true", help="only time the fit")
    ap.add_argument(
        "--at",
        default=f"{DEFAULT_MASKS},{2 * DEFAULT_MASKS}",
        help="mask counts at which to report the hit and surrogate-unreliable rates",
    )
    args = ap.parse_args()
    if not args.no_counts:
        at = [int(m) for m in args.at.split(",")]
        print(
            f"reruns to put the culprit(s) first ({args.trials} trials; samples={SAMPLES}; "
            "surrogate: fewest reruns with the top weights exactly the culprits in ≥95 % of "
            "trials, baseline included)"
        )
        print("hit@M / flag@M: share of trials with the culprits on top / surrogate-unreliable")
        head = f"{'sources':>7}  {'case':<24} {'leave-one-out':>16}  {'surrogate':>10}" + "".join(
            f"  {'hit@' + str(m):>8} {'flag@' + str(m):>9}" for m in at
        )
        print(head)
        print("-" * len(head))
        for n in (int(s) for s in args.sizes.split(",")):
            for case in CASES:
                loo, found = loo_reruns(case, n, args.trials)
                loo_txt = "never" if loo is None else f"{loo:.0f} ({found}/{args.trials})"
                m = masks_needed(case, n, args.trials)
                sur_txt = f"> {SAMPLES + GRID[-1]}" if m is None else str(SAMPLES + m)
                cols = ""
                for masks in at:
                    hit, flagged = at_masks(case, n, args.trials, masks)
                    cols += f"  {hit:>8.0%} {flagged:>9.0%}"
                print(f"{n:>7}  {case:<24} {loo_txt:>16}  {sur_txt:>10}{cols}", flush=True)
    time_fit(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
