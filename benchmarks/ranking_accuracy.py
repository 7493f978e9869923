"""Top-1, top-3 and MRR of the rankings on the issue-29 ranking corpus, with bootstrap intervals.

    nice -n 10 python3 benchmarks/ranking/ranking_traces.py   # the corpus (real instrumentations), cached
    python3 benchmarks/ranking_accuracy.py            # train and dev splits
    python3 benchmarks/ranking_accuracy.py --test     # and the frozen test split: once per round
    python3 benchmarks/ranking_accuracy.py --test --planted   # and the older planted splits
    python3 benchmarks/ranking_accuracy.py --select   # the selection split (selection data)

Rows: the learned ranking (``--ranking learned``, the packaged model), today's evidence-first
weights (``--ranking evidence-first``) and upstream's report (``--upstream``: mock embedder,
upstream ranking), each per split and per trace convention (OTLP under the GenAI conventions,
OTLP under OpenInference, chat transcript) and over all three. ``--planted`` adds the older
planted-culprit corpus (``benchmarks/planted``: its ``main`` split, which the learned model is
trained on, and the held-out splits ``heldout`` … ``heldout6``, which it never saw) in its five
formats (the three above, Langfuse and LangSmith exports). The planted ``select`` split is the
fourth round's selection data (the model is chosen on it), so ``--planted`` leaves it out and only
``--select`` shows it, after the other rows and named as selection data. A planted source past the first
12 suspects (``afp bisect``'s default cut) is a miss. The intervals are 95 % percentile bootstrap
intervals resampling *domains* (the unit the splits were drawn by; 2,000 resamples, seeded), so
they include the spread between domains, not only between cases. The learned ranks are computed
from the cached measurements with the package's own model code (``learned.probabilities``), the
order ``afp bisect --ranking learned`` gives (a test holds the two to each other).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "ranking"))

from ranking_cases import MAX_SUSPECTS, SELECTION, load_cases, load_planted_cases  # noqa: E402

from agentbisect.bisect.evidence.learned import probabilities  # noqa: E402

RANKINGS = (("learned", "learned"), ("evidence-first", "evidenceFirst"), ("--upstream", "upstream"))
CONVENTIONS = ("genai", "openinference", "transcript", "langfuse", "langsmith")
RESAMPLES = 2000


def learned_rank(c: dict[str, Any]) -> int | None:
    if c["planted"] is None:
        return None
    p = probabilities(
        c["signals"], c["kinds"], c["positions"], c["texts"], c["answer"], c["question"]
    )
    order = sorted(range(len(p)), key=lambda i: -p[i])  # stable: upstream order on ties
    r = order.index(c["planted"]) + 1
    return r if r <= MAX_SUSPECTS else None


def metrics(r: list[int | None]) -> tuple[float, float, float]:
    n = len(r)
    return (
        sum(1 for x in r if x == 1) / n,
        sum(1 for x in r if x is not None and x <= 3) / n,
        sum(1 / x for x in r if x) / n,
    )


def bootstrap(by_domain: dict[str, list[int | None]], seed: int) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    domains = sorted(by_domain)
    draws: list[tuple[float, float, float]] = []
    for _ in range(RESAMPLES):
        pick = [rng.choice(domains) for _ in domains]
        draws.append(metrics([x for d in pick for x in by_domain[d]]))
    out = []
    for k in range(3):
        v = sorted(d[k] for d in draws)
        out.append((v[int(0.025 * RESAMPLES)], v[int(0.975 * RESAMPLES) - 1]))
    return out


def table(cases: list[dict[str, Any]], splits: list[str]) -> list[dict[str, Any]]:
    rows = []
    for split in splits:
        for conv in (*CONVENTIONS, "all"):
            if (
                not any(c["split"] == split and c["convention"] == conv for c in cases)
                and conv != "all"
            ):
                continue
            sub = [
                c
                for c in cases
                if c["split"] == split and (conv == "all" or c["convention"] == conv)
            ]
            for name, key in RANKINGS:
                by_domain: dict[str, list[int | None]] = {}
                for c in sub:
                    by_domain.setdefault(c["domain"], []).append(c[key])
                r = [x for v in by_domain.values() for x in v]
                t1, t3, mrr = metrics(r)
                ci = bootstrap(by_domain, seed=29)
                rows.append(
                    {
                        "split": split,
                        "convention": conv,
                        "ranking": name,
                        "n": len(r),
                        "top1": t1,
                        "top3": t3,
                        "mrr": mrr,
                        "ci": ci,
                    }
                )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="wordllama")
    ap.add_argument("--test", action="store_true", help="also score the frozen test split")
    ap.add_argument("--refresh", action="store_true", help="measure the corpus again")
    ap.add_argument("--planted", action="store_true", help="also the older planted splits")
    ap.add_argument("--select", action="store_true", help="also the selection split (not a test)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cases = load_cases(args.embedder, refresh=args.refresh)
    splits = ["train", "dev"] + (["test"] if args.test else [])
    cases = [c for c in cases if c["split"] in splits]
    if args.planted or args.select:
        older = load_planted_cases(args.embedder, refresh=args.refresh)
        # the selection split is never one of the test rows: it is shown only when asked, last
        named = sorted({c["split"] for c in older} - {SELECTION}, key=lambda k: (k != "main", k))
        shown = (named if args.planted else []) + ([SELECTION] if args.select else [])
        cases += [c for c in older if c["split"] in shown]
        splits += shown
    for c in cases:
        c["learned"] = learned_rank(c)
    rows = table(cases, splits)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0

    def pct(v: float, lo: float, hi: float) -> str:
        return f"{100 * v:5.1f} [{100 * lo:5.1f}–{100 * hi:5.1f}]"

    print(
        f"ranking corpus ({args.embedder}); % with 95 % domain-bootstrap intervals; "
        f"cut at {MAX_SUSPECTS} suspects"
    )
    print("| split | convention | ranking | n | top-1 % | top-3 % | MRR |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        (a, b), (c, d), (e, f) = r["ci"]
        split = f"{SELECTION} (selection data)" if r["split"] == SELECTION else r["split"]
        print(
            f"| {split} | {r['convention']} | {r['ranking']} | {r['n']} | "
            f"{pct(r['top1'], a, b)} | {pct(r['top3'], c, d)} | "
            f"{r['mrr']:.3f} [{e:.3f}–{f:.3f}] |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
