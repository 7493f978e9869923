"""Benchmark ``afp genui-stats --json`` end to end against merely decoding the same rows.

    python benchmarks/genui_bench.py --rows 1000000

For JSON Lines, the baseline is reading the file and decoding it with msgspec into the typed row
Struct (``Decoder(GenuiCallRow).decode_lines``), in this process. For SQLite it is fetching the
table and converting the tuples into the typed row Struct (``msgspec.convert``), the least work
that yields typed rows. The end-to-end figure is a fresh ``python -m agentbisect genui-stats …
--json`` process (interpreter start, imports, read, decode, dedupe, aggregate, print), stdout to
/dev/null. Runs are interleaved and the best of ``--repeat`` is kept for both sides, which is the
fairest reading on a shared, noisy machine; medians are printed too. Goal: ratio ≤ 1.5.

Data is generated once per row count into ``--data-dir`` (default: a cache dir under /tmp).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genui_gen

from agentbisect.genui.db import map_columns
from agentbisect.schema.genui import ROW_FIELDS, GenuiCallRow, GenuiCallRowTuple

GOAL = 1.5


def _decode_jsonl(path: Path) -> int:
    rows = msgspec.json.Decoder(GenuiCallRow).decode_lines(path.read_bytes())
    return len(rows)


def _decode_sqlite(path: Path) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = [d[0] for d in con.execute("SELECT * FROM genui_calls LIMIT 0").description]
    mapping = map_columns(names, str(path))
    select = ", ".join(f'"{mapping[f]}"' if f in mapping else "NULL" for f in ROW_FIELDS)
    tuples = con.execute(f"SELECT {select} FROM genui_calls").fetchall()
    con.close()
    rows = msgspec.convert(tuples, list[GenuiCallRowTuple])
    return len(rows)


def _afp(*args: str) -> Callable[[], int]:
    def run() -> int:
        subprocess.run(
            [sys.executable, "-m", "agentbisect", "genui-stats", *args, "--json"],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        return 0

    return run


def _help() -> int:
    subprocess.run(
        [sys.executable, "-m", "agentbisect", "genui-stats", "--help"],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return 0


def _timed(fn: Callable[[], int]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _measure(
    label: str, rows: int, baseline: Callable[[], int], e2e: Callable[[], int], repeat: int
) -> tuple[str, float, float]:
    base_times, e2e_times = [], []
    for _ in range(repeat):
        base_times.append(_timed(baseline))
        e2e_times.append(_timed(e2e))
    base, full = min(base_times), min(e2e_times)
    ratio = full / base
    print(
        f"{label:7s} baseline {base:6.2f} s (median {statistics.median(base_times):.2f})  "
        f"afp e2e {full:6.2f} s (median {statistics.median(e2e_times):.2f})  "
        f"ratio {ratio:4.2f}× {'✓' if ratio <= GOAL else '✗'} (goal ≤ {GOAL})  "
        f"{rows / full:,.0f} rows/s e2e, {rows / base:,.0f} rows/s decode only"
    )
    return label, base, full


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "afp-genui-bench")
    p.add_argument("--only", choices=["jsonl", "sqlite"], help="run one of the two benchmarks")
    args = p.parse_args(argv)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    jsonl = args.data_dir / f"rows-{args.rows}.jsonl"
    db = args.data_dir / f"rows-{args.rows}.db"
    if args.only != "sqlite" and not jsonl.exists():
        print(f"generating {args.rows:,} rows → {jsonl}", file=sys.stderr)
        genui_gen.write_jsonl(jsonl.with_suffix(".tmp"), args.rows)
        jsonl.with_suffix(".tmp").rename(jsonl)
    if args.only != "jsonl" and not db.exists():
        print(f"generating {args.rows:,} rows → {db}", file=sys.stderr)
        genui_gen.write_sqlite(db.with_suffix(".tmp"), args.rows)
        db.with_suffix(".tmp").rename(db)

    startup = min(_timed(_help) for _ in range(3))
    print(f"rows {args.rows:,}; python -m agentbisect startup (--help) {startup:.2f} s")
    if args.only != "sqlite":
        size = jsonl.stat().st_size / 1e6
        print(f"JSON Lines: {jsonl} ({size:,.0f} MB)")
        _measure("jsonl", args.rows, lambda: _decode_jsonl(jsonl), _afp(str(jsonl)), args.repeat)
    if args.only != "jsonl":
        print(f"SQLite: {db} (table genui_calls, snake_case columns)")
        _measure(
            "sqlite", args.rows, lambda: _decode_sqlite(db), _afp("--db", f"sqlite:///{db}"),
            args.repeat,
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
