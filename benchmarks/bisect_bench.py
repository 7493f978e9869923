"""Benchmark ``afp bisect`` on a synthetic long run (issue 3, "Speed").

Measures, on the same file: a bare ``msgspec.json.decode`` (recursion limit raised), ``afp bisect
FILE --at-llm -1 --json`` end to end (in process: load + localize + JSON; and as a subprocess,
interpreter start-up included), and the localization alone (load excluded) at default budgets,
whose goal is < 50 ms — all under ``--upstream`` (mock embedder, upstream ranking), the setting
the start-up and speed goals are defined for; ``embed_speed.py`` measures the default embedder. Uses ``benchmarks/synth.py``'s ``make_long_run`` when it is there, else a
small generator of its own.

    python benchmarks/bisect_bench.py [--mb 30] [--repeat 5] [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentbisect.bisect import report_json  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.core.deep import run_deep  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402


def _own_long_run(path: Path, iterations: int = 220, pad: int = 12_000) -> None:
    """Fallback generator: a ReAct-shaped run (seed, context, LLM, route, tools per iteration)."""
    log: list[str] = []
    tree_open: list[str] = []
    events: list[str] = []
    idx = 0

    def commit(rid: str, stage: str, writes: dict[str, object], verb: str = "set") -> None:
        nonlocal idx
        trace = [{"path": k, "verb": verb} for k in writes]
        log.append(
            json.dumps(
                {
                    "idx": idx,
                    "stage": stage,
                    "stageId": rid.split("#")[0],
                    "runtimeStageId": rid,
                    "trace": trace,
                    "overwrite": writes,
                    "updates": {},
                }
            )
        )
        idx += 1

    def node(rid: str, name: str, reads: list[str]) -> None:
        sr = json.dumps({r: None for r in reads})
        tree_open.append(
            f'{{"runtimeStageId":{json.dumps(rid)},"name":{json.dumps(name)},"stageReads":{sr},"next":'
        )

    commit("seed#0", "Initialize", {"history": [], "iteration": 0, "systemPromptInjections": []})
    node("seed#0", "Initialize", [])
    n = 1
    for it in range(iterations):
        filler = ("refund policy order window " * (pad // 27))[:pad]
        ctx, llm, route, tools = (
            f"context#{n}",
            f"call-llm#{n + 1}",
            f"sf-route#{n + 2}",
            f"tool-calls#{n + 3}",
        )
        n += 4
        commit(
            ctx,
            "Context",
            {
                "systemPromptInjections": [
                    {
                        "source": "fact",
                        "sourceId": f"f{it % 7}",
                        "rawContent": f"fact {it} {filler[:200]}",
                    }
                ]
            },
            "append",
        )
        node(ctx, "Context", ["iteration"])
        commit(
            llm,
            "CallLLM",
            {
                "llmLatestContent": f"answer {it}",
                "llmLatestToolCalls": [{"name": "lookup", "args": {"i": it}}],
            },
        )
        node(llm, "CallLLM", ["systemPromptInjections", "history", "iteration"])
        events.append(
            json.dumps(
                {
                    "type": "agentfootprint.stream.llm_start",
                    "payload": {"iteration": it},
                    "meta": {"runtimeStageId": llm},
                }
            )
        )
        commit(route, "Route", {"iteration": it + 1})
        node(route, "Route", ["llmLatestToolCalls", "iteration"])
        commit(
            tools,
            "ToolCalls",
            {
                "lastToolResult": {"toolName": "lookup", "result": filler},
                "history": [{"role": "tool", "content": filler}],
            },
            "append",
        )
        node(tools, "ToolCalls", ["llmLatestToolCalls", "history"])
    tree = "".join(tree_open) + "null" + "}" * len(tree_open)
    path.write_text(
        '{"snapshot":{"commitValues":"delta","commitLog":['
        + ",".join(log)
        + '],"executionTree":'
        + tree
        + '},"events":['
        + ",".join(events)
        + '],"structure":{}}'
    )


def best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--file")
    args = ap.parse_args()

    if args.file:
        path = Path(args.file)
    else:
        path = Path(tempfile.gettempdir()) / f"afp-bisect-bench-{args.mb:g}mb.json"
        if not path.exists():
            try:
                from benchmarks.synth import make_long_run

                make_long_run(path, target_mb=args.mb)
                source = "benchmarks/synth.py make_long_run"
            except ImportError:
                _own_long_run(path)
                source = "bisect_bench fallback generator"
            print(f"generated {path} with {source}")
    data = path.read_bytes()
    print(f"file: {path} ({len(data) / 1e6:.1f} MB)")

    def artifacts_from_loaded(loaded: object) -> Run:
        # What the localizer reads of a recording, derived eagerly (was bisect/artifacts.py).
        run = Run(loaded)  # type: ignore[arg-type]
        _ = (run.commit_log, run.reads_of, run.llm_call_ids, run.quality_lowest)
        return run

    bare = best(lambda: run_deep(msgspec.json.decode, data), args.repeat)

    def end_to_end() -> str:
        loaded = load(str(path))
        art = artifacts_from_loaded(loaded)
        return report_json(localize(art, at_step=art.llm_call_ids[-1], upstream=True), indent=2)

    e2e = best(end_to_end, args.repeat)
    loaded = load(str(path))
    art_t = best(lambda: artifacts_from_loaded(loaded), args.repeat)

    def loc() -> object:
        art = artifacts_from_loaded(loaded)
        t = time.perf_counter()
        localize(art, at_step=art.llm_call_ids[-1], upstream=True)
        return time.perf_counter() - t

    loc_times = sorted(loc() for _ in range(args.repeat))  # type: ignore[type-var]
    sub_times = []
    for _ in range(max(1, args.repeat // 2)):
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "agentbisect",
                "bisect",
                str(path),
                "--at-llm",
                "-1",
                "--json",
                "--upstream",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        sub_times.append(time.perf_counter() - t)
    art = artifacts_from_loaded(loaded)
    rep = localize(art, at_step=art.llm_call_ids[-1], upstream=True)
    print(
        f"commits {len(art.commit_log)}, LLM calls {len(art.llm_call_ids)}, slice nodes {rep.sliceStats.nodes}, "
        f"truncated {rep.sliceStats.truncated is not msgspec.UNSET}"
    )
    print(
        f"bare msgspec.json.decode          best {bare[0] * 1e3:8.1f} ms  median {bare[1] * 1e3:8.1f} ms"
    )
    print(
        f"bisect end to end (in process)    best {e2e[0] * 1e3:8.1f} ms  median {e2e[1] * 1e3:8.1f} ms"
        f"  ratio {e2e[0] / bare[0]:.2f}x"
    )
    print(f"  of which commit log + tree decode best {art_t[0] * 1e3:6.1f} ms")
    print(
        f"localization alone (load excluded) best {loc_times[0] * 1e3:7.1f} ms  median "
        f"{statistics.median(loc_times) * 1e3:7.1f} ms  (goal < 50 ms)"
    )
    print(f"afp bisect subprocess (incl. start-up) best {min(sub_times) * 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
