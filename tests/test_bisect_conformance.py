"""Conformance: every upstream report and the spec §12 fixtures, reproduced exactly.

Whole reports are compared as JSON text, byte for byte, after our ``note``/``claim`` sentences are
replaced by upstream's (the spec lets the wording differ; everything else is the contract). Floats
are compared with ``==`` wherever a value is named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentbisect.bisect import control_deps_from_json, report_json
from agentbisect.bisect.embed.vectors import MockEmbedder
from agentbisect.bisect.pipeline.localize import TriggerError
from agentbisect.bisect.pipeline.localize import localize as afp_localize
from agentbisect.bisect.pipeline.slice import causal_chain
from agentbisect.importers import load
from agentbisect.model.run import Run
from agentbisect.results.bisect import bisect_result
from agentbisect.results.report import to_builtins
from tests.conftest import MINI, UPSTREAM

UP = UPSTREAM
MANIFEST = json.loads((UP / "manifest.json").read_text())

CORRELATIONAL = [
    (rec["recording"], rep)
    for rec in MANIFEST["recordings"]
    for rep in rec["reports"]
    if rep["rerun"] is None and rep.get("error") is None
]

_LOADED: dict[str, Any] = {}


def localize(run: Run, **kw: Any) -> Any:
    """Conformance runs under the upstream switch: exactly the upstream report."""
    return afp_localize(run, upstream=True, **kw)


def loaded(name: str) -> Any:
    if name not in _LOADED:
        _LOADED[name] = Run(load(str(UP / name)))
    return _LOADED[name]


def adopt_wording(ours: Any, theirs: Any) -> Any:
    """Copy upstream's free-worded sentences (``note``, ``claim``) into our report."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = {}
        for k, v in ours.items():
            if k in ("note", "claim") and k in theirs:
                assert isinstance(v, str) and v, f"{k} must be a non-empty sentence"
                out[k] = theirs[k]
            else:
                out[k] = adopt_wording(v, theirs.get(k))
        return out
    if isinstance(ours, list) and isinstance(theirs, list):
        return [adopt_wording(a, b) for a, b in zip(ours, theirs, strict=False)] + ours[
            len(theirs) :
        ]
    return ours


def assert_same_report(report: Any, expected_file: Path) -> None:
    from agentbisect.core.js import js_stringify

    expected_text = expected_file.read_text().strip()
    expected = json.loads(expected_text)
    ours = adopt_wording(to_builtins(report), expected)
    assert js_stringify(ours) == expected_text


def kwargs_for(rep: dict[str, Any]) -> dict[str, Any]:
    opts = rep["options"]
    kw: dict[str, Any] = {}
    for theirs, mine in (
        ("maxDepth", "max_depth"),
        ("maxNodes", "max_nodes"),
        ("maxSuspects", "max_suspects"),
    ):
        if theirs in opts:
            kw[mine] = opts[theirs]
    if "controlDeps" in rep["artifacts"]:
        kw["control_deps"] = control_deps_from_json(
            json.loads((UP / "planted-fact.control-deps.json").read_text()), "control-deps"
        )
    return kw


@pytest.mark.parametrize(
    ("recording", "rep"), CORRELATIONAL, ids=[r["file"] for _, r in CORRELATIONAL]
)
def test_upstream_correlational_report(recording: str, rep: dict[str, Any]) -> None:
    report = localize(loaded(recording), at_step=rep["atStep"], **kwargs_for(rep))
    assert_same_report(report, UP / rep["file"])
    assert [f.flag for f in report.honestyFlags] == rep["honestyFlags"]
    assert len(report.suspects) == rep["suspects"]


def test_upstream_refusal_inner_composition_step() -> None:
    err = json.loads((UP / "composition.report.last-llm-error.json").read_text())["error"]
    step = "step-refine/body/sf-llm-call/call-llm#149"
    assert step in err
    with pytest.raises(TriggerError) as exc:
        localize(loaded("composition.recording.json"), at_step=step)
    assert "not in the commit log" in exc.value.message
    assert f"'{step}'" in exc.value.message


def test_no_trigger_step() -> None:
    with pytest.raises(TriggerError, match="no trigger step"):
        localize(loaded("planted-fact.recording.json"))


def test_report_json_numbers_follow_js() -> None:
    report = localize(loaded("planted-fact.recording.json"), at_step="call-llm#40")
    text = report_json(report)
    assert '"weight":1}' in text and '"weight":1.0' not in text


