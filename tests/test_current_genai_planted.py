"""The planted corpus written under the current GenAI conventions (``benchmarks/planted/current/``:
workflow root, agent, plan span, retrieval documents, memory records, ``create_memory``) is
frozen, every LLM call, tool call and token of each scenario is counted, the one operation afp
does not read is named under ``spans-ignored``, and each planted source comes out as the suspect
kind the issue-11 table prescribes — a memory record as ``injection`` by its id, with its text."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "benchmarks" / "planted"
sys.path.insert(0, str(PLANTED))

import current  # noqa: E402
from corpus import EVERY as CASES  # noqa: E402

from agentbisect.analyses.aggregate import aggregate  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from tests.test_planted_traces import _planted  # noqa: E402

EVERY = [sc for sc, _ in CASES]
SPLIT = {sc.id: split for sc, split in CASES}


def _truth(sc_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((current.OUT / f"{sc_id}.truth.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("sc", EVERY[::9], ids=lambda sc: sc.id)
def test_committed_corpus_equals_generator_output(sc: Any) -> None:
    for name, text in current.build(sc, SPLIT[sc.id]).items():
        assert (current.OUT / name).read_text("utf-8") == text, name


def test_counts_and_the_planted_source_of_every_scenario() -> None:
    seen: set[str] = set()
    for sc in EVERY:
        truth = _truth(sc.id)
        case = truth["formats"]["genai-current"]
        run = Run(load(str(current.OUT / case["file"])))
        row = aggregate(run, overview=False).run_row
        assert (row.llmCalls, row.toolCalls) == (truth["llmCalls"], truth["toolCalls"]), sc.id
        assert {"input": row.tokens.input, "output": row.tokens.output} == truth["tokens"], sc.id
        ignored = [f.note for f in run.flags if f.flag == "spans-ignored"]
        assert len(ignored) == 1 and "(create_memory ×1)" in ignored[0], sc.id
        meta = run.import_meta
        assert meta is not None
        rep = localize(run, at_step=meta.llmCallIds[-1], embedder="mock", max_suspects=10**6)
        ref = case["planted"]
        hits = _planted(rep.suspects, run, ref)
        assert len(hits) == 1, (sc.id, [s.source for s in hits])
        assert hits[0].kind == ref["kind"], sc.id
        assert hits[0].evidence.text.endswith(truth["plantedText"][:400]), sc.id
        kind = ref["kind"] + (":doc" if "documentId" in ref else "")
        if "documentId" in ref and hits[0].source.startswith("search_memory:"):
            kind += ":memory"
        seen.add(kind)
    assert seen == {"tool", "injection", "stage", "injection:doc", "injection:doc:memory"}
