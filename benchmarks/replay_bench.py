"""How often does ``afp bisect --replay`` confirm the planted culprit — and nothing else — and
what does a replay request cost afp itself?

Every scenario of the planted-culprit corpus (``planted/cases``: agentfootprint recordings;
``planted/traces``: the same scenarios as GenAI and OpenInference OTLP traces and as chat
transcripts) is bisected at its answering LLM call with ``--replay`` against a scripted local
OpenAI-compatible server (``tests/fake_openai.py``): it repeats the scenario's wrong answer while
the planted text is anywhere in the messages, and answers otherwise once it is gone — the model
the planted-culprit scenarios describe. Options: ``--max-ablations 8``, ``--comparator
contains:<the wrong answer>``, ``--jobs 1``, the default embedder and ranking, no cache.

Reported per convention: the share of scenarios where the planted source is ``confirmed`` and no
other suspect is (the issue's goal: ≥ 95 % per trace convention), the misses by reason, and
requests per bisect; overall, afp's overhead per request — the time ``ReplayRunner.run_one``
takes (removal, encoding, the HTTP client, parsing) minus the server's own handling time of that
request (requests are sequential, so the two pair up), median and 95th percentile.

    python benchmarks/replay_bench.py [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from msgspec import UNSET  # noqa: E402

from agentbisect.bisect.api import BisectOptions, bisect_run  # noqa: E402
from agentbisect.bisect.causal.replay import ReplayRunner  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from agentbisect.results.report import Suspect  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

CASES = ROOT / "benchmarks" / "planted" / "cases"
TRACES = ROOT / "benchmarks" / "planted" / "traces"
FORMATS = ("genai", "openinference", "transcript")
RIGHT = "I cannot confirm that from the sources I have."

sys.path.insert(0, str(ROOT / "benchmarks"))
from localize_accuracy import is_planted, is_planted_trace  # noqa: E402

# afp's own time per request: run_one's wall time, recorded around the real method
_RUN_ONE_NS: list[int] = []
_real_run_one = ReplayRunner.run_one


def _timed_run_one(self: ReplayRunner, payload: dict[str, Any], seed: int, probe: str) -> Any:
    t0 = time.perf_counter_ns()
    sent_before = self.budget.used_requests
    try:
        return _real_run_one(self, payload, seed, probe)
    finally:
        if self.budget.used_requests > sent_before:  # a request was made (not skipped)
            _RUN_ONE_NS.append(time.perf_counter_ns() - t0)


ReplayRunner.run_one = _timed_run_one  # type: ignore[method-assign]


def judge(suspects: list[Suspect], planted: Any) -> str:
    confirmed = [s for s in suspects if getattr(s.verdict, "verdict", "") == "confirmed"]
    hit = [s for s in confirmed if planted(s)]
    if hit and len(confirmed) == 1:
        return "ok"
    if hit:
        return "others confirmed too"
    target = next((s for s in suspects if planted(s)), None)
    if target is None:
        return "planted not among the suspects"
    verdict = getattr(target.verdict, "verdict", None)
    if verdict is None and target.ablation is UNSET:
        return "planted has no rerun spec (a recording's earlier LLM output)"
    if verdict is None:
        return "planted ranked below --max-ablations 8"
    return f"planted {verdict}"


def one(
    fake: FakeOpenAI, path: Path, step: str, planted_text: str, answer: str
) -> tuple[list[Suspect], int]:
    fake.planted = [planted_text]
    fake.wrong = answer
    fake.right = RIGHT
    before = len(fake.requests)
    run = Run(load(str(path)))
    opts = BisectOptions(
        at_step=step,
        replay=fake.url,
        replay_model="bench-model",  # transcripts record none
        comparator=f"contains:{answer}",
        max_ablations=8,
        jobs=1,
        no_cache=True,
        original_output=answer,
    )
    result = bisect_run(run, opts, overview=False)
    return result.report.suspects, len(fake.requests) - before


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="only the first N scenarios")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows: dict[str, dict[str, Any]] = {}
    t_start = time.perf_counter()
    with FakeOpenAI(planted=["?"]) as fake:
        cases = sorted(CASES.glob("*.truth.json"))
        traces = sorted(TRACES.glob("*.truth.json"))
        if args.limit:
            cases, traces = cases[: args.limit], traces[: args.limit]
        row = rows.setdefault("recording", {"n": 0, "ok": 0, "requests": 0, "misses": {}})
        for p in cases:
            t = json.loads(p.read_text("utf-8"))
            rec = CASES / p.name.replace(".truth.json", ".recording.json")
            suspects, n = one(fake, rec, t["atStep"], t["plantedText"], t["answer"])
            verdict = judge(suspects, lambda s, t=t: is_planted(s, t["planted"]))
            _count(row, verdict, n, t["scenario"])
        for fmt in FORMATS:
            row = rows.setdefault(fmt, {"n": 0, "ok": 0, "requests": 0, "misses": {}})
            for p in traces:
                t = json.loads(p.read_text("utf-8"))
                case = t["formats"][fmt]
                path = TRACES / case["file"]
                run = Run(load(str(path)))
                meta = run.import_meta
                assert meta is not None
                step = meta.llmCallIds[-1]
                suspects, n = one(fake, path, step, t["plantedText"], t["answer"])
                verdict = judge(
                    suspects, lambda s, c=case, m=meta: is_planted_trace(s, c["planted"], m)
                )
                _count(row, verdict, n, t["scenario"])
        handling = list(fake.handling_ns)
    overhead = [a - b for a, b in zip(_RUN_ONE_NS, handling, strict=False)]
    out = {
        "conventions": {
            k: {
                "scenarios": r["n"],
                "confirmedAlone": r["ok"],
                "share": r["ok"] / r["n"] if r["n"] else 0.0,
                "requestsPerBisect": r["requests"] / r["n"] if r["n"] else 0.0,
                "misses": r["misses"],
            }
            for k, r in rows.items()
        },
        "requests": len(overhead),
        "overheadMsMedian": statistics.median(overhead) / 1e6 if overhead else None,
        "overheadMsP95": (
            statistics.quantiles(overhead, n=20)[-1] / 1e6 if len(overhead) > 20 else None
        ),
        "serverMsMedian": statistics.median(handling) / 1e6 if handling else None,
        "seconds": round(time.perf_counter() - t_start, 1),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print("afp bisect --replay on the planted corpus (--max-ablations 8, contains: comparator)")
    print(f"{'convention':<14} {'confirmed alone':>18} {'requests/bisect':>16}  misses")
    for k, r in out["conventions"].items():
        share = f"{r['confirmedAlone']}/{r['scenarios']} ({100 * r['share']:.1f} %)"
        misses = "; ".join(f"{why}: {', '.join(names)}" for why, names in r["misses"].items())
        print(f"{k:<14} {share:>18} {r['requestsPerBisect']:>16.1f}  {misses or '-'}")
    print(
        f"afp's overhead per request (--jobs 1, {out['requests']} requests, server time "
        f"subtracted): median {out['overheadMsMedian']:.2f} ms, p95 {out['overheadMsP95']:.2f} ms "
        f"(server's own handling: median {out['serverMsMedian']:.2f} ms); {out['seconds']} s in all"
    )
    return 0


def _count(row: dict[str, Any], verdict: str, requests: int, name: str) -> None:
    row["n"] += 1
    row["requests"] += requests
    if verdict == "ok":
        row["ok"] += 1
    else:
        row["misses"].setdefault(verdict, []).append(name)


if __name__ == "__main__":
    raise SystemExit(main())