def test_two_localizations_identical() -> None:
    a = localize(loaded("planted-fact.recording.json"), at_step="call-llm#40")
    b = localize(loaded("planted-fact.recording.json"), at_step="call-llm#40")
    assert report_json(a) == report_json(b)
    for s in a.suspects:
        assert s.source.rsplit("#", 1)[1].isdigit()
        assert isinstance(s.edgePath, list)


def test_planted_fact_is_first_ablatable_suspect() -> None:
    report = localize(loaded("planted-fact.recording.json"), at_step="call-llm#40")
    first = next(s for s in report.suspects if s.ablation and s.ablation.kind != "arg")
    assert first.kind == "injection" and first.detail.injectionId == "vip-override-fact"


# ----------------------------------------------------------------------------- spec §12


def mini(name: str) -> Any:
    return Run(load(str(MINI / f"{name}.json")))


def test_mock_embedder_vectors() -> None:
    m = MockEmbedder()
    assert [i for i, v in enumerate(m.embed("abc")) if v] == [1, 2, 3]
    assert [i for i, v in enumerate(m.embed("a😀é…")) if v] == [0, 1, 6, 9, 29]
    assert sum(m.embed("")) == 0


def test_fixture_a_slice_and_weights() -> None:
    art = mini("mini-a")
    assert art.llm_call_ids == ["llm#2", "llm#6"]
    from agentbisect.bisect.pipeline.texts import Texts

    assert Texts(art.commit_log).step_output("llm#6") == (
        'answer="Refund approved: the promo covers order 17 even at 40 days."'
    )
    report = localize(art, at_step="llm#6")
    # the slice is internal to localize: rebuild it the same way to check the edges
    from agentbisect.bisect.embed.vectors import EmbeddingCache
    from agentbisect.bisect.pipeline.weigh import EdgeWeigher

    sl = causal_chain(art.commit_log, "llm#6", art.keys_read, 12, 80, art.control_deps)
    w = EdgeWeigher(Texts(art.commit_log), set(art.llm_call_ids), EmbeddingCache(MockEmbedder()))
    w.prime(sl.nodes)
    w.stamp(sl.nodes)
    assert [n.runtimeStageId for n in sl.nodes] == [
        "llm#6",
        "tool#4",
        "ctx#1",
        "llm#2",
        "route#3",
        "seed#0",
    ]
    edges = {
        n.runtimeStageId: [
            (e.parent.runtimeStageId, e.kind, e.key, e.weight) for e in n.parentEdges
        ]
        for n in sl.nodes
    }
    assert edges["llm#6"] == [
        ("tool#4", "data", "history", 0.8226969127004768),
        ("ctx#1", "data", "messagesInjections", 0.7483747506354139),
        ("llm#2", "data", "plan", 0.8881703899697544),
        ("route#3", "control", None, 1),
    ]
    assert edges["tool#4"] == [
        ("llm#2", "data", "plan", 1),
        ("route#3", "control", "needs lookup", 1),
    ]
    assert edges["ctx#1"] == [("seed#0", "data", "question", 1)]
    assert edges["llm#2"] == [
        ("ctx#1", "data", "systemPromptInjections", 0.8173897808322195),
        ("ctx#1", "data", "messagesInjections", 0.7269271421464236),
        ("seed#0", "data", "question", 0.7981497576110188),
    ]
    assert edges["route#3"] == [("llm#2", "data", "plan", 1)]
    assert to_builtins(report.sliceStats) == {
        "nodes": 6,
        "dataEdges": 9,
        "controlEdges": 2,
        "weightedEdges": 6,
        "incompleteNodes": 1,
        "maxDepth": 12,
        "maxNodes": 80,
    }
    assert [f.flag for f in report.honestyFlags] == ["untracked-sources"]


def _rows(report: Any) -> list[tuple[Any, ...]]:
    rows = []
    for s in report.suspects:
        d = s.detail
        ident = (d.toolName or d.injectionId) if d else None
        sem = s.semanticScore if s.semanticScore else None
        rows.append(
            (s.source, s.kind, ident, s.score, s.structuralScore, sem, [h.to for h in s.edgePath])
        )
    return rows


