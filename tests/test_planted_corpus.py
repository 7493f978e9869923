"""The planted-culprit corpus is frozen: the committed cases are exactly what the generator makes,
every truth names a suspect the upstream localizer actually produces, and the scenarios keep the
shape the accuracy benchmark relies on (one planted source, 3-8 distractors)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLANTED = ROOT / "benchmarks" / "planted"
sys.path.insert(0, str(PLANTED))

import generate  # noqa: E402
from corpus import SPLITS  # noqa: E402

from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402

SCENARIOS, HELDOUT = SPLITS["main"], SPLITS["heldout"]


def test_corpus_is_large_and_varied() -> None:
    assert len(SCENARIOS) >= 40
    kinds = {generate._planted_as(sc.sources[sc.culprit]) for sc in SCENARIOS}
    assert kinds == {
        "tool-result",
        "document",
        "injected-fact",
        "system-prompt",
        "llm-output",
        "memory",
    }
    assert len({sc.domain for sc in SCENARIOS}) >= 20  # corpus.py validated each on reading
    heldout = json.loads((generate.CASES / f"{HELDOUT[0].id}.truth.json").read_text("utf-8"))
    assert heldout["split"] == "heldout"


@pytest.mark.parametrize(
    ("split", "scenarios"),
    [(split, scs) for split, scs in SPLITS.items() if split != "main"],
)
def test_held_out_sets_are_labelled_and_spread(
    split: str, scenarios: list[generate.Scenario]
) -> None:
    # a held-out set is only a check on the scorer if the benchmark reports it apart and its
    # culprits are not all of one kind (a scorer preferring rules, or records, is caught out)
    assert len(scenarios) >= 10
    for sc in scenarios:
        truth = json.loads((generate.CASES / f"{sc.id}.truth.json").read_text("utf-8"))
        assert truth["split"] == split, sc.id
    assert len({generate._planted_as(sc.sources[sc.culprit]) for sc in scenarios}) >= 4


@pytest.mark.parametrize("sc", SCENARIOS[::6], ids=lambda sc: sc.id)
def test_committed_case_equals_generator_output(sc: generate.Scenario) -> None:
    recording, truth = generate.build(sc)
    on_disk = json.loads((generate.CASES / f"{sc.id}.recording.json").read_text("utf-8"))
    assert on_disk == json.loads(json.dumps(recording))
    assert json.loads((generate.CASES / f"{sc.id}.truth.json").read_text("utf-8")) == truth


def test_every_truth_is_a_suspect_of_the_upstream_report() -> None:
    for sc in SCENARIOS + HELDOUT:
        truth = json.loads((generate.CASES / f"{sc.id}.truth.json").read_text("utf-8"))
        run = Run(load(str(generate.CASES / f"{sc.id}.recording.json")))
        rep = localize(run, at_step=truth["atStep"], upstream=True)
        p = truth["planted"]
        hits = [
            s
            for s in rep.suspects
            if s.source == p["source"]
            and s.kind == p["kind"]
            and p["id"]
            in (
                getattr(s.detail, "toolName", None),
                getattr(s.detail, "injectionId", None),
                s.source,
            )
        ]
        assert len(hits) == 1, sc.id
