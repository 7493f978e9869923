"""The HTML report without a browser: the overview's numbers against upstream's own step graphs,
escaping, the Content-Security-Policy, and folding of long lists."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import msgspec
import pytest

from agentbisect.analyses.overview import run_overview
from agentbisect.importers import open_run
from agentbisect.render.html import aggregate_html, bisect_html
from agentbisect.render.html.page import esc
from agentbisect.results.bisect import bisect_result
from agentbisect.results.report import ContextBugReport
from tests.conftest import ROOT, UPSTREAM

HOSTILE = ROOT / "fixtures" / "hostile" / "xss-tools.recording.json"
FULL = ["react-tools", "planted-fact", "react-tools-legacy", "react-tools-lean", "composition"]


def _graph(rid: str) -> list[dict[str, object]]:
    doc = json.loads((UPSTREAM / f"{rid}.step-graph.json").read_text())
    return doc["stepGraph"]["nodes"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("rid", FULL)
def test_llm_and_tool_rows_match_upstream_step_graph(rid: str) -> None:
    o = run_overview(open_run(str(UPSTREAM / f"{rid}.recording.json")))
    nodes = _graph(rid)
    llm = [n for n in nodes if n["kind"] in ("user->llm", "tool->llm")]
    assert [(c.step, c.model) for c in o.llmCalls] == [
        (n["runtimeStageId"], n.get("llmModel", "")) for n in llm
    ]
    with_tokens = [(c.tokensIn, c.tokensOut) for c in o.llmCalls]
    assert with_tokens == [
        (n["tokens"]["in"], n["tokens"]["out"]) if "tokens" in n else (None, None)  # type: ignore[index]
        for n in llm
    ]
    assert [c.latencyMs for c in o.llmCalls] == [
        n["endOffsetMs"] - n["startOffsetMs"] if "endOffsetMs" in n else None  # type: ignore[operator]
        for n in llm
    ]
    tools = [n for n in nodes if n["kind"] == "llm->tool"]
    assert [(t.step, t.tool) for t in o.toolCalls] == [
        (n["runtimeStageId"], n["toolName"]) for n in tools
    ]
    # The timeline puts each LLM call where upstream's graph starts and ends it.
    marks = [m for m in o.timeline.marks if m.kind == "llm"]
    assert [(m.at, m.end) for m in marks] == [
        (n["startOffsetMs"], n.get("endOffsetMs")) for n in llm
    ]


def test_totals_are_the_run_row() -> None:
    run = open_run(str(UPSTREAM / "react-tools.recording.json"))
    o = run_overview(run)
    t = o.totals
    assert (t.llmCalls, t.toolCalls, t.tokensIn, t.tokensOut, t.durationMs) == (5, 4, 528, 63, 1297)
    assert sum(c.tokensIn or 0 for c in o.llmCalls) == 528
    assert [c.tools for c in o.llmCalls] == [
        ["lookup_order"],
        ["get_refund_policy"],
        ["get_customer"],
        ["issue_refund"],
        [],
    ]
    # One lane per boundary, one bar per pass: 8 lanes, 32 passes, all closed.
    assert len(o.timeline.lanes) == 8 and len(o.timeline.spans) == 32 == t.boundaries
    assert all(s.end is not None for s in o.timeline.spans)
    assert o.timeline.lanes[0].name == "Run" and o.timeline.spans[0].durationMs == 1297


def test_trigger_position() -> None:
    run = open_run(str(UPSTREAM / "react-tools.recording.json"))
    tl = run_overview(run, "call-llm#106").timeline
    (hit,) = [m for m in tl.marks if m.trigger]
    assert hit.step == "call-llm#106" and tl.triggerAt == hit.at == 771
    # A stage trigger (no LLM mark) is placed at its first event; an unknown id says so.
    assert run_overview(run, "sf-route#21").timeline.triggerAt == 247
    missing = run_overview(run, "nope#1").timeline
    assert missing.triggerAt is None and "nope#1" in missing.triggerNote


def test_legacy_recording_keeps_its_flag_and_timeline() -> None:
    o = run_overview(open_run(str(UPSTREAM / "react-tools-legacy.recording.json")))
    page = aggregate_html(o)
    assert "commit-axis-absent" in page
    assert 'id="flags" role="alert"' in page
    assert len(o.timeline.spans) == 32


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_csp_forbids_network_and_allows_only_the_page_own_code() -> None:
    page = aggregate_html(run_overview(open_run(str(UPSTREAM / "planted-fact.recording.json"))))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = dict(
        [*d.split(" ", 1), ""][:2] for d in (x.strip() for x in csp.group(1).split(";")) if d
    )
    assert policy["default-src"] == "'none'"
    for d in ("img-src", "connect-src", "font-src", "object-src", "frame-src", "form-action"):
        assert policy[d] == "'none'"
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == len(styles) == 1
    assert policy["script-src"] == f"'{_hash(scripts[0])}'"
    assert policy["style-src"] == f"'{_hash(styles[0])}'"
    # No inline handlers or style attributes, which the policy would refuse (console errors).
    assert not re.search(r"\son[a-z]+=", page) and " style=" not in page
    # The only URL in the file is the SVG namespace, which is a name, never fetched.
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}


def test_hostile_text_is_escaped_everywhere() -> None:
    report = msgspec.json.decode(
        (UPSTREAM / "planted-fact.report.causal.json").read_bytes(), type=ContextBugReport
    )
    page = bisect_html(run_overview(open_run(str(HOSTILE))), bisect_result(report))
    assert page.count("<script") == 1  # the page's own
    assert "<img" not in page and "javascript:window" in page
    assert "&lt;script&gt;window.__pwned=&#x27;script&#x27;&lt;/script&gt;" in page
    assert "<svg onload" not in page and "&lt;svg onload=" in page


def test_esc_strips_controls_and_escapes_markup() -> None:
    assert esc("a\x1b[31mred\x1b[0m\u202e<b>&\"'") == "ared&lt;b&gt;&amp;&quot;&#x27;"
    assert esc(None) == "" and esc(3) == "3"
    assert esc("line1\nline2") == "line1\nline2"


def test_long_lists_fold_with_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentbisect.render.html.page as page_mod

    monkeypatch.setattr(page_mod, "COLLAPSE_AFTER", 3)
    page = aggregate_html(run_overview(open_run(str(UPSTREAM / "react-tools.recording.json"))))
    assert "<summary>29 more boundary passes</summary>" in page
    assert "<summary>2 more LLM calls</summary>" in page
    assert "<summary>1 more tool calls</summary>" in page
