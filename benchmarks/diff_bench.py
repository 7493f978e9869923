"""``afp diff``'s benchmark: a generated corpus of good/bad pairs and a long-run timing.

Accuracy. Each scenario of the planted corpus (``benchmarks/planted/``) is run twice, written by
the corpus' own generators (``planted/traces.py``: GenAI and OpenInference OTLP/JSON and chat
transcripts; ``planted/generate.py``: agentfootprint recordings):

- the *bad* run is the scenario as written: its planted source carries a value the answer repeats;
- the *good* run is the same task run again: new ids and times (another trace, span and call
  ids, another clock), every tool result stamped with its own request id and fetch time, one
  distractor changed in a field the answer does not use, and the planted value changed — in the
  planted source and, as the model would, in the answer (and in an earlier LLM output's later
  uses).

A pair scores when ``afp diff`` puts the first output divergence at the right LLM call (the call
whose output carries the planted value first) and the planted source is its top difference.
Pairs are same-format and cross-format (GenAI vs OpenInference, transcript vs GenAI, recording
vs GenAI). A scenario whose planted source shares no number or name with its answer has no
value to plant and is counted as skipped.

Speed. ``benchmarks/synth.py``'s ~30 MB recording against a twin (new ids and times, one tool
result changed): CPU time of ``afp diff`` against one ``afp aggregate`` of the run.

    python benchmarks/diff_bench.py              # accuracy and speed
    python benchmarks/diff_bench.py --no-speed   # accuracy only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "planted"))
sys.path.insert(0, str(ROOT))

import generate  # noqa: E402
import traces  # noqa: E402
from corpus import EVERY, Scenario, Source  # noqa: E402

PAIRS = (
    ("genai", "genai"),
    ("openinference", "openinference"),
    ("transcript", "transcript"),
    ("recording", "recording"),
    ("genai", "openinference"),
    ("openinference", "genai"),
    ("transcript", "genai"),
    ("recording", "genai"),
)
NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{2,}")  # a capitalised word inside a sentence
NUMBER = re.compile(r"(?<![\w.,:#£$€-])\d+(?:[.,:]\d+)*(?![\w])")


def _hex(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:12]


def _whole(token: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.,:]){re.escape(token)}(?![\w])")


def planted_value(sc: Scenario) -> tuple[str, str] | None:
    """The value of the planted source its answer repeats, and the value the good run has."""
    text = sc.sources[sc.culprit].text
    # a value of the source's own: not the question's (what the user asked is given, not
    # evidence), and a name only where the answer writes it as one (inside a sentence)
    for m in NUMBER.finditer(text):
        v = m.group(0)
        if _whole(v).search(sc.answer) and not _whole(v).search(sc.question):
            return v, _bump(v, 3)
    names = set(NAME.findall(sc.answer))
    for m in NAME.finditer(text):
        v = m.group(0)
        if v in names and not _whole(v).search(sc.question):
            return v, "Alderbrook"
    return None


def _bump(value: str, by: int) -> str:
    """``value`` with its last group of digits raised by ``by`` (5,000 → 5,003; 6:30 → 6:33)."""

    def up(d: re.Match[str]) -> str:
        return str(int(d.group(0)) + by).zfill(len(d.group(0)))

    return re.sub(r"\d+$", up, value)


def _change(text: str, old: str, new: str) -> str:
    return _whole(old).sub(new, text)


def _stamp(src: Source, run: str, i: int) -> Source:
    """A tool result as a service returns it: with its own request id and fetch time."""
    if src.kind != "tool":
        return src
    rid = f"req_{_hex(run, i)}"
    at = (
        f"2026-12-0{1 + i % 8}T{10 + i:02d}:{(7 * i) % 60:02d}:00Z"
        if run == "good"
        else (f"2026-12-0{2 + i % 7}T{9 + i:02d}:{(11 * i) % 60:02d}:31Z")
    )
    return replace(src, text=f"{src.text} [request {rid}, fetched {at}]")


def pair(sc: Scenario) -> tuple[Scenario, Scenario, dict[str, Any]] | None:
    value = planted_value(sc)
    if value is None:
        return None
    old, new = value
    good_sources: list[Source] = []
    distractor = None
    for i, src in enumerate(sc.sources):
        if i == sc.culprit:
            src = replace(src, text=_change(src.text, old, new))
        elif (
            distractor is None
            and src.kind == "tool"
            and (
                # a planted earlier output is the model answering otherwise with the same inputs:
                # the distractor then comes after it
                sc.sources[sc.culprit].kind != "llm" or i > sc.culprit
            )
        ):
            nums = [n for n in NUMBER.findall(src.text) if n not in sc.answer]
            if nums:
                bumped = _bump(nums[0], 1)
                src = replace(src, text=_change(src.text, nums[0], bumped))
                distractor = i
        good_sources.append(_stamp(src, "good", i))
    bad_sources = [_stamp(s, "bad", i) for i, s in enumerate(sc.sources)]
    good = replace(
        sc, id=f"{sc.id}-again", sources=tuple(good_sources), answer=_change(sc.answer, old, new)
    )
    bad = replace(sc, sources=tuple(bad_sources))
    truth = {"value": old, "goodValue": new, "distractor": distractor}
    return good, bad, truth


def write(sc: Scenario, fmt: str, path: Path, t0: int, clock0: int) -> None:
    if fmt == "recording":
        generate._Clock.__init__ = lambda self: setattr(self, "now", clock0)  # type: ignore[method-assign]
        doc, _ = generate.build(sc)
    else:
        traces.T0 = t0
        doc, _ = traces.WRITERS[fmt](sc, traces.conversation(sc))
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


def right_call(sc: Scenario) -> int:
    """The LLM call whose output first carries the planted value: the answer, or the planted
    earlier output (one call per tool result and per earlier output, in source order)."""
    calls = 0
    for i, src in enumerate(sc.sources):
        if src.kind in ("tool", "llm"):
            if i == sc.culprit and src.kind == "llm":
                return calls
            calls += 1
    return calls


def accuracy(out: Path, embedder: str | None) -> dict[str, Any]:
    from agentbisect.diff.api import diff_runs
    from agentbisect.diff.options import DiffOptions
    from agentbisect.importers import open_run

    opts = DiffOptions(embedder=embedder)
    rows: Counter[str] = Counter()
    misses: list[str] = []
    skipped = 0
    for sc, _ in EVERY:
        made = pair(sc)
        if made is None:
            skipped += 1
            continue
        good, bad, truth = made
        for gf, bf in PAIRS:
            g = out / f"{sc.id}.good.{gf}.json"
            b = out / f"{sc.id}.bad.{bf}.json"
            if not g.exists():
                write(good, gf, g, 1_797_000_000_000_000_000, 1_791_000_000_000)
            if not b.exists():
                write(bad, bf, b, 1_796_100_000_000_000_000, 1_790_000_000_000)
            res = diff_runs(open_run(str(g)), open_run(str(b)), opts)
            key = f"{gf}→{bf}"
            rows[key + " pairs"] += 1
            div = res.firstOutputDivergence
            at_right = div is not None and div.bad.llmIndex == right_call(sc)
            top = res.differences[0] if res.differences else None
            # the top difference is the planted source: its changed spans are the planted value
            top_ok = top is not None and any(
                c.material and truth["value"] in c.bad and truth["goodValue"] in c.good
                for c in top.changes
            )
            rows[key + " divergence"] += at_right
            rows[key + " top"] += top_ok
            rows[key + " both"] += at_right and top_ok
            if not (at_right and top_ok):
                misses.append(
                    f"{sc.id} {key}: divergence at "
                    f"{div.bad.llmIndex if div else None} (want {right_call(sc)}), top "
                    f"{(top.kind, top.bad.name if top and top.bad else None) if top else None}"
                )
    return {"rows": rows, "misses": misses, "skipped": skipped}


def _cpu(cmd: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def twin(src: Path, dst: Path) -> None:
    """The run again: other times, call and run ids, and one tool result changed."""
    text = src.read_text(encoding="utf-8")
    text = re.sub(
        r'"(ts|wallClockMs)":(\d+)',
        lambda m: f'"{m.group(1)}":{int(m.group(2)) + 86_400_000}',
        text,
    )
    text = re.sub(r'"toolCallId":"c(\d+)"', r'"toolCallId":"call_\1x9f3k2"', text)
    text = text.replace("run-1795000000000-1", "run-1795086400000-7")
    at = text.index('"type":"tool.end"', len(text) // 2)
    at = text.index('"result":"', at) + len('"result":"')
    text = text[:at] + "refund declined 42 days " + text[at:]
    dst.write_text(text, encoding="utf-8")


def speed(out: Path) -> dict[str, float]:
    sys.path.insert(0, str(HERE))
    from synth import make_long_run

    run = out / "long.json"
    again = out / "long-again.json"
    make_long_run(run, 30.0)
    twin(run, again)
    py = [sys.executable, "-m", "agentbisect"]
    # alternated, the best of three each: the box is shared, and a slow neighbour's moment
    # should not land on one command only
    aggs, diffs = [], []
    for _ in range(3):
        aggs.append(_cpu([*py, "aggregate", str(run), "--json"]))
        diffs.append(_cpu([*py, "diff", str(run), str(again), "--json", "--embedder", "mock"]))
    agg, diff = min(aggs), min(diffs)
    return {"mb": run.stat().st_size / 1e6, "aggregate_cpu_s": agg, "diff_cpu_s": diff}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--embedder", default=None, help="mock | wordllama (default: afp's default)")
    ap.add_argument("--keep", help="write the corpus here instead of a temporary directory")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep or tmp)
        out.mkdir(exist_ok=True, parents=True)
        t = time.process_time()
        acc = accuracy(out, args.embedder)
        rows = acc["rows"]
        print(
            f"afp diff accuracy ({time.process_time() - t:.1f} s CPU; "
            f"{acc['skipped']} of {len(EVERY)} scenarios skipped: no value to plant)"
        )
        total = Counter[str]()
        for gf, bf in PAIRS:
            key = f"{gf}→{bf}"
            n = rows[key + " pairs"]
            total["pairs"] += n
            for what in ("divergence", "top", "both"):
                total[what] += rows[f"{key} {what}"]
            print(
                f"  {key:28} {n:4} pairs  divergence {rows[key + ' divergence'] / n:6.1%}  "
                f"top difference {rows[key + ' top'] / n:6.1%}  both {rows[key + ' both'] / n:6.1%}"
            )
        n = total["pairs"]
        print(
            f"  {'all':28} {n:4} pairs  divergence {total['divergence'] / n:6.1%}  "
            f"top difference {total['top'] / n:6.1%}  both {total['both'] / n:6.1%}"
        )
        for line in acc["misses"][:25]:
            print("  miss:", line)
        if not args.no_speed:
            s = speed(out)
            print(
                f"speed: {s['mb']:.1f} MB run — afp aggregate {s['aggregate_cpu_s']:.2f} s CPU, "
                f"afp diff vs its twin {s['diff_cpu_s']:.2f} s CPU "
                f"({s['diff_cpu_s'] / s['aggregate_cpu_s']:.2f}×)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
