"""The planted corpus written as traces (``benchmarks/planted/traces/``) is frozen, and each
planted source comes out of the trace importers as the suspect the issue-11 table prescribes:
a tool result as ``tool`` (its rerun spec names the tool and that call's id), a retrieved
document or memory as ``injection`` (spec: the document id), a system-prompt line or injected
fact as ``injection`` (spec: the part id and its text), an earlier LLM output as ``stage``, and
the user's message as ``arg`` (spec: its message index and role)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "benchmarks" / "planted"
sys.path.insert(0, str(PLANTED))

import traces  # noqa: E402
from corpus import EVERY as CASES  # noqa: E402

from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from agentbisect.results.report import Suspect  # noqa: E402

EVERY = [sc for sc, _ in CASES]
SPLIT = {sc.id: split for sc, split in CASES}


def _truth(sc_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((traces.OUT / f"{sc_id}.truth.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("sc", EVERY[::7], ids=lambda sc: sc.id)
def test_committed_traces_equal_generator_output(sc: traces.Scenario) -> None:
    for name, text in traces.build(sc, SPLIT[sc.id]).items():
        assert (traces.OUT / name).read_text("utf-8") == text, name


def _planted(suspects: list[Suspect], run: Run, ref: dict[str, str]) -> list[Suspect]:
    meta = run.import_meta
    assert meta is not None
    out = []
    for s in suspects:
        src = meta.sources.get(s.source)
        if src is None:
            continue
        matches = (
            ("toolCallId" in ref and src.toolCallId == ref["toolCallId"])
            or ("documentId" in ref and getattr(s.detail, "injectionId", None) == ref["documentId"])
            or (
                "systemText" in ref
                and src.kind == "system-instruction"
                and src.text == ref["systemText"]
            )
            or ("spanId" in ref and src.kind == "llm" and src.spanId == ref["spanId"])
        )
        if matches:
            out.append(s)
    return out


@pytest.mark.parametrize("fmt", traces.FORMATS)
def test_planted_source_is_the_prescribed_suspect(fmt: str) -> None:
    seen: set[str] = set()
    for sc in EVERY:
        case = _truth(sc.id)["formats"][fmt]
        ref = case["planted"]
        run = Run(load(str(traces.OUT / case["file"])))
        meta = run.import_meta
        assert meta is not None
        rep = localize(run, at_step=meta.llmCallIds[-1], embedder="mock", max_suspects=10**6)
        hits = _planted(rep.suspects, run, ref)
        assert len(hits) == 1, (sc.id, fmt, [s.source for s in hits])
        s = hits[0]
        assert s.kind == ref["kind"], (sc.id, fmt)
        spec = s.ablation
        seen.add(ref["kind"] + (":doc" if "documentId" in ref else ""))
        if ref["kind"] == "tool":
            assert spec.ignoredTools == [ref["toolName"]]
            assert spec.toolCallIds == [ref["toolCallId"]]
        elif "documentId" in ref:
            assert spec.excludeInjectionIds == [ref["documentId"]]
        elif ref["kind"] == "injection":
            part = meta.sources[s.source].partId
            assert spec.excludeInjectionIds == [part]
            assert spec.text == ref["systemText"]
        else:
            assert spec.kind == "stage" and spec.source == s.source
        # what the suspect said is the planted text (tool result, document, line, output)
        assert s.evidence.text.endswith(_truth(sc.id)["plantedText"][:400]), (sc.id, fmt)
        # the user's message is the run's input: an `arg` suspect naming its index and role
        asks = [x for x in rep.suspects if x.kind == "arg"]
        assert [x.evidence.text for x in asks] == [sc.question], (sc.id, fmt)
        assert asks[0].ablation.role == "user"
        assert asks[0].ablation.messageIndex == meta.sources[asks[0].source].messageIndex
    kinds = {"tool", "injection", "stage"} | ({"injection:doc"} if fmt != "transcript" else set())
    assert seen == kinds
