"""How fast can Python answer ``afp aggregate --json`` on an OTLP trace? The floor under issue 11's goal.

    python benchmarks/otlp_floor.py --spans 100000 --repeat 5

Issue 11 asks ``afp aggregate --json`` on a 100,000-span OTLP/JSON Lines trace to take at most
1.0× a bare ``msgspec.json.decode`` of every line (``otlp_bench.py``'s baseline). This times five
whole processes on the same file (``otlp_gen.py``'s, generated once into ``--data-dir`` as
``otlp_bench.py`` does), interleaved round by round, each from a neutral working directory:

- (a) the baseline, exactly as ``otlp_bench.py`` defines it: ``python -c`` that reads the file
  and ``msgspec.json.decode``s every line into dicts and lists;
- (b) the cheapest typed decode that still finds every span: one msgspec Struct decode per line
  (read from one ``mmap``, no copy), span ids, parent, name, times, status and attribute keys
  read, every attribute value kept as ``msgspec.Raw`` and never parsed (``otlp_facts.py raw``);
- (c) the cheapest minimal program that produces the facts the aggregate's output needs from
  this trace: per LLM span the model, usage tokens, finish reason and the tools its output
  messages asked for; per tool span its name; the boundary tree with its rollups; the whole-run
  sums; calls in start order — written as JSON, as tightly as it could be made
  (``otlp_facts.py facts``: how, and what it leaves out of afp's output, is said there);
- (c') (c) plus each LLM span's input messages and system instructions decoded (roles, part
  types, ids): the reading that splitting each call's input into its sources needs, on which
  afp's commit count and ``inCommitLog`` depend (``otlp_facts.py facts-inputs``);
- (d) ``python -m agentbisect aggregate --json FILE``.

Each is reported as seconds (best and median of ``--repeat``) and as × the baseline's best and
median, with its CPU time (user + system, best, also × the baseline's) and peak resident memory
(× the file size). The verdict is drawn from (c)'s wall-time ratios: under 1.0× by best and
median means Python can meet the goal and afp's design is the limit. Before
timing, (c)'s facts are checked against (d)'s output on the same file (models, tokens, finish
reasons, tools asked for, tool names, run sums), so the floor computes what afp shows
(``--no-check`` skips this; it runs afp once more). The load average is printed: on a shared
machine, compare the medians of one run only. ``--callgrind`` also counts each program's
instructions once under valgrind (deterministic, whatever the load; slow: afp on 100,000 spans
takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import otlp_bench
import otlp_gen

HERE = Path(__file__).resolve().parent
FACTS = str(HERE / "otlp_facts.py")

# Runs one command and prints its wall time, CPU time and peak RSS (kB): memory per command.
_MEASURE = (
    "import resource,subprocess,sys,time\n"
    "t=time.perf_counter()\n"
    "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL)\n"
    "dt=time.perf_counter()-t\n"
    "r=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(p.returncode,dt,r.ru_utime+r.ru_stime,r.ru_maxrss)\n"
)


def programs(path: Path) -> list[tuple[str, list[str]]]:
    py = sys.executable
    return [
        ("(a) bare decode (baseline)", [py, "-c", otlp_bench._BASELINE, str(path)]),
        ("(b) typed decode, values Raw", [py, FACTS, "raw", str(path)]),
        ("(c) aggregate facts, minimal", [py, FACTS, "facts", str(path)]),
        ("(c') (c) + inputs decoded", [py, FACTS, "facts-inputs", str(path)]),
        ("(d) afp aggregate --json", [py, "-m", "agentbisect", "aggregate", "--json", str(path)]),
    ]


def measure(argv: list[str], cwd: str) -> tuple[float, float, int]:
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True, cwd=cwd
    )
    rc, wall, cpu, kb = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(argv[:4])} … exited {rc}")
    return float(wall), float(cpu), int(kb) * 1024


def instructions(argv: list[str], cwd: str) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
        cwd=cwd,
    )
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"no instruction count from valgrind for {argv[:3]}")


def run_json(argv: list[str], cwd: str) -> Any:
    out = subprocess.run(argv, capture_output=True, check=True, cwd=cwd)
    return json.loads(out.stdout)


def check(path: Path, cwd: str) -> str:
    """(c)'s facts against afp's output on the same file; raises SystemExit on a difference."""
    progs = dict(programs(path))
    afp = run_json(progs["(d) afp aggregate --json"], cwd)
    facts = run_json(progs["(c) aggregate facts, minimal"], cwd)
    ours = [
        (c["model"], c["tokensIn"], c["tokensOut"], c["finish"], c["tools"])
        for c in facts["llmCalls"]
    ]
    theirs = [
        (c["model"], c["tokensIn"], c["tokensOut"], c["stopReason"], c["tools"])
        for c in afp["llmCalls"]
    ]
    tools_afp = [c["toolName"] for c in afp["calls"] if c["type"] == "tool"]
    tools_ours = [t["name"] for t in facts["toolCalls"]]
    run = facts["run"]
    sums = (run["llmCalls"], run["toolCalls"], run["tokensIn"], run["tokensOut"])
    a = afp["run"]
    sums_afp = (a["llmCalls"], a["toolCalls"], a["tokens"]["input"], a["tokens"]["output"])
    problems = [
        what
        for what, same in (
            ("LLM calls (model, tokens, finish reason, tools asked for)", ours == theirs),
            ("tool names", tools_ours == tools_afp),
            ("whole-run sums", sums == sums_afp),
        )
        if not same
    ]
    if problems:
        raise SystemExit("(c) disagrees with afp aggregate on: " + "; ".join(problems))
    return f"(c) agrees with afp aggregate: {len(ours)} LLM calls, {len(tools_ours)} tool calls, run sums {sums}"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "afp-otlp-bench")
    ap.add_argument("--no-check", action="store_true", help="skip checking (c) against (d)")
    ap.add_argument(
        "--callgrind", action="store_true", help="also count instructions (valgrind, slow)"
    )
    args = ap.parse_args()
    path = otlp_gen.cached(args.spans, args.data_dir)
    size = path.stat().st_size
    # afp from this checkout, run from a neutral directory: `python -m` puts the working
    # directory first on sys.path, so a run from inside another checkout would measure that one.
    os.environ["PYTHONPATH"] = str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")
    cwd = tempfile.gettempdir()
    print(f"file: {path} ({args.spans} spans, {size / 1e6:.1f} MB)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.no_check:
        print(check(path, cwd))
    progs = programs(path)
    wall: dict[str, list[float]] = {name: [] for name, _ in progs}
    cpu: dict[str, list[float]] = {name: [] for name, _ in progs}
    peak: dict[str, int] = dict.fromkeys(wall, 0)
    for _ in range(args.repeat):
        for name, argv in progs:
            w, c, mem = measure(argv, cwd)
            wall[name].append(w)
            cpu[name].append(c)
            peak[name] = max(peak[name], mem)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base = progs[0][0]
    b_best, b_med = min(wall[base]), statistics.median(wall[base])
    c_best = min(cpu[base])
    print(
        f"\n{'':30} {'best s':>7} {'median s':>8} {'× base':>7} {'× base':>7} "
        f"{'cpu s':>6} {'× base':>7} {'peak MB':>8} {'× file':>6}"
    )
    print(f"{'':30} {'':>7} {'':>8} {'(best)':>7} {'(med.)':>7} {'(best)':>6} {'(cpu)':>7}")
    for name, _ in progs:
        best, med = min(wall[name]), statistics.median(wall[name])
        print(
            f"{name:30} {best:7.3f} {med:8.3f} {best / b_best:7.2f} {med / b_med:7.2f} "
            f"{min(cpu[name]):6.2f} {min(cpu[name]) / c_best:7.2f} "
            f"{peak[name] / 1e6:8.0f} {peak[name] / size:6.2f}"
        )
    print(
        "(cpu s: user + system, best of the runs; peak MB of (b)/(c) counts the file's pages "
        "mapped by their mmap)"
    )
    if args.callgrind:
        print("\ninstructions (callgrind, whole process):")
        base_ir = 0
        for name, argv in progs:
            ir = instructions(argv, cwd)
            base_ir = base_ir or ir
            print(f"{name:30} {ir / 1e6:10,.0f} M {ir / base_ir:7.2f}× base")
    floor = min(wall[progs[2][0]]) / b_best
    floor_med = statistics.median(wall[progs[2][0]]) / b_med
    if max(floor, floor_med) <= 1.0:
        verdict = (
            "under 1.0× (best and median): a minimal Python program computing these facts meets "
            "the time goal, so the limit is afp's design (what it builds on the way), not Python"
        )
    elif min(floor, floor_med) > 1.0:
        verdict = (
            "over 1.0× (best and median): even a minimal Python program computing only these "
            "facts misses the time goal on this machine"
        )
    else:
        verdict = "on the line (best and median disagree): repeat on a quieter machine"
    print(f"\nfloor (c) = {floor:.2f}× the baseline (best), {floor_med:.2f}× (median): {verdict}.")


if __name__ == "__main__":
    main()
