"""The planted corpus written as Langfuse and LangSmith exports (``benchmarks/planted/exports/``)
is frozen, every LLM call, tool call and token of each scenario is counted, and each planted
source comes out of the export importers as the suspect kind the issue-11 table prescribes (a
tool result as ``tool`` by its call id, a document as ``injection`` by its id, a system-prompt
line as ``injection``, an earlier LLM output as ``stage``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "benchmarks" / "planted"
sys.path.insert(0, str(PLANTED))

import exports  # noqa: E402
from corpus import EVERY as CASES  # noqa: E402

from agentbisect.analyses.aggregate import aggregate  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from tests.test_planted_traces import _planted  # noqa: E402

EVERY = [sc for sc, _ in CASES]
SPLIT = {sc.id: split for sc, split in CASES}


def _truth(sc_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((exports.OUT / f"{sc_id}.truth.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("sc", EVERY[::7], ids=lambda sc: sc.id)
def test_committed_exports_equal_generator_output(sc: Any) -> None:
    for name, text in exports.build(sc, SPLIT[sc.id]).items():
        assert (exports.OUT / name).read_text("utf-8") == text, name


@pytest.mark.parametrize("fmt", exports.FORMATS)
def test_counts_and_the_planted_source_of_every_scenario(fmt: str) -> None:
    seen: set[str] = set()
    for sc in EVERY:
        truth = _truth(sc.id)
        case = truth["formats"][fmt]
        run = Run(load(str(exports.OUT / case["file"])))
        row = aggregate(run, overview=False).run_row
        assert (row.llmCalls, row.toolCalls) == (truth["llmCalls"], truth["toolCalls"]), sc.id
        tokens = {"input": row.tokens.input, "output": row.tokens.output}
        assert tokens == truth["tokens"], sc.id
        meta = run.import_meta
        assert meta is not None
        rep = localize(run, at_step=meta.llmCallIds[-1], embedder="mock", max_suspects=10**6)
        ref = case["planted"]
        hits = _planted(rep.suspects, run, ref)
        assert len(hits) == 1, (sc.id, fmt, [s.source for s in hits])
        assert hits[0].kind == ref["kind"], (sc.id, fmt)
        assert hits[0].evidence.text.endswith(truth["plantedText"][:400]), (sc.id, fmt)
        seen.add(ref["kind"] + (":doc" if "documentId" in ref else ""))
    assert seen == {"tool", "injection", "stage", "injection:doc"}
