"""Every bundled input × every command, captured: proof that a refactor changed no output.

Run it once before a change and once after, then compare the two folders::

    python benchmarks/outputs_snapshot.py /tmp/before      # on the old commit
    python benchmarks/outputs_snapshot.py /tmp/after       # on the new one
    python benchmarks/outputs_snapshot.py --compare /tmp/before /tmp/after

Each case is one `afp` command line on one fixture; what is kept of it is its exit code, its
stdout, its stderr and the file it wrote with ``-o`` (the temporary folder's path replaced by a
fixed word, so two runs compare byte for byte). ``--compare`` lists the cases that differ and
exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_SUFFIXES = (".md", ".py", ".png")

# (name, argv after the input path, whether it writes -o OUT)
COMMANDS: list[tuple[str, list[str], bool]] = [
    ("events-jsonl", ["events", "{in}", "--format", "jsonl"], False),
    ("events-table", ["events", "{in}", "--format", "table"], False),
    ("aggregate-json", ["aggregate", "{in}", "--json"], False),
    ("aggregate-table", ["aggregate", "{in}"], False),
    ("aggregate-all", ["aggregate", "{in}", "--json", "--all"], False),
    ("aggregate-html", ["aggregate", "{in}", "--format", "html", "-o", "{out}"], True),
    ("bisect-json", ["bisect", "{in}", "--at-llm", "-1", "--json", "--no-cache"], False),
    (
        "bisect-mock",
        ["bisect", "{in}", "--at-llm", "-1", "--embedder", "mock", "--no-cache"],
        False,
    ),
    (
        "bisect-upstream",
        ["bisect", "{in}", "--at-llm", "-1", "--json", "--upstream", "--embedder", "mock"],
        False,
    ),
    (
        "bisect-text",
        ["bisect", "{in}", "--at-llm", "-1", "--format", "text", "--upstream", "--no-cache"],
        False,
    ),
    (
        "bisect-html",
        ["bisect", "{in}", "--at-llm", "-1", "--format", "html", "-o", "{out}", "--no-cache"],
        True,
    ),
    ("record-full", ["record", "{in}", "-o", "{out}", "--json"], True),
    ("record-lean", ["record", "{in}", "-o", "{out}", "--lean", "--json"], True),
    ("record-table", ["record", "{in}", "-o", "{out}"], True),
    ("genui-json", ["genui-stats", "{in}", "--json"], False),
    ("genui-table", ["genui-stats", "{in}"], False),
]


# The planted corpora are many: a few commands each, enough to hold the readers and the ranking.
CORPUS_COMMANDS = ("events-jsonl", "aggregate-json", "bisect-upstream", "bisect-json")


def cases() -> list[tuple[Path, str, list[str], bool]]:
    found = []
    for p in sorted((ROOT / "fixtures").rglob("*")):
        if p.is_file() and not p.name.endswith(SKIP_SUFFIXES):
            found += [(p, *c) for c in COMMANDS]
    corpus = [c for c in COMMANDS if c[0] in CORPUS_COMMANDS]
    # recordings and traces only: scenarios/ and expected.json are the generators' input, not afp's
    planted = ROOT / "benchmarks" / "planted"
    for p in sorted(p for d in ("cases", "traces") for p in (planted / d).rglob("*")):
        if p.is_file() and not p.name.endswith((*SKIP_SUFFIXES, ".truth.json")):
            found += [(p, *c) for c in corpus]
    return found


def run_case(path: Path, name: str, argv: list[str], writes: bool) -> tuple[str, bytes]:
    rel = path.relative_to(ROOT).as_posix()
    with tempfile.TemporaryDirectory(prefix="afp-snap-") as tmp:
        out = Path(tmp) / "out"
        args = [a.replace("{in}", rel).replace("{out}", str(out)) for a in argv]
        env = dict(os.environ, COLUMNS="100", LINES="40", NO_COLOR="1", TERM="dumb")
        env.pop("FORCE_COLOR", None)
        proc = subprocess.run(
            [sys.executable, "-m", "agentbisect", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        blob = b"rc=%d\n--- stdout\n%s\n--- stderr\n%s\n" % (
            proc.returncode,
            proc.stdout,
            proc.stderr,
        )
        if writes:
            blob += b"--- out\n" + (out.read_bytes() if out.exists() else b"(none)")
        blob = blob.replace(tmp.encode(), b"TMP")
    key = case_key(path, name)
    return key, blob


def case_key(path: Path, name: str) -> str:
    return path.relative_to(ROOT).as_posix().replace("/", "__") + "." + name


def snapshot(dest: Path, jobs: int, only: str = "") -> None:
    dest.mkdir(parents=True, exist_ok=True)
    todo = [c for c in cases() if re.search(only, case_key(c[0], c[1]))]
    with ThreadPoolExecutor(jobs) as pool:
        for key, blob in pool.map(lambda c: run_case(*c), todo):
            (dest / key).write_bytes(blob)
    print(f"{len(todo)} cases written to {dest}")


def compare(a: Path, b: Path, only: str = "") -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    names = [n for n in names if re.search(only, n)]
    differ = []
    for n in names:
        pa, pb = a / n, b / n
        da = pa.read_bytes() if pa.exists() else b"(missing)"
        db = pb.read_bytes() if pb.exists() else b"(missing)"
        if da != db:
            differ.append(n)
            print(
                f"differs: {n} ({hashlib.md5(da).hexdigest()[:8]} != {hashlib.md5(db).hexdigest()[:8]})"
            )
    print(f"{len(names)} cases, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", nargs="?", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--only", default="", metavar="REGEX", help="only the cases whose name matches")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ns = ap.parse_args()
    if ns.compare:
        return compare(*ns.compare, ns.only)
    if ns.dest is None:
        ap.error("name a folder to write the snapshot to, or --compare BEFORE AFTER")
    snapshot(ns.dest, ns.jobs, ns.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