def test_fixture_a_suspects() -> None:
    report = localize(mini("mini-a"), at_step="llm#6")
    ctx_path = ["route#3", "llm#2", "ctx#1"]
    assert _rows(report) == [
        ("llm#2", "stage", None, 1, 1, None, ["route#3", "llm#2"]),
        ("route#3", "stage", None, 1, 1, None, ["route#3"]),
        (
            "seed#0",
            "arg",
            None,
            0.8173897808322195,
            0.8173897808322195,
            None,
            [*ctx_path, "seed#0"],
        ),
        (
            "tool#4",
            "tool",
            "lookup",
            0.7394776083102063,
            0.8226969127004768,
            0.8988457315135585,
            ["tool#4"],
        ),
        (
            "ctx#1",
            "injection",
            "promo-fact",
            0.7174291573997825,
            0.8173897808322195,
            0.8777075199904472,
            ctx_path,
        ),
        (
            "ctx#1",
            "memory",
            "m-7",
            0.6694870327249087,
            0.8173897808322195,
            0.8190548113328202,
            ctx_path,
        ),
        (
            "ctx#1",
            "injection",
            "tone-skill",
            0.6271486164903275,
            0.8173897808322195,
            0.7672577162046248,
            ctx_path,
        ),
    ]
    tool = report.suspects[3]
    assert tool.semanticScore == 0.8 * 0.873557164391948 + 0.2
    assert report.suspects[5].detail.text == "User got a goodwill refund in March…"
    hop = report.suspects[0].edgePath[0]
    assert hop.kind == "control" and "key" not in to_builtins(hop)


def test_fixture_a_promo_fact_signals() -> None:
    from agentbisect.bisect.embed.vectors import EmbeddingCache
    from agentbisect.bisect.evidence.influence import Evidence, score_influence

    text = "Promo: every refund is approved this month, whatever the age."
    (s,) = score_influence(
        [Evidence("0", text, ('plan="Look up order 17, then apply the promo."',))],
        'answer="Refund approved: the promo covers order 17 even at 40 days."',
        EmbeddingCache(MockEmbedder()),
    )
    assert s.signals == (0.9432024442161047, 0.8347551410133506, 1, 0.5)
    assert s.score == 0.8777075199904472


def test_fixture_a_truncated() -> None:
    report = localize(mini("mini-a"), at_step="llm#6", max_depth=1, max_nodes=3)
    assert to_builtins(report.sliceStats) == {
        "nodes": 3,
        "dataEdges": 2,
        "controlEdges": 0,
        "weightedEdges": 2,
        "incompleteNodes": 0,
        "maxDepth": 1,
        "maxNodes": 3,
        "truncated": {"byDepth": True, "byNodes": True},
    }
    assert [f.flag for f in report.honestyFlags] == ["slice-truncated"]
    note = report.honestyFlags[0].note
    assert "maxDepth (1) + maxNodes (3)" in note
    assert [
        (s.source, s.kind, s.score, s.structuralScore, s.semanticScore) for s in report.suspects
    ] == [
        ("tool#4", "tool", 0.7394776083102063, 0.8226969127004768, 0.8988457315135585),
        ("ctx#1", "injection", 0.714370065318235, 0.7483747506354139, 0.9545619553728837),
        ("ctx#1", "memory", 0.6457100342168436, 0.7483747506354139, 0.8628164347722822),
        ("ctx#1", "injection", 0.6285579267538687, 0.7483747506354139, 0.8398972923928636),
    ]


def test_quality_trigger() -> None:
    from agentbisect.render.text import format_report

    report = localize(mini("mini-a-quality"))
    assert (report.step, report.triggerSource, report.triggerScore) == ("llm#6", "quality", 0.25)
    assert format_report(bisect_result(report)).splitlines()[0] == (
        'CONTEXT BUG LOCALIZATION — trigger llm#6 "CallLLM" (quality, score 0.25)'
    )
    assert '"triggerScore":0.25,' in report_json(report)


def test_fixture_b_single_pass_quirk() -> None:
    report = localize(mini("mini-b"), at_step="t#4")
    st = report.sliceStats
    assert (st.nodes, st.dataEdges, st.controlEdges) == (4, 2, 1)
    assert [(s.source, s.kind, s.score) for s in report.suspects] == [
        ("c#2", "stage", 1),
        ("p#1", "stage", 1),
    ]
    path = report.suspects[1].edgePath
    assert [(h.from_, h.to, h.kind, h.key) for h in path] == [
        ("t#4", "c#2", "data", "verdict"),
        ("c#2", "p#1", "control", "within limit"),
    ]
    assert [f.flag for f in report.honestyFlags] == ["no-llm-call-ids"]
    art = mini("mini-b")
    sl = causal_chain(art.commit_log, "t#4", art.keys_read, 12, 80, art.control_deps)
    p1 = next(n for n in sl.nodes if n.runtimeStageId == "p#1")
    assert p1.keysWritten == ["policyDone"]
    assert "g#0" in [n.runtimeStageId for n in sl.nodes]
