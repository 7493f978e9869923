"""What the default embedder costs: ``afp bisect`` as whole processes on the synthetic long run,
default (wordllama when the ``embed`` extra is installed) against ``--embedder mock``, with a
cold vector cache (a fresh, empty ``XDG_CACHE_HOME`` for every run), model load included.
Goal: at most 250 ms more than mock (issue 12). Also shown: the default with a warm cache (a
second run on the same file, which loads no model).

    python benchmarks/embed_speed.py [--mb 30] [--repeat 7] [--file PATH]
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


def run_once(path: Path, at: str, extra: list[str], cache_dir: str | None = None) -> float:
    with tempfile.TemporaryDirectory(prefix="afp-cold-cache-") as cold:
        env = dict(os.environ, XDG_CACHE_HOME=cache_dir or cold)
        env.pop("AGENTBISECT_NO_CACHE", None)
        t = time.perf_counter()
        subprocess.run(
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
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
        )
        return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--file")
    args = ap.parse_args()
    from agentbisect.bisect.embedders import default_embedder_name

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
    print(f"file: {path} ({path.stat().st_size / 1e6:.1f} MB), {args.repeat} runs each, cold cache")
    for at in ("-1", "150"):
        mock: list[float] = []
        real: list[float] = []
        for _ in range(args.repeat):  # interleaved, so machine load hits both alike
            mock.append(run_once(path, at, ["--embedder", "mock"]))
            real.append(run_once(path, at, []))
        with tempfile.TemporaryDirectory(prefix="afp-warm-cache-") as warm_dir:
            run_once(path, at, [], warm_dir)  # fills the cache
            warm = [run_once(path, at, [], warm_dir) for _ in range(args.repeat)]
        m, r = statistics.median(mock), statistics.median(real)
        print(
            f"--at-llm {at:>4}: median mock {m * 1000:7.1f} ms · {default} (default) "
            f"{r * 1000:7.1f} ms · difference {1000 * (r - m):+6.1f} ms (goal ≤ +250 ms); "
            f"fastest runs {1000 * (min(real) - min(mock)):+6.1f} ms; "
            f"warm cache {1000 * (statistics.median(warm) - m):+6.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
