"""What the default embedder costs: ``afp bisect`` as whole processes on the synthetic long run,
default (wordllama when the ``embed`` extra is installed) against ``--embedder mock``, with a
cold vector cache (a fresh, empty ``XDG_CACHE_HOME`` for every run), model load included.
Goal: at most 250 ms more than mock (issue 12). Also shown: the default with a warm cache (a
second run on the same file, which loads no model). Wall time and the child's CPU time
(user + sys, from ``wait4``: steadier than wall time on a shared machine) are both reported,
with the load average.

    python benchmarks/embed_speed.py [--mb 30] [--repeat 7] [--file PATH] [--ranking NAME]

``--ranking`` runs every process (mock and default alike) with that ranking, e.g. ``learned``
(issue 29), to measure the embedder's cost under it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run_once(
    path: Path, at: str, extra: list[str], cache_dir: str | None = None
) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one ``afp bisect`` process."""
    with tempfile.TemporaryDirectory(prefix="afp-cold-cache-") as cold:
        env = dict(os.environ, XDG_CACHE_HOME=cache_dir or cold)
        env.pop("AGENTBISECT_NO_CACHE", None)
        t = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentbisect",
                "bisect",
                str(path),
                "--at-llm",
                at,
                "--json",
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"afp bisect exited {proc.returncode}")
        return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--file")
    ap.add_argument("--ranking", help="pass --ranking NAME to every run")
    args = ap.parse_args()
    extra = ["--ranking", args.ranking] if args.ranking else []
    from agentbisect.bisect.embed.choose import default_embedder_name

    default = default_embedder_name()
    if default == "mock":
        print("the embed extra is not installed: the default is mock, nothing to compare")
        return 2
    if args.file:
        path = Path(args.file)
    else:
        path = Path(tempfile.gettempdir()) / f"afp-embed-bench-{args.mb:g}mb.json"
        if not path.exists():
            from benchmarks.synth import make_long_run

            make_long_run(path, target_mb=args.mb)
    print(
        f"file: {path} ({path.stat().st_size / 1e6:.1f} MB), {args.repeat} runs each, cold cache"
        + (f", --ranking {args.ranking}" if args.ranking else "")
    )
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for at in ("-1", "150"):
        mock: list[tuple[float, float]] = []
        real: list[tuple[float, float]] = []
        for _ in range(args.repeat):  # interleaved, so machine load hits both alike
            mock.append(run_once(path, at, ["--embedder", "mock", *extra]))
            real.append(run_once(path, at, extra))
        with tempfile.TemporaryDirectory(prefix="afp-warm-cache-") as warm_dir:
            run_once(path, at, extra, warm_dir)  # fills the cache
            warm = [run_once(path, at, extra, warm_dir) for _ in range(args.repeat)]

        def med(xs: list[tuple[float, float]], k: int) -> float:
            return statistics.median(x[k] for x in xs)

        print(
            f"--at-llm {at:>4}: wall median mock {med(mock, 0) * 1000:7.1f} ms · {default} "
            f"(default) {med(real, 0) * 1000:7.1f} ms · difference "
            f"{1000 * (med(real, 0) - med(mock, 0)):+6.1f} ms (goal ≤ +250 ms); fastest runs "
            f"{1000 * (min(x[0] for x in real) - min(x[0] for x in mock)):+6.1f} ms; warm cache "
            f"{1000 * (med(warm, 0) - med(mock, 0)):+6.1f} ms"
        )
        print(
            f"{'':15}CPU (user+sys) median mock {med(mock, 1) * 1000:7.1f} ms · default "
            f"{med(real, 1) * 1000:7.1f} ms · difference {1000 * (med(real, 1) - med(mock, 1)):+6.1f}"
            f" ms; warm cache {1000 * (med(warm, 1) - med(mock, 1)):+6.1f} ms"
        )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
