"""Benchmark the HTML report on a synthetic long run (issue 14, "Large runs").

Writes the long run with ``benchmarks/synth.py`` (or reads ``--file``), renders the ``bisect``
page (trigger: the last LLM call; the fullest page) and the ``aggregate`` page with the real
commands (``afp … --format html -o FILE``, timed as processes), and measures:
the file size (goal ≤ 5 MB) and how long headless Chromium takes to finish loading it (goal
≤ 3 s): the ``loadEventEnd`` of the navigation, and the wall time of the whole navigation as the
test driver sees it. Median of ``--repeat`` fresh pages. Needs ``/usr/bin/chromium`` (or
``$AFP_CHROMIUM``) and the ``playwright`` package; never downloads a browser.

    python benchmarks/html_bench.py [--mb 30] [--repeat 5] [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE_GOAL = 5 * 1024 * 1024
LOAD_GOAL_MS = 3000.0

from tests.html_browser import CHROMIUM_ARGS as ARGS  # noqa: E402  (the tests' launch flags)


def render(recording: Path, out_dir: Path) -> dict[str, object]:
    """Write both pages with the real commands (``--format html -o``), timed as processes."""
    info: dict[str, object] = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, extra in (("bisect", ["--at-llm", "-1"]), ("aggregate", [])):
        argv = [sys.executable, "-m", "agentbisect", name, str(recording), *extra]
        argv += ["--format", "html", "-o", str(out_dir / f"{name}.html")]
        t = time.perf_counter()
        subprocess.run(argv, env=env, check=True, timeout=600)
        info[f"{name}CommandMs"] = round((time.perf_counter() - t) * 1000, 1)
    return info


def load_times(path: Path, repeat: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    exe = os.environ.get("AFP_CHROMIUM", "/usr/bin/chromium")
    events, walls = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=ARGS, headless=True)
        try:
            for _ in range(repeat + 1):  # the first load warms the browser up; not counted
                page = browser.new_page()
                t = time.perf_counter()
                page.goto(path.resolve().as_uri(), wait_until="load")
                wall = (time.perf_counter() - t) * 1000
                end = page.evaluate(
                    "() => performance.getEntriesByType('navigation')[0].loadEventEnd"
                )
                page.close()
                events.append(float(end))
                walls.append(wall)
        finally:
            browser.close()
    return {
        "loadEventEndMs": round(statistics.median(events[1:]), 1),
        "navigationWallMs": round(statistics.median(walls[1:]), 1),
        "maxNavigationWallMs": round(max(walls[1:]), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--file", type=Path, help="an existing recording instead of the synthetic run")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rec = args.file
        if rec is None:
            from benchmarks.synth import make_long_run

            rec = out / "long.recording.json"
            print(json.dumps({"synthetic": make_long_run(rec, args.mb)}))
        result: dict[str, object] = {"recordingBytes": rec.stat().st_size, **render(rec, out)}
        ok = True
        for name in ("bisect", "aggregate"):
            page = out / f"{name}.html"
            size = page.stat().st_size
            times = load_times(page, args.repeat)
            ok = ok and size <= SIZE_GOAL and times["maxNavigationWallMs"] <= LOAD_GOAL_MS
            result[name] = {"htmlBytes": size, **times}
        result["goals"] = {"htmlBytes": SIZE_GOAL, "loadMs": LOAD_GOAL_MS, "met": ok}
        print(json.dumps(result, indent=2))
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
