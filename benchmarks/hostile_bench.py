"""Benchmark what hostile inputs cost afp: a gzip bomb and a rerun that floods stdout.

    python benchmarks/hostile_bench.py              # 1 GiB of zeros, a 100 MiB rerun answer
    python benchmarks/hostile_bench.py --gib 4 --rerun-mib 300

Each case is a fresh ``python -m agentbisect`` process; the figures are its wall time and its peak
resident memory (``wait4`` rusage: afp itself, or a child it reaped if that was bigger — the
flooding rerun writes 1 MiB at a time, so it stays small). Goal: afp refuses both early,
in well under a second and with a peak memory independent of the hostile size (the input cap,
``AFP_MAX_INPUT_BYTES``, and the rerun output cap, ``AFP_MAX_RERUN_OUTPUT``, bound it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "fixtures" / "upstream" / "planted-fact.recording.json"


def _bomb(path: Path, gib: int) -> None:
    """A gzip of ``gib`` GiB of zero bytes (about 1 MB per GiB)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    with path.open("wb") as fh:
        for _ in range(gib << 10):
            fh.write(c.compress(block))
        fh.write(c.flush())


def _run(argv: list[str], cwd: str) -> tuple[float, int, int, str]:
    """``(seconds, peak RSS in KiB, exit status, last stderr line)`` of one afp process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,  # not the repo: PYTHONPATH decides which afp runs
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return seconds, usage.ru_maxrss, proc.returncode, last[0][:140]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=int, default=1, help="GiB of zeros in the gzip bomb")
    p.add_argument("--rerun-mib", type=int, default=100, help="MiB the flooding rerun prints")
    args = p.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        bomb = Path(tmp) / "zeros.json.gz"
        _bomb(bomb, args.gib)
        secs, rss, code, line = _run(["events", str(bomb), "--json"], tmp)
        results["gzipBomb"] = {
            "inflatedBytes": args.gib << 30,
            "gzipBytes": bomb.stat().st_size,
            "seconds": round(secs, 3),
            "peakRssKiB": rss,
            "exit": code,
            "message": line,
        }
        flood = Path(tmp) / "flood.py"
        # Streamed in 1 MiB writes, so the rerun itself stays small and the peak is afp's.
        flood.write_text(
            "import json, sys\njson.load(sys.stdin)\nsys.stdout.write('Refund APPROVED ')\n"
            f"for _ in range({args.rerun_mib}):\n    sys.stdout.write('x' * (1 << 20))\n"
        )
        secs, rss, code, line = _run(
            [
                "bisect",
                str(PLANTED),
                "--at-step",
                "call-llm#40",
                "--rerun",
                f"{sys.executable} {flood}",
                "--comparator",
                "contains:APPROVED",
                "--json",
            ],
            tmp,
        )
        results["rerunFlood"] = {
            "printedBytes": args.rerun_mib << 20,
            "seconds": round(secs, 3),
            "peakRssKiB": rss,
            "exit": code,
            "message": line,
        }
    results["goal"] = "both refused (exit 2 / exit 3) in < 1 s, peak RSS independent of the size"
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
