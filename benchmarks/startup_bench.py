"""Benchmark afp against the upstream library's Node CLI, whole process against whole process.

Each pair runs ``afp CMD`` and the Node CLI on the same file back to back (alternating which goes
first, so a drift in machine load hits both alike); the figure is the median over the pairs of
afp's wall time divided by Node's. Start-up counts: that is what a user waits for.

    python benchmarks/startup_bench.py                  # 11 pairs, ~30 MB synthetic long run
    python benchmarks/startup_bench.py --pairs 21 --json
    python benchmarks/startup_bench.py --skip-long      # only the 0.5 MB react-tools pair

Cases and goals (issue 10):
  * react-tools (0.5 MB) ``bisect --json``                         afp <= 1.0x Node
  * ~30 MB synthetic run ``aggregate``/``events``/``bisect --json``  afp <= 0.6x Node
  * peak memory of afp on the long run                             <= 3x its decompressed size

afp runs as the ``afp`` script installed beside ``sys.executable`` (not a pyenv shim, which
alone costs ~0.1 s), else ``python -m agentbisect``; PYTHONPATH decides which tree it imports. Children run without PYTHONDONTWRITEBYTECODE, so the
first (untimed) run caches bytecode as an installed package has it. ``--upstream`` (mock
embedder, upstream output) is passed to every command
whose ``--help`` offers it. Where ``node`` is missing, the Node side is skipped with a note and
afp's times are still reported. The Node CLI lives in /work/shared/bench (``--node-cli``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REACT = ROOT / "fixtures" / "upstream" / "react-tools.recording.json"
REACT_STEP = "call-llm#106"
_LLM_ID = re.compile(rb'"call-llm#([0-9]+)"')
NODE_CLI = Path("/work/shared/bench/upstream-node-cli.js")
# The console script pip installed beside this interpreter (what a user runs: no runpy), else -m.
_SCRIPT = Path(sys.executable).with_name("afp")
AFP = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "agentbisect"]
# As installed: pip compiles .pyc files, so afp's modules load from bytecode. A shell with
# PYTHONDONTWRITEBYTECODE set would otherwise recompile every module on every run (~15-25 ms).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Case:
    name: str
    afp: list[str]
    node: list[str] | None
    goal: float | None  # afp/Node ratio to stay under
    afp_s: list[float] = field(default_factory=list)
    node_s: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    afp_rss: int = 0
    node_rss: int = 0
    # user + system CPU seconds per run: steadier than wall time on a shared machine
    afp_cpu: list[float] = field(default_factory=list)
    node_cpu: list[float] = field(default_factory=list)


def run_child(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one child process; output discarded."""
    wall, rss, _ = run_child_cpu(argv)
    return wall, rss


