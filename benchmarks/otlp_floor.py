"""How far below issue 22's speed goal the least any pure-Python reader must do already is.

    python benchmarks/otlp_floor.py --spans 100000 [--batch 2] [--repeat 3]

The goal (``otlp_bench.py``): ``afp aggregate --json`` in ≤ 3.0× the time of a bare
``msgspec.json.decode`` of the trace's lines. This script measures, in one process and in CPU
seconds (the box may be loaded; the best of ``--repeat``), the floor under any reader written in
Python, step by step on the same trace:

1. ``decode``: the baseline itself — every line decoded (the file read included);
2. ``+ attributes``: each span's attribute list made into one dict (a reader must look at the
   attributes to know what a span is: its operation, model, tokens, tool);
3. ``+ content``: every chat-message array the spans carry as a JSON string decoded
   (``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``): what
   a call said, which the tool-result matching, the flags and the suspects need;
4. ``+ one object per span``: one small instance built per span with six fields (the least a
   run model can hold per step).

Then afp's own phases on the same trace (read spans, synthesize, load + aggregate), and the
budget the goal leaves per span once the floor is paid: ``(3 × decode − floor) / spans``. The
baseline runs as ``otlp_bench.py``'s does (the cycle collector on); the steps after it run with
the collector off, as afp reads and synthesizes a trace, which only flatters the floor.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import otlp_gen

_CONTENT = frozenset(
    ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
)
_decode = msgspec.json.decode


class _Step:
    """Six fields: about what one step of a run model holds at the least."""

    __slots__ = ("end", "kind", "name", "parent", "start", "tokens")

    def __init__(self, kind: str, name: str, parent: str, start: str, end: str, tokens: int):
        self.kind, self.name, self.parent = kind, name, parent
        self.start, self.end, self.tokens = start, end, tokens


def _decode_only(path: Path) -> int:
    with open(path, "rb") as f:
        for line in f:
            _decode(line)
    return 0


def _walk(path: Path, content: bool, objects: bool) -> int:
    n = 0
    keep: list[_Step] = []
    with open(path, "rb") as f:
        for line in f:
            doc = _decode(line)
            for rs in doc.get("resourceSpans", ()):
                for ss in rs.get("scopeSpans", ()):
                    for sp in ss.get("spans", ()):
                        attrs = {}
                        for kv in sp.get("attributes", ()):
                            for value in kv["value"].values():
                                attrs[kv["key"]] = value
                                break
                        if content:
                            for key in _CONTENT:
                                text = attrs.get(key)
                                if isinstance(text, str):
                                    _decode(text)
                        if objects:
                            keep.append(
                                _Step(
                                    attrs.get("gen_ai.operation.name", ""),
                                    sp.get("name", ""),
                                    sp.get("parentSpanId", ""),
                                    sp.get("startTimeUnixNano", ""),
                                    sp.get("endTimeUnixNano", ""),
                                    int(attrs.get("gen_ai.usage.input_tokens", 0)),
                                )
                            )
                        n += 1
    return n


def _afp_phases(path: Path) -> tuple[float, float, float]:
    from agentbisect.analyses.aggregate import aggregate
    from agentbisect.core.deep import run_deep
    from agentbisect.importers.convert import conversion
    from agentbisect.importers.opentelemetry.traces import read_batch
    from agentbisect.importers.recording import load_doc
    from agentbisect.importers.synthesize import synthesize
    from agentbisect.model.run import Run

    def go() -> tuple[float, float, float]:
        c = time.process_time
        t0 = c()
        data = path.read_bytes()
        gc.disable()  # as the import itself has it
        try:
            spans = read_batch(str(path), data).spans
            del data
            t1 = c()
            result = synthesize(spans, [], str(path))
            del spans
            t2 = c()
        finally:
            gc.enable()
        run = Run(load_doc(str(path), conversion(result, "full").doc, False))
        del result
        aggregate(run, show_all=False, drill=None, overview=False)
        return t1 - t0, t2 - t1, c() - t2

    result: tuple[float, float, float] = run_deep(go)
    return result


def _best(fn: Callable[[], object], repeat: int, collector: bool = False) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        if not collector:
            gc.disable()  # as afp's import has it: no collector passes over the decoded lines
        try:
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
        finally:
            gc.enable()
    return best


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--spans", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=otlp_gen.BATCH)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "afp-otlp-bench")
    args = ap.parse_args()
    path = otlp_gen.cached(args.spans, args.data_dir, args.batch)
    spans = _walk(path, content=False, objects=False)
    rows = [
        # The goal's baseline is otlp_bench's, a plain script: the collector stays on there.
        ("decode", _best(lambda: _decode_only(path), args.repeat, collector=True)),
        ("+ attributes", _best(lambda: _walk(path, False, False), args.repeat)),
        ("+ content", _best(lambda: _walk(path, True, False), args.repeat)),
        ("+ one object per span", _best(lambda: _walk(path, True, True), args.repeat)),
    ]
    base = rows[0][1]
    print(f"file: {spans} spans, {args.batch} per line, {path.stat().st_size / 1e6:.1f} MB")
    for name, seconds in rows:
        print(f"  {name:<24} {seconds:6.2f} s CPU  {seconds / base:5.2f}× decode")
    floor = rows[-1][1]
    left = 3.0 * base - floor
    print(
        f"goal 3.0× decode = {3.0 * base:.2f} s; after the floor {left:.2f} s are left, "
        f"{max(left, 0.0) / spans * 1e6:.1f} µs per span for classification, events, the "
        "commit axis, rollups, flags and the output"
    )
    phases = [_afp_phases(path) for _ in range(max(1, args.repeat - 1))]
    best = [min(col) for col in zip(*phases, strict=True)]
    total = sum(best)
    print(
        "afp today (CPU s, best): read spans {:.2f}, synthesize {:.2f}, load + aggregate {:.2f}"
        " = {:.2f} s, {:.2f}× decode ({:.1f} µs per span)".format(
            *best, total, total / base, total / spans * 1e6
        )
    )


if __name__ == "__main__":
    main()
