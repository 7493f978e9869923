"""Benchmark what hostile inputs cost afp: bombs, huge arrays, a huge trace, a flooding rerun.

    python benchmarks/hostile_bench.py                    # every case, full size (~10 minutes)
    python benchmarks/hostile_bench.py --only objects numbers
    python benchmarks/hostile_bench.py --gib 4 --rerun-mib 300

Each case is a fresh ``python -m agentbisect`` process under a 6 GiB address-space limit
(``prlimit --as``, so reserved thread stacks count too); the figures are its wall time and its
peak resident memory (``wait4`` rusage: afp itself, or a child it reaped if that was bigger — the
flooding rerun writes 1 MiB at a time, so it stays small). The cases (issue 28):

* ``zeros``: a gzip of GiBs of zero bytes; refused after the first chunk.
* ``flood``: a rerun printing 100 MiB; cut at ``AFP_MAX_RERUN_OUTPUT``.
* ``objects-gz``: 306 KB of gzip inflating to ``[{},{},…]`` (100 M items, 300 MB); refused,
  exit 2, within 60 s and under 1 GiB.
* ``spaces-gz``: a valid OTLP trace padded with 1.9 GB of spaces, gzip'd (1.9 MB); read under
  1 GiB by ``aggregate`` and ``events``.
* ``objects``: a 30 MB array of 10 M empty objects; refused in ≤ 5 s and ≤ 500 MB.
* ``numbers``: an array of 20 M numbers; refused under 500 MB.
* ``spans``: a 1,000,000-span OTLP trace of tiny spans under one root (~210 MB); ``events``,
  ``bisect`` and ``record`` within 3× its size.
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


AS_LIMIT = 6 << 30  # the address-space limit every case runs under (prlimit --as)


def _objects_gz(path: Path, count: int) -> None:
    """A gzip of ``[{},{},…]`` with ``count`` items (100 M: 300 MB in 306 KB)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"{}," * (1 << 20)
    with path.open("wb") as fh:
        fh.write(c.compress(b"["))
        full, rest = divmod(count - 1, 1 << 20)
        for _ in range(full):
            fh.write(c.compress(block))
        fh.write(c.compress(b"{}," * rest + b"{}]"))
        fh.write(c.flush())


def _spaces_gz(path: Path, spaces: int) -> None:
    """A valid OTLP trace padded with ``spaces`` blanks after it, gzip'd."""
    trace = (ROOT / "fixtures/otel/oaiv2-2.4b0-span-only.tool-planted.otlp.json").read_bytes()
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * (1 << 20)
    with path.open("wb") as fh:
        fh.write(c.compress(trace))
        for _ in range(spaces >> 20):
            fh.write(c.compress(block))
        fh.write(c.flush())


def _array(path: Path, item: bytes, count: int) -> None:
    """``[item,item,…]`` with ``count`` items, uncompressed."""
    with path.open("wb") as fh:
        fh.write(b"[")
        block = (item + b",") * 65536
        full, rest = divmod(count - 1, 65536)
        for _ in range(full):
            fh.write(block)
        fh.write((item + b",") * rest + item + b"]")


def _numbers(path: Path, count: int) -> None:
    """``[0,1,2,…]``: ``count`` numbers."""
    with path.open("wb") as fh:
        fh.write(b"[")
        step = 1 << 16
        for lo in range(0, count, step):
            hi = min(count, lo + step)
            fh.write(b",".join(b"%d" % i for i in range(lo, hi)))
            fh.write(b"," if hi < count else b"]")


def _spans(path: Path, count: int) -> None:
    """One OTLP/JSON request: a root and ``count - 1`` tiny child spans (~210 bytes each)."""
    trace = "4bf92f3577b34da6a3ce929d0e0e4736"
    t0 = 1_780_000_000_000_000_000

    def span(i: int, parent: str) -> bytes:
        return (
            f'{{"traceId":"{trace}","spanId":"{i:016x}","parentSpanId":"{parent}",'
            f'"name":"s{i}","kind":1,"startTimeUnixNano":"{t0 + i * 1000}",'
            f'"endTimeUnixNano":"{t0 + i * 1000 + 500}"}}'
        ).encode()

    root = f"{1:016x}"
    with path.open("wb") as fh:
        fh.write(b'{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[')
        fh.write(span(1, ""))
        for i in range(2, count + 1):
            fh.write(b",")
            fh.write(span(i, root))
        fh.write(b"]}]}]}\n")


