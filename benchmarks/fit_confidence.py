"""Fit the top suspect's calibrated confidence (``agentbisect/bisect/confidence.py``) on the
planted-culprit corpus and write ``agentbisect/bisect/confidence_fit.json``.

Each case is bisected exactly as ``afp bisect`` does by default (wordllama, evidence-first); the
one feature is the report's evidence margin (``confidence.margin``: read from
``suspects[].evidence.score`` only, so a new combiner needs nothing here but a rerun). Fitted:
a logistic ``P(top-1 correct | margin)`` by Newton's method, and the margin above which the top
suspect is called confident — the smallest whose top-1 precision on the training cases reaches
a level τ, with τ the lowest (from 0.90 up) whose *cross-validated* precision (10 folds, the
threshold chosen on nine and applied to the tenth) reaches 90 %. The shortlist k is the
smallest k whose top-k recall on the cross-validated not-confident cases reaches 90 %.

    python benchmarks/fit_confidence.py [--dry-run]      # ~1 min on 2 cores

Run it again after any change to the ranking (``benchmarks/localize_accuracy.py`` then reports
precision when confident and how often it is confident).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from localize_accuracy import CASES, MAX_SUSPECTS, rank_of  # noqa: E402

from agentbisect.bisect.confidence import FIT_FILE, TARGET, margin  # noqa: E402
from agentbisect.bisect.embed.choose import resolve_embedder  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402

FOLDS = 10
MIN_CONFIDENT = 5  # a threshold is chosen only above at least this many training cases


def observations() -> list[tuple[str, float, int | None]]:
    """(scenario, margin, rank of the planted culprit) of every case, as afp bisect ranks."""
    emb = resolve_embedder("wordllama", use_cache=False).embedder
    out = []
    for path in sorted(CASES.glob("*.truth.json")):
        t = json.loads(path.read_text("utf-8"))
        run = Run(load(str(CASES / f"{t['scenario']}.recording.json")))
        report = localize(run, at_step=t["atStep"], embedder=emb, max_suspects=MAX_SUSPECTS)
        m = margin(report.suspects)
        out.append(
            (t["scenario"], m if m is not None else 0.0, rank_of(report.suspects, t["planted"]))
        )
    return out


def logistic(xs: list[float], ys: list[int]) -> tuple[float, float]:
    """Maximum-likelihood (a, b) of P(y=1) = σ(a + b·x), Newton's method with a tiny ridge."""
    a = b = 0.0
    for _ in range(100):
        ga = gb = 0.0
        haa, hab, hbb = 1e-6, 0.0, 1e-6
        for x, y in zip(xs, ys, strict=True):
            p = 1.0 / (1.0 + math.exp(-(a + b * x)))
            ga += y - p
            gb += (y - p) * x
            w = p * (1 - p)
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10:
            break
    return a, b


def threshold(ms: list[float], ok: list[bool], level: float) -> float | None:
    """The smallest margin whose cases at or above it are top-1 correct ≥ ``level`` of the time."""
    for t in sorted(set(ms)):
        above = [c for m, c in zip(ms, ok, strict=True) if m >= t]
        if len(above) >= MIN_CONFIDENT and sum(above) / len(above) >= level:
            return t
    return None


def cross_validate(ms: list[float], ok: list[bool], level: float) -> list[bool]:
    """Out-of-fold confident calls: each fold's threshold chosen on the other folds."""
    calls = [False] * len(ms)
    for f in range(FOLDS):
        train = [i for i in range(len(ms)) if i % FOLDS != f]
        t = threshold([ms[i] for i in train], [ok[i] for i in train], level)
        for i in range(f, len(ms), FOLDS):
            calls[i] = t is not None and ms[i] >= t
    return calls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    args = ap.parse_args(argv)
    obs = observations()
    ms = [m for _, m, _ in obs]
    ranks = [r for _, _, r in obs]
    ok = [r == 1 for r in ranks]
    a, b = logistic(ms, [int(x) for x in ok])
    chosen, calls = None, [False] * len(ms)
    for step in range(11):  # τ = 0.90, 0.91, … 1.00
        level = round(0.9 + step / 100, 2)
        calls = cross_validate(ms, ok, level)
        hits = [c for c, call in zip(ok, calls, strict=True) if call]
        if hits and sum(hits) / len(hits) >= TARGET:
            chosen = level
            break
    hits = [c for c, call in zip(ok, calls, strict=True) if call] if chosen else []
    rest = [r for r, call in zip(ranks, calls, strict=True) if not call]
    k = next(
        (
            k
            for k in range(1, MAX_SUSPECTS + 1)
            if sum(1 for r in rest if r is not None and r <= k) >= TARGET * len(rest)
        ),
        MAX_SUSPECTS,
    )
    fit = {
        "a": a,
        "b": b,
        "confidentAbove": threshold(ms, ok, chosen) if chosen else None,
        "shortlist": k,
        "cvPrecision": sum(hits) / len(hits) if hits else None,
        "cvConfidentShare": len(hits) / len(ms),
        "cvShortlistRecall": (
            sum(1 for r in rest if r is not None and r <= k) / len(rest) if rest else 1.0
        ),
        "cases": len(ms),
        "folds": FOLDS,
        "corpus": "benchmarks/planted/cases (wordllama, evidence-first)",
        "embedder": "wordllama",
    }
    print(
        f"{len(ms)} cases, top-1 {sum(ok)}/{len(ms)}; logistic a={a:.3f} b={b:.3f}; "
        f"confident above margin {fit['confidentAbove']} (training precision τ={chosen}); "
        f"cross-validated: precision when confident "
        f"{sum(hits)}/{len(hits)}, confident on {len(hits)}/{len(ms)}; "
        f"shortlist #1–#{k} holds {fit['cvShortlistRecall']:.3f} of the rest"
    )
    if not args.dry_run:
        FIT_FILE.write_text(json.dumps(fit, indent=1) + "\n", "utf-8")
        print(f"wrote {FIT_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
