"""Benchmark `afp aggregate --json` and `afp events --json` on a synthetic long run.

Compares, in the same run and on the same file, against a bare ``msgspec.json.decode`` of the
whole file (recursion limit raised) — both in-process and as a separate process, so start-up cost
is visible rather than hidden. Also reports each command's peak memory against the file size.

    python benchmarks/foundation_bench.py            # ~30 MB file, 5 repetitions
    python benchmarks/foundation_bench.py --mb 60 --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BARE = (
    "import msgspec, sys, threading;"
    "sys.setrecursionlimit(100000);"
    "data = open(sys.argv[1], 'rb').read();"
    "msgspec.json.decode(data)"
)


def run_child(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one child process, output discarded."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read() if proc.stderr else b""
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed ({proc.returncode}): {err.decode()[-500:]}")
    return wall, usage.ru_maxrss * 1024


def measure(argv: list[str], reps: int) -> tuple[float, int]:
    runs = [run_child(argv) for _ in range(reps)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def in_process_bare(path: Path, reps: int) -> float:
    import msgspec

    sys.setrecursionlimit(100_000)
    data = path.read_bytes()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        msgspec.json.decode(data)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def in_process_afp(path: Path, reps: int) -> dict[str, float]:
    """The pipeline without interpreter start-up: load + derive + encode, per command."""
    import msgspec

    from agentbisect.importers import open_run

    agg, evs = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        run = open_run(str(path))
        doc = {
            "source": run.source(),
            "run": run.run_row,
            "aggregates": run.aggregates,
            "index": run.index.all(),
            "strip": run.step_strip(),
            "honestyFlags": run.flags,
        }
        msgspec.json.encode(doc)
        agg.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        run = open_run(str(path))
        with open(os.devnull, "wb") as null:
            null.writelines(p for r in run.loaded.domain.raws() for p in (r, b"\n"))
        run.flags  # noqa: B018
        evs.append(time.perf_counter() - t0)
    return {"aggregate": statistics.median(agg), "events": statistics.median(evs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=float, default=30.0, help="target file size (default 30)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--file", type=Path, default=HERE / "out" / "long-run.json")
    args = ap.parse_args()
    args.file.parent.mkdir(parents=True, exist_ok=True)
    # Generate in a child process: a fork inherits the parent's peak RSS, which would then be
    # misread as the measured child's peak.
    gen = subprocess.run(
        [sys.executable, str(HERE / "synth.py"), str(args.file), "--mb", str(args.mb)],
        check=True,
        capture_output=True,
        text=True,
    )
    info = json.loads(gen.stdout)
    size = args.file.stat().st_size
    py = sys.executable
    bare_proc, bare_rss = measure([py, "-c", BARE, str(args.file)], args.reps)
    startup, _ = measure([py, "-c", "pass"], args.reps)
    agg_proc, agg_rss = measure(
        [py, "-m", "agentbisect", "aggregate", str(args.file), "--json"], args.reps
    )
    ev_proc, ev_rss = measure(
        [py, "-m", "agentbisect", "events", str(args.file), "--json"], args.reps
    )
    bare_in = in_process_bare(args.file, args.reps)  # in-process last, after every child
    afp_in = in_process_afp(args.file, args.reps)
    report = {
        "file": {"bytes": size, **info},
        "bareDecode": {
            "inProcessS": round(bare_in, 4),
            "processS": round(bare_proc, 4),
            "peakRssMB": round(bare_rss / 1e6, 1),
        },
        "pythonStartupS": round(startup, 4),
        "aggregate": {
            "processS": round(agg_proc, 4),
            "inProcessS": round(afp_in["aggregate"], 4),
            "ratioProcess": round(agg_proc / bare_proc, 3),
            "ratioInProcess": round(afp_in["aggregate"] / bare_in, 3),
            "peakRssOverFile": round(agg_rss / size, 2),
        },
        "events": {
            "processS": round(ev_proc, 4),
            "inProcessS": round(afp_in["events"], 4),
            "ratioProcess": round(ev_proc / bare_proc, 3),
            "ratioInProcess": round(afp_in["events"] / bare_in, 3),
            "peakRssOverFile": round(ev_rss / size, 2),
        },
        "goal": "ratios <= 1.0 against the bare decode; peak RSS <= 4x the file size",
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
