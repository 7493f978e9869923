"""``afp scan`` measured (issue 27): runs per second with ``--jobs 1`` and ``--jobs 2`` on 10,000
small generated traces (~15 KB, 5 LLM calls each) and 100 large ones (~3 MB, 200 LLM calls
each), the speed-up, peak memory for 1,000 against 10,000 files, the Ray engine's overhead on a
local instance, and the per-run cost of a scan against an ``afp aggregate`` process on one
small trace.

    python benchmarks/scan_bench.py                 # everything (data cached in --data)
    python benchmarks/scan_bench.py --small 2000 --skip-ray

Every figure is wall time *and* CPU time (user + system of afp and all its worker processes):
on a shared machine wall time says how loaded it was, CPU time what the scan cost. Peak memory
is the largest resident set of one process (the scan's own, or a worker's) and of the whole
process tree at one moment, sampled from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import otlp_gen

ROOT = Path(__file__).resolve().parent.parent
SMALL_SPANS = 11  # 5 chat + 5 tool spans under one agent span
LARGE_SPANS = 401  # 200 chat + 200 tool spans
SMALL_PAD = 200  # system-instruction characters added per chat span, to reach ~15 KB
LARGE_PAD = 12_000  # … and ~3 MB


def trace_bytes(spans: int, pad: int) -> bytes:
    items = otlp_gen.generate(spans)
    extra = json.dumps(
        [{"type": "text", "content": otlp_gen.SYSTEM + " " + "policy " * (pad // 7)}]
    )
    for span in items:
        for attr in span["attributes"]:
            if attr["key"] == "gen_ai.system_instructions":
                attr["value"] = {"stringValue": extra}
    return otlp_gen.encode(items)


def make_files(directory: Path, count: int, spans: int, pad: int) -> Path:
    """``count`` traces, each its own trace id, in ``directory`` (made once, then reused)."""
    stamp = directory.with_name(directory.name + ".complete")  # beside it: never scanned
    if stamp.exists() and stamp.read_text() == f"{count} {spans} {pad}":
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    template = trace_bytes(spans, pad)
    old = otlp_gen.TRACE.encode()
    for i in range(count):
        sub = directory / f"d{i // 1000:03d}"
        sub.mkdir(exist_ok=True)
        (sub / f"t{i:06d}.otlp.jsonl").write_bytes(template.replace(old, f"{i:032x}".encode()))
    stamp.write_text(f"{count} {spans} {pad}")
    return directory


class Tree:
    """CPU time and resident memory of a process and all its descendants (pool workers, the
    forkserver, Ray's raylet and workers), sampled from /proc every ``every`` seconds: waiting
    for a child does not count the grandchildren a forkserver or a raylet started."""

    def __init__(self, root: int, every: float = 0.05) -> None:
        self.root = root
        self.every = every
        self.ticks: dict[int, int] = {}  # pid -> user+system clock ticks, last seen
        self.peak_one = 0  # largest RSS of one process (bytes)
        self.peak_sum = 0  # largest RSS of the whole tree at one moment (bytes)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._hz = os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> Tree:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def cpu_seconds(self) -> float:
        return sum(self.ticks.values()) / self._hz

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.every)

    def _sample(self) -> None:
        parent: dict[int, int] = {}
        stats: dict[int, list[str]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry)
            parent[pid] = int(fields[1])
            stats[pid] = fields
        total = 0
        for pid, fields in stats.items():
            p = pid
            while p not in (0, 1, self.root) and p in parent:
                p = parent[p]
            if p != self.root:
                continue
            self.ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
            rss = int(fields[21]) * self._page
            total += rss
            self.peak_one = max(self.peak_one, rss)
        self.peak_sum = max(self.peak_sum, total)


def afp(*args: str) -> tuple[float, float, Tree, subprocess.CompletedProcess[str]]:
    """Run ``afp ARGS`` as a process: wall seconds, CPU seconds (it and every process it
    started, sampled), the process tree's memory, and the process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAY_USAGE_STATS_ENABLED="0")
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    with Tree(proc.pid) as tree:
        out, err = proc.communicate()
    wall = time.perf_counter() - t
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if proc.returncode != 0:
        raise SystemExit(f"afp {' '.join(args)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, tree.cpu_seconds(), tree, done


def scan(src: Path, out: Path, *extra: str) -> dict[str, float]:
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu, tree, proc = afp("scan", str(src), "-o", str(out), "--json", *extra)
    summary = json.loads(proc.stdout)
    runs = summary["runs"]
    return {
        "runs": runs,
        "errors": summary["errors"],
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "runs_per_s": round(runs / wall, 1),
        "runs_per_cpu_s": round(runs / cpu, 1),
        "peak_rss_one_process_mib": round(tree.peak_one / 2**20, 1),
        "peak_rss_all_processes_mib": round(tree.peak_sum / 2**20, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("/tmp/afp-scan-bench"))
    ap.add_argument("--small", type=int, default=10_000)
    ap.add_argument("--large", type=int, default=100)
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--aggregate-runs", type=int, default=20, help="afp aggregate processes timed")
    args = ap.parse_args()
    data: Path = args.data
    small = make_files(data / "small", args.small, SMALL_SPANS, SMALL_PAD)
    large = make_files(data / "large", args.large, LARGE_SPANS, LARGE_PAD)
    one_small = next(small.rglob("*.otlp.jsonl"))
    one_large = next(large.rglob("*.otlp.jsonl"))
    report: dict[str, object] = {
        "load_average_before": os.getloadavg(),
        "cpus": os.cpu_count(),
        "small_file_bytes": one_small.stat().st_size,
        "large_file_bytes": one_large.stat().st_size,
    }
    out = data / "out"
    for name, src in (("small", small), ("large", large)):
        by_jobs = {}
        for jobs in (1, 2):
            by_jobs[f"jobs{jobs}"] = scan(src, out, "--jobs", str(jobs))
            print(name, f"--jobs {jobs}", by_jobs[f"jobs{jobs}"], flush=True)
        by_jobs["speedup_wall"] = round(by_jobs["jobs1"]["wall_s"] / by_jobs["jobs2"]["wall_s"], 2)
        report[name] = by_jobs

    # peak memory against the number of files: 1,000 of the small traces, then all of them
    thousand = data / "small-1000"
    if not thousand.exists():
        thousand.mkdir()
        for f in sorted(small.rglob("*.otlp.jsonl"))[:1000]:
            os.link(f, thousand / f.name)
    mem = {}
    for label, src in (("files_1000", thousand), (f"files_{args.small}", small)):
        for jobs in (1, 2):
            got = scan(src, out, "--jobs", str(jobs))
            mem[f"{label}_jobs{jobs}"] = {
                k: got[k] for k in ("peak_rss_one_process_mib", "peak_rss_all_processes_mib")
            }
    report["peak_memory"] = mem
    print("peak memory", mem, flush=True)

    # the per-run cost in a scan against one afp aggregate process on the same small trace
    walls, cpus = [], []
    for _ in range(args.aggregate_runs):
        wall, cpu, _, _ = afp("aggregate", str(one_small), "--json")
        walls.append(wall)
        cpus.append(cpu)
    jobs1 = report["small"]["jobs1"]  # type: ignore[index]
    per_run_cpu = jobs1["cpu_s"] / jobs1["runs"]
    per_run_wall = jobs1["wall_s"] / jobs1["runs"]
    report["per_run"] = {
        "aggregate_process_cpu_ms": round(statistics.median(cpus) * 1000, 1),
        "aggregate_process_wall_ms": round(statistics.median(walls) * 1000, 1),
        "scan_cpu_ms_per_run": round(per_run_cpu * 1000, 2),
        "scan_wall_ms_per_run": round(per_run_wall * 1000, 2),
        "ratio_cpu": round(per_run_cpu / statistics.median(cpus), 3),
        "ratio_wall": round(per_run_wall / statistics.median(walls), 3),
        "goal": "ratio <= 0.1",
    }
    print("per run", report["per_run"], flush=True)

    if not args.skip_ray:
        ray = {}
        for engine in ("local", "ray"):
            extra = ["--jobs", "2"] + (["--engine", "ray"] if engine == "ray" else [])
            ray[engine] = scan(thousand, out, *extra)
        ray["overhead_wall_s"] = round(ray["ray"]["wall_s"] - ray["local"]["wall_s"], 2)
        ray["overhead_cpu_s"] = round(ray["ray"]["cpu_s"] - ray["local"]["cpu_s"], 2)
        report["ray_1000_small"] = ray
        print("ray", ray, flush=True)
    report["load_average_after"] = os.getloadavg()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
