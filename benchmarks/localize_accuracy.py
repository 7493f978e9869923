"""How often does ``afp bisect`` put the planted culprit first? Top-1, top-3 and MRR per
embedder × ranking over the frozen planted-culprit corpus (``benchmarks/planted/cases``).

The first row is the upstream report (mock embedder, upstream ranking: what ``--upstream``
prints); the default (wordllama, evidence-first) and every other combination, including each
evidence signal alone, are measured in the same run; the ``--expected`` rows score contrastively
against the right answers in ``planted/expected.json``. A culprit cut off by ``max_suspects`` (12)
counts as a miss (reciprocal rank 0). The held-out splits (``heldout``, ``heldout2``: scenarios
written before the scorer changes they judge) are reported apart.

A second table measures the same scenarios written as traces (``planted/traces/``: OTLP/JSON
under the GenAI conventions and under OpenInference, and chat transcripts) and as platform exports
(``planted/exports/``: Langfuse traces and LangSmith run trees) and read through the importers: the planted source must come out as the suspect kind the importers' source map
prescribes (tool result → ``tool``, document → ``injection``, system-prompt line → ``injection``,
earlier LLM output → ``stage``) — a planted source found under another kind counts as a miss —
and each format is compared, scenario by scenario, with the recording-API corpus under the
default ranking. ``heldout3`` … ``heldout6`` (``planted/scenarios/heldout3.json`` … ``heldout6.json``;
``heldout5`` and ``heldout6`` written blind, without running this benchmark) are reported with
the recording-API splits, each as its own columns. ``select`` (``planted/scenarios/select.json``)
is the learned ranking's selection data, not a test split: it is left out unless ``--select``.

    python benchmarks/localize_accuracy.py [--embedders mock,wordllama] [--misses] [--json]
                                           [--no-traces] [--select]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentbisect.bisect.confidence import FIT_FILE, confidence, fit  # noqa: E402
from agentbisect.bisect.embed.choose import embed_many, resolve_embedder  # noqa: E402
from agentbisect.bisect.evidence.rank import evidence_first  # noqa: E402
from agentbisect.bisect.evidence.scorer import SIGNALS  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from agentbisect.results.report import Confidence, Suspect  # noqa: E402
from agentbisect.schema.imported import ImportMeta  # noqa: E402

CASES = ROOT / "benchmarks" / "planted" / "cases"
TRACES = ROOT / "benchmarks" / "planted" / "traces"
EXPORTS = ROOT / "benchmarks" / "planted" / "exports"  # Langfuse and LangSmith exports
CURRENT = ROOT / "benchmarks" / "planted" / "current"  # current GenAI conventions (util-genai 1.3)
# (folder, its formats): the same scenarios in every format
CORPORA = (
    (TRACES, ("genai", "openinference", "transcript")),
    (EXPORTS, ("langfuse", "langsmith")),
    (CURRENT, ("genai-current",)),
)
FORMATS = tuple(fmt for _, formats in CORPORA for fmt in formats)
sys.path.insert(0, str(CASES.parent))

from corpus import EXPECTED, SELECTION  # noqa: E402

MAX_SUSPECTS = 12
SKIPPED = -1  # an --expected row on a scenario without an expected answer


@dataclass
class Config:
    embedder: str
    ranking: str  # upstream | evidence-first
    signals: tuple[str, ...] = SIGNALS
    expected: bool = False

    @property
    def name(self) -> str:
        if self.ranking in ("upstream", "learned"):
            return f"{self.embedder} × {self.ranking}"
        which = "all signals" if self.signals == SIGNALS else "+".join(self.signals) + " only"
        if self.expected:
            which += ", --expected"
        return f"{self.embedder} × evidence-first ({which})"


def is_planted(s: Suspect, planted: dict[str, str]) -> bool:
    if s.source != planted["source"] or s.kind != planted["kind"]:
        return False
    d = s.detail
    ident = getattr(d, "toolName", None) or getattr(d, "injectionId", None) or s.source
    return bool(ident == planted["id"])


def rank_of(suspects: list[Suspect], planted: dict[str, str]) -> int | None:
    for i, s in enumerate(suspects[:MAX_SUSPECTS]):
        if is_planted(s, planted):
            return i + 1
    return None


def _measure(r: list[int | None]) -> dict[str, Any] | None:
    r = [x for x in r if x != SKIPPED]
    if not r:
        return None
    return {
        "n": len(r),
        "top1": sum(1 for x in r if x == 1),
        "top3": sum(1 for x in r if x is not None and x <= 3),
        "mrr": sum(1 / x for x in r if x is not None) / len(r),
    }


def is_planted_trace(s: Suspect, ref: dict[str, str], meta: ImportMeta) -> bool:
    """The planted source of a trace case, under the suspect kind the source map prescribes."""
    src = meta.sources.get(s.source)
    if src is None or s.kind != ref["kind"]:
        return False
    if "toolCallId" in ref:
        return src.kind == "tool" and src.toolCallId == ref["toolCallId"]
    if "documentId" in ref:
        return (
            src.kind == "retrieval" and getattr(s.detail, "injectionId", None) == ref["documentId"]
        )
    if "systemText" in ref:
        return src.kind == "system-instruction" and src.text == ref["systemText"]
    return src.kind == "llm" and src.spanId == ref["spanId"]


def _truths(folder: Path, selection: bool) -> list[dict[str, Any]]:
    """A corpus folder's truth files in name order; the selection split only when asked."""
    every = [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.truth.json"))]
    return [t for t in every if selection or t.get("split") != SELECTION]


def _traces(
    names: list[str],
    embedders: dict[str, Any],
    recorded: dict[str, int | None],
    selection: bool,
) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """Rows for the trace corpus (format × config × split), and the paired comparison of each
    format with the recording-API corpus under the default ranking."""
    truths = _truths(TRACES, selection)
    configs = [("mock", "upstream")] + [(e, "upstream") for e in names if e != "mock"]
    configs += [(e, "evidence-first") for e in names]
    configs += [(e, "learned") for e in names]
    default = (names[-1], "evidence-first")
    ranks: dict[tuple[str, str, str], list[int | None]] = {}
    splits: dict[str, list[int]] = {}
    for i, t in enumerate(truths):
        splits.setdefault(t["split"], []).append(i)
    paired: dict[str, dict[str, int]] = {}
    folders = {fmt: folder for folder, formats in CORPORA for fmt in formats}
    by_folder = {folder: _truths(folder, selection) for folder, _ in CORPORA}
    for fmt in FORMATS:
        folder = folders[fmt]
        corpus = by_folder[folder]
        assert [t["scenario"] for t in corpus] == [t["scenario"] for t in truths], folder
        p = paired.setdefault(fmt, {"same": 0, "better": 0, "worse": 0})
        for t in corpus:
            case = t["formats"][fmt]
            run = Run(load(str(folder / case["file"])))
            meta = run.import_meta
            assert meta is not None, case["file"]
            step = meta.llmCallIds[-1]
            for e, ranking in configs:
                if e == "mock" and ranking == "upstream":
                    order = localize(run, at_step=step, upstream=True).suspects
                else:
                    order = localize(
                        run, at_step=step, embedder=embedders[e], ranking=ranking
                    ).suspects
                r = next(
                    (
                        k + 1
                        for k, s in enumerate(order[:MAX_SUSPECTS])
                        if is_planted_trace(s, case["planted"], meta)
                    ),
                    None,
                )
                ranks.setdefault((fmt, e, ranking), []).append(r)
                if (e, ranking) == default:
                    rec = recorded.get(t["scenario"])
                    a, b = (r or 10**6), (rec or 10**6)
                    p["same" if a == b else ("better" if a < b else "worse")] += 1
    rows = []
    for (fmt, e, ranking), r in ranks.items():
        row: dict[str, Any] = {"config": f"{fmt} · {e} × {ranking}"}
        for split, idx in splits.items():
            m = _measure([r[i] for i in idx])
            if m is not None:
                row[split] = m
        rows.append(row)
    return rows, paired


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedders", default="mock,wordllama")
    ap.add_argument("--misses", action="store_true", help="list each config's misses")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-traces", action="store_true", help="skip the trace-importer corpus")
    ap.add_argument("--select", action="store_true", help="also the selection split (not a test)")
    args = ap.parse_args(argv)
    names = [e for e in args.embedders.split(",") if e]
    # afp's default is wordllama when the extra is installed: whichever order the list is in,
    # that embedder's evidence-first row is the one marked and compared with the traces
    if "wordllama" in names:
        names = [e for e in names if e != "wordllama"] + ["wordllama"]
    truths = _truths(CASES, args.select)
    if not truths:
        print(f"no cases in {CASES}; run benchmarks/planted/generate.py", file=sys.stderr)
        return 2

    configs = [Config("mock", "upstream")]
    for e in names:
        if e != "mock":
            configs.append(Config(e, "upstream"))
    for e in names:
        configs.append(Config(e, "evidence-first"))
    for e in names:
        configs.append(Config(e, "learned"))
    for e in names:
        for sig in SIGNALS:
            if sig == "semantic" or e == names[-1]:
                configs.append(Config(e, "evidence-first", (sig,)))
    for e in names:
        configs.append(Config(e, "evidence-first", expected=True))

    embedders = {e: resolve_embedder(e, use_cache=False).embedder for e in {"mock", *names}}
    ranks: dict[str, list[int | None]] = {c.name: [] for c in configs}
    calls: list[Confidence | None] = []  # the default's calibrated confidence, case by case
    t0 = time.perf_counter()
    for t in truths:
        run = Run(load(str(CASES / f"{t['scenario']}.recording.json")))
        step = t["atStep"]
        expected = EXPECTED.get(t["scenario"])
        for e, emb in embedders.items():
            # upstream's order of every suspect, for the single-signal rows
            full = localize(run, at_step=step, embedder=emb, ranking="upstream", max_suspects=10**6)
            for c in configs:
                if c.embedder != e:
                    continue
                if c.expected and expected is None:
                    ranks[c.name].append(SKIPPED)
                    continue
                if c.ranking == "upstream" and e == "mock":
                    order = localize(run, at_step=step, upstream=True).suspects  # the baseline
                elif c.ranking in ("upstream", "learned"):
                    order = localize(run, at_step=step, embedder=emb, ranking=c.ranking).suspects
                elif c.signals == SIGNALS:  # exactly what afp bisect does
                    order = localize(
                        run, at_step=step, embedder=emb, expected=expected if c.expected else None
                    ).suspects
                    if not c.expected and e == "wordllama":
                        calls.append(confidence(order, e))
                else:
                    order, _ = evidence_first(
                        full.suspects,
                        run.commit_log,
                        step,
                        lambda texts, _e=emb: embed_many(_e, texts),
                        use=c.signals,
                    )
                ranks[c.name].append(rank_of(order, t["planted"]))
    elapsed = time.perf_counter() - t0

    splits: dict[str, list[int]] = {}
    for i, t in enumerate(truths):
        splits.setdefault(t.get("split", "main"), []).append(i)
    order = sorted(splits, key=lambda k: (k != "main", k))
    rows: list[dict[str, Any]] = []
    for c in configs:
        row: dict[str, Any] = {"config": c.name}
        for split in order:
            m = _measure([ranks[c.name][i] for i in splits[split]])
            if m is not None:
                row[split] = m
        rows.append(row)
    trace_rows: list[dict[str, Any]] = []
    paired: dict[str, dict[str, int]] = {}
    if not args.no_traces:
        default = f"{names[-1]} × evidence-first (all signals)"
        by_id = {t["scenario"]: r for t, r in zip(truths, ranks[default], strict=True)}
        trace_rows, paired = _traces(names, embedders, by_id, args.select)
    if args.json:
        print(json.dumps({"rows": rows, "traces": trace_rows, "paired": paired}, indent=1))
        return 0
    width = max(len(r["config"]) for r in rows)
    print(
        "planted-culprit corpus, recording API: "
        + ", ".join(f"{len(splits[k])} {k}" for k in order)
        + f" ({CASES.relative_to(ROOT)}); a culprit cut by max_suspects ({MAX_SUSPECTS}) is a miss"
    )
    print(
        f"{'embedder × ranking':<{width}}  {'top-1':>11}  {'top-3':>11}  {'MRR':>5}"
        + "".join(f"   {k + ' top-1':>14}  {'top-3':>5}" for k in order[1:])
    )

    def cell(m: dict[str, Any], key: str) -> str:
        # one decimal: 43/48 is 89.6 %, which a whole-number "90%" would pass off as the goal
        return f"{m[key]:>3}/{m['n']} {100 * m[key] / m['n']:5.1f}%"

    for i, row in enumerate(rows):
        tag = "  ← upstream baseline (--upstream)" if i == 0 else ""
        if row["config"] == f"{names[-1]} × evidence-first (all signals)":
            tag = "  ← default"
        m = row["main"]
        held = ""
        for split in order[1:]:
            h = row.get(split)
            held += (
                f"   {h['top1']:>5}/{h['n']} {100 * h['top1'] / h['n']:5.1f}%  "
                f"{h['top3']:>2}/{h['n']}"
                if h
                else f"   {'—':>14}  {'':>5}"
            )
        print(
            f"{row['config']:<{width}}  {cell(m, 'top1')}  {cell(m, 'top3')}  {m['mrr']:5.3f}"
            f"{held}{tag}"
        )
    if trace_rows:
        print(
            "\nthe same scenarios as traces, through the importers (planted/traces/); "
            "top-1 / top-3 / MRR per split"
        )
        tw = max(len(r["config"]) for r in trace_rows)
        print(
            f"{'format · embedder × ranking':<{tw}}"
            + "".join(f"   {k:>22}" for k in order if k in trace_rows[0])
        )
        for row in trace_rows:
            line = f"{row['config']:<{tw}}"
            for k in order:
                m = row.get(k)
                if m is None:
                    continue
                line += f"   {m['top1']:>3}/{m['n']:<3} {m['top3']:>3}/{m['n']:<3} {m['mrr']:5.3f}"
            print(line)
        print(
            "default ranking, trace vs recording API, scenario by scenario (all splits): "
            + "; ".join(
                f"{fmt}: {p['same']} same, {p['better']} better, {p['worse']} worse"
                for fmt, p in paired.items()
            )
        )
    if calls:
        default = ranks["wordllama × evidence-first (all signals)"]
        sure = [r for r, c in zip(default, calls, strict=True) if c is not None and c.confident]
        k = max((c.shortlist for c in calls if c is not None), default=1)
        rest = [r for r, c in zip(default, calls, strict=True) if c is None or not c.confident]
        print(
            f"calibrated confidence (default; {FIT_FILE.name}, in-sample): confident on "
            f"{len(sure)}/{len(calls)}, top-1 precision when confident "
            f"{sum(1 for r in sure if r == 1)}/{len(sure)}; the others' culprit within #1–#{k}: "
            f"{sum(1 for r in rest if r is not None and r <= k)}/{len(rest)} "
            f"(cross-validated in the fit: precision {fit().cvPrecision}, confident share "
            f"{fit().cvConfidentShare:.3f})"
        )
    print(f"({elapsed:.1f} s)")
    if args.misses:
        for c in configs:
            miss = [
                (t["scenario"], t["plantedAs"], r)
                for t, r in zip(truths, ranks[c.name], strict=True)
                if r != 1 and r != SKIPPED
            ]
            print(f"\n{c.name}: {len(miss)} not first")
            for sid, kind, r in miss:
                print(f"  {sid:<28} {kind:<14} rank {r if r is not None else '>12'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