def run_child_cpu(argv: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (bytes) and user+system CPU seconds of one child process."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE, env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        err = proc.stderr.read() if proc.stderr else b""
        if proc.stderr:
            proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed (exit {code}): {err.decode()[-500:]}")
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def offers_upstream(command: str) -> bool:
    """Whether ``afp COMMAND --help`` lists ``--upstream`` (being added by issue 8)."""
    out = subprocess.run(
        [*AFP, command, "--help"], capture_output=True, text=True, check=False, env=ENV
    )
    return "--upstream" in out.stdout


def last_llm_step(path: Path) -> str:
    """The highest ``call-llm#N`` stage id in a synthetic run (the step bisect starts from).

    Read in chunks: a child's peak RSS is measured from its fork, which starts as a copy of
    this process, so this process must stay small.
    """
    best, tail = -1, b""
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            data = tail + chunk
            best = max([best, *(int(m) for m in _LLM_ID.findall(data))])
            tail = data[-32:]
    if best < 0:
        raise SystemExit(f"{path}: no call-llm#N stage id found")
    return f"call-llm#{best}"


def decompressed_size(path: Path) -> int:
    if path.suffix == ".gz":
        with gzip.open(path, "rb") as fh:
            return sum(len(b) for b in iter(lambda: fh.read(1 << 20), b""))
    return path.stat().st_size


def _without_notes(doc: object) -> object:
    if isinstance(doc, dict):
        return {k: _without_notes(v) for k, v in doc.items() if k not in ("note", "claim")}
    if isinstance(doc, list):
        return [_without_notes(v) for v in doc]
    return doc


def same_report(afp: list[str], node: list[str]) -> bool:
    """Untimed check that both sides did the same work: equal bisect reports.

    afp words its free-text sentences (``note``, ``claim``) its own way, as the conformance
    tests allow; everything else — suspects, scores bit for bit, paths, flags — must be equal.
    """
    a = json.loads(subprocess.run(afp, capture_output=True, check=True).stdout)
    n = json.loads(subprocess.run(node, capture_output=True, check=True).stdout)
    return bool(_without_notes(a) == _without_notes(n))


def measure(case: Case, pairs: int) -> None:
    run_child(case.afp)  # warm the page cache and the .pyc files once, untimed
    if case.node:
        run_child(case.node)
    for k in range(pairs):
        order = [("afp", case.afp), ("node", case.node)]
        if k % 2:
            order.reverse()
        got: dict[str, float] = {}
        for side, argv in order:
            if argv is None:
                continue
            wall, rss, cpu = run_child_cpu(argv)
            got[side] = wall
            if side == "afp":
                case.afp_s.append(wall)
                case.afp_cpu.append(cpu)
                case.afp_rss = max(case.afp_rss, rss)
            else:
                case.node_s.append(wall)
                case.node_cpu.append(cpu)
                case.node_rss = max(case.node_rss, rss)
        if "node" in got:
            case.ratios.append(got["afp"] / got["node"])


def floor(pairs: int) -> dict[str, float]:
    """What no afp change can go below: the interpreter (with and without ``site``), and the
    interpreter plus msgspec (which every command decodes with); with typer too, what a command
    line the fast front end leaves to typer (``--help``, errors in options) starts from."""
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -S -c pass": [sys.executable, "-S", "-c", "pass"],
        "python -c 'import msgspec'": [sys.executable, "-c", "import msgspec"],
        "python -c 'import typer, msgspec'": [sys.executable, "-c", "import typer, msgspec"],
        "afp --help": [*AFP, "--help"],
    }
    return {
        name: round(statistics.median(run_child(argv)[0] for _ in range(pairs)), 4)
        for name, argv in cmds.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pairs", type=int, default=11, help="pairs per case (median; default 11)")
    ap.add_argument("--mb", type=float, default=30.0, help="synthetic long-run size (default 30)")
    ap.add_argument("--file", type=Path, default=HERE / "out" / "long-run.json")
    ap.add_argument("--skip-long", action="store_true", help="only the react-tools case")
    ap.add_argument("--node-cli", type=Path, default=NODE_CLI)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")

    node_bin = shutil.which("node")
    notes: list[str] = []
    if node_bin is None:
        notes.append("node not found on PATH: Node side skipped, afp times only")
    elif not args.node_cli.is_file():
        notes.append(f"{args.node_cli} missing: Node side skipped, afp times only")
        node_bin = None
    node = [node_bin, str(args.node_cli)] if node_bin else None

    up = {c: offers_upstream(c) for c in ("bisect", "aggregate", "events")}
    if not up["bisect"]:
        notes.append("afp has no --upstream switch yet; its default (mock embedder) is upstream's")

    def afp(cmd: str, *rest: str) -> list[str]:
        return [*AFP, cmd, *rest, "--json", *(["--upstream"] if up[cmd] else [])]

    cases = [
        Case(
            "react-tools 0.5 MB bisect",
            afp("bisect", str(REACT), "--at-step", REACT_STEP),
            [*node, "bisect", str(REACT), REACT_STEP] if node else None,
            1.0,
        )
    ]
    long_info: dict[str, object] = {}
    if not args.skip_long:
        args.file.parent.mkdir(parents=True, exist_ok=True)
        if not args.file.exists() or args.file.stat().st_size < args.mb * 0.9e6:
            gen = subprocess.run(
                [sys.executable, str(HERE / "synth.py"), str(args.file), "--mb", str(args.mb)],
                check=True,
                capture_output=True,
                text=True,
            )
            long_info = json.loads(gen.stdout)
        step = last_llm_step(args.file)
        f = str(args.file)
        mb = args.file.stat().st_size / 1e6
        cases += [
            Case(
                f"long {mb:.0f} MB aggregate",
                afp("aggregate", f),
                [*node, "aggregate", f] if node else None,
                0.6,
            ),
            Case(
                f"long {mb:.0f} MB events",
                afp("events", f),
                [*node, "events", f] if node else None,
                0.6,
            ),
            Case(
                f"long {mb:.0f} MB bisect {step}",
                afp("bisect", f, "--at-step", step),
                [*node, "bisect", f, step] if node else None,
                0.6,
            ),
        ]

    equal = {}
    if node:
        for case in cases:
            if "bisect" in case.afp and case.node:
                equal[case.name] = same_report(case.afp, case.node)
    load_before = os.getloadavg()
    for case in cases:
        measure(case, args.pairs)
    base = floor(args.pairs)
    load_after = os.getloadavg()

    size = decompressed_size(args.file) if not args.skip_long else 0
    rows = []
    for case in cases:
        row: dict[str, object] = {
            "case": case.name,
            "afpS": round(statistics.median(case.afp_s), 4),
            "afpCpuS": round(statistics.median(case.afp_cpu), 4),
            "afpPeakMB": round(case.afp_rss / 1e6, 1),
        }
        if case.ratios:
            ratio = statistics.median(case.ratios)
            row |= {
                "nodeS": round(statistics.median(case.node_s), 4),
                "nodeCpuS": round(statistics.median(case.node_cpu), 4),
                # medians of CPU time, a check on the wall-time ratio (Node uses helper threads)
                "cpuRatio": round(
                    statistics.median(case.afp_cpu) / statistics.median(case.node_cpu), 3
                ),
                "nodePeakMB": round(case.node_rss / 1e6, 1),
                "ratio": round(ratio, 3),
                "goal": case.goal,
                "met": ratio <= (case.goal or 0),
            }
        if case.name in equal:
            row["sameReportAsNode"] = equal[case.name]
        if case.name.startswith("long") and size:
            row["peakOverDecompressed"] = round(case.afp_rss / size, 2)
            row["memoryGoalMet"] = case.afp_rss <= 3 * size
        rows.append(row)
    report = {
        "pairs": args.pairs,
        "python": sys.version.split()[0],
        "upstreamSwitch": up,
        "longRun": {"path": str(args.file), "bytes": size, **long_info} if size else None,
        "floor": base,
        # Paired ratios tolerate load drifting alike for both sides, absolute times do not.
        "loadAverage": {"before": load_before, "after": load_after},
        "cases": rows,
        "notes": notes,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"afp vs upstream Node CLI, median of {args.pairs} pairs (whole processes)")
    for n in notes:
        print(f"  note: {n}")
    print(f"  {'case':<34} {'afp s':>7} {'node s':>7} {'ratio':>6} {'goal':>5}  peak MB afp/node")
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
        goal = f"{r['goal']:.1f}" if "goal" in r else "-"
        mark = "" if "met" not in r else (" ok" if r["met"] else " MISSED")
        print(
            f"  {r['case']:<34} {r['afpS']:>7.3f} {r.get('nodeS', float('nan')):>7.3f} "
            f"{ratio:>6} {goal:>5}{mark:<7} {r['afpPeakMB']}/{r.get('nodePeakMB', '-')}"
            + (
                f"  (afp peak {r['peakOverDecompressed']}x the file; goal <= 3x)"
                if "peakOverDecompressed" in r
                else ""
            )
            + ("" if r.get("sameReportAsNode", True) else "  REPORTS DIFFER")
            + f"  cpu s afp/node {r['afpCpuS']:.3f}/{r.get('nodeCpuS', float('nan')):.3f}"
        )
    print("  floor: " + ", ".join(f"{k} {v:.3f} s" for k, v in base.items()))
    before, after = ("/".join(f"{x:.2f}" for x in la) for la in (load_before, load_after))
    print(f"  load average (1/5/15 min): before {before}, after {after}")


if __name__ == "__main__":
    main()
