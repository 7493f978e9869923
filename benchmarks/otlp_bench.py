"""Benchmark ``afp aggregate --json`` on an OTLP/JSON Lines trace against merely decoding it.

    python benchmarks/otlp_bench.py --spans 100000

The file (``otlp_gen.py``: one long ReAct run, content on every span, one export request per
line) is generated once per span count into ``--data-dir``. Both sides are fresh processes:

- baseline: ``python -c`` that reads the file and ``msgspec.json.decode``s every line;
- afp: ``python -m agentbisect aggregate --json FILE`` (start-up, read, import, synthesize the
  recording, build the run, aggregate, print), stdout to /dev/null.

Runs are interleaved; the best of ``--repeat`` is kept for both (medians are printed too). Peak
memory is the child's maximum resident set size (``getrusage``), compared with the file size.
Goals (issue 22): time ratio ≤ 3.0, peak memory ≤ 3× the file size, for the default trace and
for ``--batch 2`` (one small export request of 2 spans per line, repeating message content).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import otlp_gen

TIME_GOAL = 3.0
MEMORY_GOAL = 3.0
_BASELINE = (
    "import msgspec,sys\n"
    "d=msgspec.json.decode\n"
    "with open(sys.argv[1],'rb') as f:\n"
    "    for line in f:\n"
    "        d(line)\n"
)
# Where afp's time goes, in one process (CPU seconds per stage of the one path): read the spans,
# synthesize the recording, load it and aggregate. Printed with --phases, to aim the next change.
_PHASES = (
    "import gc,sys,time\n"
    "from agentbisect.core.deep import run_deep\n"
    "from agentbisect.importers.opentelemetry.traces import read_batch\n"
    "from agentbisect.importers.synthesize import synthesize\n"
    "from agentbisect.importers.convert import conversion\n"
    "from agentbisect.importers.recording import load_doc\n"
    "from agentbisect.model.run import Run\n"
    "from agentbisect.analyses.aggregate import aggregate\n"
    "def go(path):\n"
    "    c=time.process_time; t0=c(); data=open(path,'rb').read(); t1=c()\n"
    "    gc.disable()  # (as the import does)\n"
    "    spans=read_batch(path,data).spans; del data; t2=c()\n"
    "    result=synthesize(spans,[],path); del spans; gc.enable(); t3=c()\n"
    "    run=Run(load_doc(path,conversion(result,'full').doc,False)); del result\n"
    "    aggregate(run,show_all=False,drill=None,overview=False); t4=c()\n"
    "    return t1-t0,t2-t1,t3-t2,t4-t3\n"
    "print(*run_deep(go,sys.argv[1]))\n"
)
# Runs one command and prints the child's wall time and peak RSS (kB), so memory is per command.
_MEASURE = (
    "import resource,subprocess,sys,time\n"
    "t=time.perf_counter()\n"
    "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL)\n"
    "dt=time.perf_counter()-t\n"
    "print(p.returncode,dt,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _measure(argv: list[str]) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    rc, seconds, kb = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(argv)} exited {rc}")
    return float(seconds), int(kb) * 1024


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument(
        "--batch",
        type=int,
        default=otlp_gen.BATCH,
        help="spans per export request (line); 2 = many small requests repeating their content",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--phases",
        action="store_true",
        help="also print the CPU seconds of each stage (read file, read spans, synthesize, "
        "load + aggregate), the best of --repeat",
    )
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "afp-otlp-bench")
    args = ap.parse_args()
    path = otlp_gen.cached(args.spans, args.data_dir, args.batch)
    size = path.stat().st_size
    env_path = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = env_path + os.pathsep + os.environ.get("PYTHONPATH", "")
    base_t: list[float] = []
    afp_t: list[float] = []
    afp_mem = 0
    for _ in range(args.repeat):
        seconds, _mem = _measure([sys.executable, "-c", _BASELINE, str(path)])
        base_t.append(seconds)
        seconds, mem = _measure(
            [sys.executable, "-m", "agentbisect", "aggregate", "--json", str(path)]
        )
        afp_t.append(seconds)
        afp_mem = max(afp_mem, mem)
    best_base, best_afp = min(base_t), min(afp_t)
    ratio = best_afp / best_base
    mem_ratio = afp_mem / size
    print(f"file: {args.spans} spans, {args.batch} per line, {size / 1e6:.1f} MB")
    print(
        f"baseline decode: best {best_base * 1000:.0f} ms, median {statistics.median(base_t) * 1000:.0f} ms"
    )
    print(
        f"afp aggregate:   best {best_afp * 1000:.0f} ms, median {statistics.median(afp_t) * 1000:.0f} ms"
    )
    print(
        f"time ratio: {ratio:.2f} (goal ≤ {TIME_GOAL})  {'OK' if ratio <= TIME_GOAL else 'MISSED'}"
    )
    print(
        f"peak memory: {afp_mem / 1e6:.0f} MB = {mem_ratio:.2f}× the file "
        f"(goal ≤ {MEMORY_GOAL}×)  {'OK' if mem_ratio <= MEMORY_GOAL else 'MISSED'}"
    )
    if args.phases:
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [sys.executable, "-c", _PHASES, str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append([float(x) for x in out.stdout.split()])
        best = [min(col) for col in zip(*runs, strict=True)]
        names = ("read file", "read spans", "synthesize", "load + aggregate")
        print(
            "phases (CPU s, best): "
            + ", ".join(f"{n} {t:.2f}" for n, t in zip(names, best, strict=True))
        )


if __name__ == "__main__":
    main()
