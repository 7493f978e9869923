"""Property tests: the verb-aware fold against a literal model, budgets, score ranges, stable
ordering under ties, and the JS number/text primitives."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from agentbisect.bisect.pipeline.localize import localize
from agentbisect.bisect.pipeline.slice import causal_chain
from agentbisect.bisect.pipeline.suspects import rank
from agentbisect.core.deep import MAX_DEPTH
from agentbisect.core.js import ABSENT, cap_utf16, js_number, js_stringify, to_fixed, utf16_len
from agentbisect.importers import load_bytes
from agentbisect.model.commitlog import CommitLog, deep_smart_merge
from agentbisect.model.run import Run
from agentbisect.results.report import EdgePathStep, Suspect, to_builtins
from agentbisect.schema.recording import CommitBundle as Bundle
from agentbisect.schema.recording import TraceEntry

# the loader raises the limit on first use; raise it up front so hypothesis can restore it
sys.setrecursionlimit(max(sys.getrecursionlimit(), MAX_DEPTH))

SEP = "\u001f"
KEYS = ["a", "b", f"a{SEP}x", "c"]
prims = st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.sampled_from(["p", "q"]))
values = st.recursive(
    prims,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.dictionaries(st.sampled_from(["x", "y", "1"]), kids, max_size=3),
    ),
    max_leaves=6,
)


@st.composite
def commit_logs(draw: Any) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 8))):
        trace, overwrite, updates = [], {}, {}
        for key in draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True)):
            verb = draw(st.sampled_from(["set", "delete", "append", "merge"]))
            trace.append({"path": key, "verb": verb})
            head, *rest = key.split(SEP)
            target = updates if verb == "merge" else overwrite
            if (verb != "delete" and draw(st.booleans())) or verb == "append":
                v = draw(values)
                if rest:
                    target.setdefault(head, {})
                    if isinstance(target[head], dict):
                        target[head][rest[0]] = v
                else:
                    target[head] = v
        out.append(
            {"runtimeStageId": f"s#{i}", "trace": trace, "overwrite": overwrite, "updates": updates}
        )
    return out


def model_get(obj: Any, segs: list[str]) -> Any:
    cur = obj
    for s in segs:
        if isinstance(cur, dict) and s in cur:
            cur = cur[s]
        elif isinstance(cur, list) and s.isdigit() and int(s) < len(cur):
            cur = cur[int(s)]
        else:
            return ABSENT
    return cur


def model_fold(log: list[dict[str, Any]], idx: int, key: str) -> Any:
    """The literal scan of bisect.md §6.2."""
    end = min(idx, len(log) - 1)
    segs = key.split(SEP)
    touches = [(t["verb"], b) for b in log[: end + 1] for t in b["trace"] if t["path"] == key]
    if not touches:
        return ABSENT
    start = 0
    for j, (verb, _) in enumerate(touches):
        if verb in ("set", "delete"):
            start = j
    value: Any = ABSENT
    for verb, b in touches[start:]:
        if verb == "set":
            value = (
                json.loads(json.dumps(model_get(b["overwrite"], segs)))
                if model_get(b["overwrite"], segs) is not ABSENT
                else ABSENT
            )
        elif verb == "delete":
            value = ABSENT
        elif verb == "append":
            tail = model_get(b["overwrite"], segs)
            value = value + tail if isinstance(value, list) and isinstance(tail, list) else tail
        else:
            value = deep_smart_merge(value, model_get(b["updates"], segs))
    return value


@settings(max_examples=300, deadline=None)
@given(commit_logs(), st.integers(0, 10), st.sampled_from(KEYS))
def test_fold_matches_literal_model(log: list[dict[str, Any]], idx: int, key: str) -> None:
    import msgspec

    bundles = msgspec.json.decode(json.dumps(log).encode(), type=list[Bundle])
    got = CommitLog(bundles).value_at(idx, key)
    want = model_fold(log, idx, key)
    assert js_stringify([got]) == js_stringify([want])


def test_fold_detached_and_merge_rules() -> None:
    b = [
        Bundle(
            runtimeStageId="s#0",
            trace=[TraceEntry(path="k", verb="set")],
            overwrite=__import__("msgspec").Raw(b'{"k":[1]}'),
        )
    ]
    log = CommitLog(b)
    v = log.value_at(0, "k")
    v.append(2)
    assert log.value_at(0, "k") == [1]
    assert deep_smart_merge([1, True, "1", {"a": 1}], [1, 1.0, True, {"a": 1}]) == [
        1,
        True,
        "1",
        {"a": 1},
        {"a": 1},
    ]
    assert deep_smart_merge([1], []) == []
    assert (
        js_stringify(deep_smart_merge({"b": 1}, {"2": 0, "a": {"x": 1}}))
        == '{"2":0,"b":1,"a":{"x":1}}'
    )


@st.composite
def recordings(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(2, 14))
    keys = ["k0", "k1", "k2", "systemPromptInjections", "lastToolResult"]
    log, tree_nodes = [], []
    for i in range(n):
        written = draw(st.lists(st.sampled_from(keys), max_size=2, unique=True))
        ow: dict[str, Any] = {}
        for k in written:
            if k == "systemPromptInjections":
                ow[k] = [
                    {
                        "source": draw(st.sampled_from(["fact", "base", "memory"])),
                        "sourceId": f"i{i}",
                        "rawContent": f"text {i}",
                    }
                ]
            elif k == "lastToolResult":
                ow[k] = {"toolName": f"t{i}", "result": draw(st.text(max_size=20))}
            else:
                ow[k] = draw(st.text(max_size=15))
        b: dict[str, Any] = {
            "runtimeStageId": f"s#{i}",
            "stage": f"S{i}",
            "trace": [{"path": k, "verb": "set"} for k in written],
            "overwrite": ow,
        }
        if draw(st.booleans()):
            b["untrackedSources"] = ["args"]
        log.append(b)
        reads = draw(st.lists(st.sampled_from(keys), max_size=3))
        tree_nodes.append({"runtimeStageId": f"s#{i}", "stageReads": {r: None for r in reads}})
    tree: dict[str, Any] = tree_nodes[-1]
    for node in reversed(tree_nodes[:-1]):
        node["next"] = tree
        tree = node
    llm = draw(st.lists(st.sampled_from([f"s#{i}" for i in range(n)]), max_size=4, unique=True))
    events = [
        {"type": "agentfootprint.stream.llm_start", "meta": {"runtimeStageId": x}} for x in llm
    ]
    deps = {
        f"s#{i}": {"deciderId": f"s#{draw(st.integers(0, n - 1))}"}
        for i in range(n)
        if draw(st.booleans())
    }
    return {
        "snapshot": {"commitLog": log, "executionTree": tree},
        "events": events,
        "controlDeps": deps,
    }


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recordings(), st.integers(0, 5), st.integers(1, 8), st.integers(0, 6))
def test_budgets_and_score_ranges(
    rec: dict[str, Any], max_depth: int, max_nodes: int, max_suspects: int
) -> None:
    loaded = load_bytes(json.dumps(rec).encode())
    art = Run(loaded)
    step = rec["snapshot"]["commitLog"][-1]["runtimeStageId"]
    sl = causal_chain(art.commit_log, step, art.keys_read, max_depth, max_nodes, art.control_deps)
    assert len(sl.nodes) <= max_nodes
    assert all(n.depth <= max_depth for n in sl.nodes)
    budgets = {"max_depth": max_depth, "max_nodes": max_nodes, "max_suspects": max_suspects}
    report = localize(art, at_step=step, upstream=True, **budgets)
    assert report.sliceStats.nodes <= max_nodes
    assert len(report.suspects) <= max_suspects
    for s in report.suspects:
        assert 0 <= s.score <= 1 and 0 <= s.structuralScore <= 1
        if s.semanticScore is not UNSET:
            assert 0 <= s.semanticScore <= 1
        assert all(0 <= h.weight <= 1 for h in s.edgePath)
    scores = [s.score for s in report.suspects]
    assert scores == sorted(scores, reverse=True)
    # evidence-first: the same suspects (before the cut), content-backed ones first by evidence
    ours = localize(art, at_step=step, embedder="mock", **{**budgets, "max_suspects": 99})
    full = localize(art, at_step=step, upstream=True, **{**budgets, "max_suspects": 99})

    def ident(s: Suspect) -> str:
        return repr((s.source, s.kind, to_builtins(s.detail) if s.detail is not UNSET else None))

    assert sorted(map(ident, full.suspects)) == sorted(map(ident, ours.suspects))
    backed = [s.evidence is not UNSET for s in ours.suspects]
    assert backed == sorted(backed, reverse=True)
    ev = [s.evidence.score for s in ours.suspects if s.evidence is not UNSET]
    assert ev == sorted(ev, reverse=True) and all(0 <= x <= 1 for x in ev)
    cut = localize(art, at_step=step, embedder="mock", **budgets)
    assert [s.source for s in cut.suspects] == [s.source for s in ours.suspects][:max_suspects]


def _suspect(i: int, score: float) -> Suspect:
    return Suspect(
        source=f"n#{i}",
        kind="stage",
        score=score,
        structuralScore=score,
        hasContentEvidence=False,
        edgePath=[EdgePathStep(from_="r#0", to=f"n#{i}", kind="data", weight=1)],
    )


@given(st.lists(st.sampled_from([0.2, 0.5, 0.5, 1.0]), max_size=20), st.integers(0, 25))
def test_rank_is_stable_under_ties_and_cuts(scores: list[float], cut: int) -> None:
    suspects = [_suspect(i, s) for i, s in enumerate(scores)]
    ranked = rank(suspects, cut)
    expected = sorted(range(len(scores)), key=lambda i: -scores[i])[:cut]
    assert [s.source for s in ranked] == [f"n#{i}" for i in expected]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_round_trips(x: float) -> None:
    s = js_number(x)
    assert float(s) == x or (x == 0 and s == "0")
    assert "e" not in s or abs(x) < 1e-6 or abs(x) >= 1e21
    assert not s.endswith(".0")


def test_js_number_cases() -> None:
    assert [
        js_number(v)
        for v in (1.0, 3, 1e-7, 1.5e21, 1e21, 0.1, -0.0, 123456789012.5, 1.1102230246251565e-16)
    ] == [
        "1",
        "3",
        "1e-7",
        "1.5e+21",
        "1e+21",
        "0.1",
        "0",
        "123456789012.5",
        "1.1102230246251565e-16",
    ]
    assert js_number(math.nan) == "null"


def test_to_fixed_rounds_half_up_on_exact_binary() -> None:
    assert to_fixed(0.0625, 3) == "0.063"
    assert to_fixed(0.9999999999999998, 3) == "1.000"
    assert to_fixed(-0.0, 3) == "0.000"
    assert to_fixed(1.0005, 3) == "1.000"  # 1.0005 is below the half in binary
    assert to_fixed(0.25, 2) == "0.25"


@given(st.text(max_size=30), st.integers(0, 40))
def test_cap_counts_utf16_units(s: str, n: int) -> None:
    capped = cap_utf16(s, n)
    assert utf16_len(capped) == min(n, utf16_len(s))


def test_stringify_escapes_like_js() -> None:
    assert js_stringify({"a": 'é\u2028/\x7f\x01\n"\\'}) == '{"a":"é\u2028/\x7f\\u0001\\n\\"\\\\"}'
    assert js_stringify(["\ud800", "\ud83d\ude00"]) == '["\\ud800","\ud83d\ude00"]'
    assert js_stringify({"b": 1, "10": 2, "2": 3, "01": 4}) == '{"2":3,"10":2,"b":1,"01":4}'