def _run(argv: list[str], cwd: str) -> tuple[float, int, int, str]:
    """``(seconds, peak RSS in KiB, exit status, last stderr line)`` of one afp process, under
    the address-space limit (``prlimit`` execs it, so the rusage is afp's own)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["prlimit", f"--as={AS_LIMIT}", sys.executable, "-m", "agentbisect", *argv],
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


def _case(argv: list[str], tmp: str, **facts: object) -> dict[str, object]:
    secs, rss, code, line = _run(argv, tmp)
    return {
        **facts,
        "seconds": round(secs, 3),
        "peakRssKiB": rss,
        "peakRssMiB": round(rss / 1024, 1),
        "exit": code,
        "message": line,
    }


CASES = ("zeros", "flood", "objects-gz", "spaces-gz", "objects", "numbers", "spans")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=int, default=1, help="GiB of zeros in the gzip bomb")
    p.add_argument("--rerun-mib", type=int, default=100, help="MiB the flooding rerun prints")
    p.add_argument("--only", nargs="+", choices=CASES, default=list(CASES), help="cases to run")
    p.add_argument("--spans", type=int, default=1_000_000, help="spans in the big trace")
    args = p.parse_args()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        if "zeros" in args.only:
            bomb = t / "zeros.json.gz"
            _bomb(bomb, args.gib)
            results["gzipBomb"] = _case(
                ["events", str(bomb), "--json"],
                tmp,
                inflatedBytes=args.gib << 30,
                gzipBytes=bomb.stat().st_size,
            )
            bomb.unlink()
        if "flood" in args.only:
            flood = t / "flood.py"
            # Streamed in 1 MiB writes, so the rerun itself stays small and the peak is afp's.
            flood.write_text(
                "import json, sys\njson.load(sys.stdin)\nsys.stdout.write('Refund APPROVED ')\n"
                f"for _ in range({args.rerun_mib}):\n    sys.stdout.write('x' * (1 << 20))\n"
            )
            argv = ["bisect", str(PLANTED), "--at-step", "call-llm#40"]
            argv += ["--rerun", f"{sys.executable} {flood}", "--comparator", "contains:APPROVED"]
            results["rerunFlood"] = _case([*argv, "--json"], tmp, printedBytes=args.rerun_mib << 20)
        if "objects-gz" in args.only:
            f = t / "objects.json.gz"
            _objects_gz(f, 100_000_000)
            results["objectsGzipBomb"] = _case(
                ["aggregate", str(f)], tmp, items=100_000_000, gzipBytes=f.stat().st_size
            )
            f.unlink()
        if "spaces-gz" in args.only:
            f = t / "spaces.otlp.json.gz"
            _spaces_gz(f, 1900 << 20)
            for cmd in ("aggregate", "events"):
                results[f"spacesGzipBomb.{cmd}"] = _case(
                    [cmd, str(f), "--json"], tmp, spaces=1900 << 20, gzipBytes=f.stat().st_size
                )
            f.unlink()
        if "objects" in args.only:
            f = t / "objects.json"
            _array(f, b"{}", 10_000_000)
            results["emptyObjects"] = _case(
                ["aggregate", str(f)], tmp, items=10_000_000, bytes=f.stat().st_size
            )
            f.unlink()
        if "numbers" in args.only:
            f = t / "numbers.json"
            _numbers(f, 20_000_000)
            results["numbers"] = _case(
                ["aggregate", str(f)], tmp, items=20_000_000, bytes=f.stat().st_size
            )
            f.unlink()
        if "spans" in args.only:
            f = t / "spans.otlp.json"
            _spans(f, args.spans)
            size = f.stat().st_size
            out = t / "spans.recording.json"
            for name, argv in (
                ("events", ["events", str(f), "--json"]),
                ("bisect", ["bisect", str(f), "--json"]),
                ("record", ["record", str(f), "-o", str(out)]),
                ("aggregate", ["aggregate", str(f), "--json"]),
            ):
                results[f"spans.{name}"] = _case(argv, tmp, spans=args.spans, bytes=size)
                r = results[f"spans.{name}"]
                assert isinstance(r, dict)
                r["rssOverSize"] = round(r["peakRssKiB"] * 1024 / size, 2)
    results["goal"] = (
        "zeros/flood refused (exit 2 / 3) in < 1 s; objects-gz refused, exit 2, < 60 s, < 1 GiB; "
        "spaces-gz < 1 GiB; objects refused <= 5 s, <= 500 MB; spans within 3x the file"
    )
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
