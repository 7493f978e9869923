"""Read the ranking corpus's traces through the importers and measure one case; this module's job.

For every (scenario, trace convention) it localizes at the last LLM call exactly as ``afp bisect``
does, and keeps what the rankings need: the content-backed suspects' evidence signals, source
kinds, log positions and texts, the answer and the question (``agentbisect.bisect.evidence.features``' inputs), which of
them is the planted source, and the rank of the planted source under ``--upstream`` and under
today's evidence-first ordering. ``fit_ranking.py`` fits on these rows, ``ranking_accuracy.py``
scores them; both read the cache this writes (``benchmarks/out/ranking-cases.<embedder>.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "planted"))

from corpus import SELECTION  # noqa: E402, F401  (re-exported: the selection split's one name)

from agentbisect.bisect.embed.choose import embed_many, resolve_embedder  # noqa: E402
from agentbisect.bisect.evidence.rank import (  # noqa: E402
    backed_first,
    input_text,
    score_suspects,
)
from agentbisect.bisect.evidence.text import own_text  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.bisect.pipeline.source_kind import is_run_input, suspect_kind  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from agentbisect.results.report import Suspect  # noqa: E402
from agentbisect.schema.imported import ImportMeta  # noqa: E402

CORPUS = ROOT / "benchmarks" / "out" / "ranking-corpus"
CACHE = ROOT / "benchmarks" / "out"
MAX_SUSPECTS = 12  # afp bisect's default cut: a culprit past it is a miss


def is_planted(s: Suspect, ref: dict[str, str], meta: ImportMeta) -> bool:
    """The planted source, under the suspect kind the importers' source map prescribes."""
    if s.kind != ref["kind"]:
        return False
    src = meta.sources.get(s.source)
    if src is None:
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


def rank_in(order: list[Suspect], ref: dict[str, str], meta: ImportMeta) -> int | None:
    for i, s in enumerate(order[:MAX_SUSPECTS]):
        if is_planted(s, ref, meta):
            return i + 1
    return None


def measure(path: Path, ref: dict[str, str], emb: Any) -> dict[str, Any]:
    run = Run(load(str(path)))
    meta = run.import_meta
    assert meta is not None, path
    step = meta.llmCallIds[-1]
    log = run.commit_log
    upstream = rank_in(localize(run, at_step=step, upstream=True).suspects, ref, meta)
    every = localize(
        run, at_step=step, embedder=emb, ranking="upstream", max_suspects=10**6
    ).suspects
    ev = score_suspects(every, log, step, lambda ts: embed_many(emb, ts), meta=meta)
    today, _ = backed_first(every, ev)
    backed = [i for i, e in enumerate(ev) if e.score is not None]
    planted = [j for j, i in enumerate(backed) if is_planted(every[i], ref, meta)]
    return {
        "upstream": upstream,
        "evidenceFirst": rank_in(today, ref, meta),
        "structureOnly": sum(1 for e in ev if e.score is None),
        "signals": [ev[i].score.signals for i in backed],  # type: ignore[union-attr]
        "kinds": [suspect_kind(every[i], meta) for i in backed],
        "positions": [log.last_idx.get(every[i].source, 0) for i in backed],
        "texts": [ev[i].text or "" for i in backed],
        "answer": own_text(log, step) or "",
        "question": input_text(
            [
                e.text
                for s, e in zip(every, ev, strict=True)
                if e.text and is_run_input(s.kind, s.source, meta)
            ]
        ),
        "planted": planted[0] if planted else None,
    }


PLANTED = (
    (ROOT / "benchmarks" / "planted" / "traces", ("genai", "openinference", "transcript")),
    (ROOT / "benchmarks" / "planted" / "exports", ("langfuse", "langsmith")),
)


def load_planted_cases(
    embedder: str = "wordllama", *, refresh: bool = False
) -> list[dict[str, Any]]:
    """The older planted-culprit corpus (``benchmarks/planted``: its ``main`` split, the
    held-out splits and the ``SELECTION`` split) as traces and exports, measured the same way
    (cached per embedder)."""
    cache = CACHE / f"planted-cases.{embedder}.json"
    if cache.exists() and not refresh:
        return list(json.loads(cache.read_text("utf-8")))
    emb = resolve_embedder(embedder, use_cache=True).embedder
    cases = []
    for folder, formats in PLANTED:
        for p in sorted(folder.glob("*.truth.json")):
            t = json.loads(p.read_text("utf-8"))
            for fmt in formats:
                f = t["formats"][fmt]
                m = measure(folder / f["file"], f["planted"], emb)
                cases.append(
                    {
                        "scenario": t["scenario"],
                        "domain": t["domain"],
                        "split": t["split"],
                        "shape": "planted",
                        "culpritKind": t["plantedAs"],
                        "convention": fmt,
                        **m,
                    }
                )
    CACHE.mkdir(exist_ok=True)
    cache.write_text(json.dumps(cases) + "\n", "utf-8")
    return cases


def load_cases(embedder: str = "wordllama", *, refresh: bool = False) -> list[dict[str, Any]]:
    """Every case of the corpus (cached per embedder; ``refresh`` measures again)."""
    cache = CACHE / f"ranking-cases.{embedder}.json"
    if cache.exists() and not refresh:
        return list(json.loads(cache.read_text("utf-8")))
    truths = sorted(CORPUS.glob("*.truth.json"))
    if not truths:
        raise SystemExit(f"no corpus in {CORPUS}: run benchmarks/ranking/ranking_traces.py first")
    emb = resolve_embedder(embedder, use_cache=True).embedder
    cases = []
    for p in truths:
        t = json.loads(p.read_text("utf-8"))
        for fmt, f in t["formats"].items():
            m = measure(CORPUS / f["file"], f["planted"], emb)
            cases.append(
                {
                    "scenario": t["scenario"],
                    "domain": t["domain"],
                    "split": t["split"],
                    "shape": t["shape"],
                    "culpritKind": t["culpritKind"],
                    "convention": fmt,
                    **m,
                }
            )
    CACHE.mkdir(exist_ok=True)
    cache.write_text(json.dumps(cases) + "\n", "utf-8")
    return cases
