"""The answer at a glance (issue 25): what is being explained comes first, and the bisect table
says what it shows in as few words as it can."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES, cli

TRACE = FIXTURES / "otel" / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"


def _table(width: int, *args: str) -> str:
    env = {"COLUMNS": str(width), "LINES": "40"}
    res = cli("bisect", *args, "--at-llm", "-1", "--no-cache", env=env)
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def test_the_stage_column_does_not_repeat_a_name_its_id_spells() -> None:
    # It read "execute_tool:get_refund_policy#5 execute_tool get_refund_policy".
    shown = _table(120, str(TRACE), "--details")
    row = next(line for line in shown.splitlines() if "execute_tool:get_refund_policy#5" in line)
    assert "execute_tool get_refund_policy" not in row
    assert "retrieval northwind-kb" not in shown  # (the retrieval's id spells it too)
    assert "chat gpt-4o-mini" in shown  # a name the id does not spell stays


def test_an_empty_result_is_not_all_backed_by_their_own_text(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text('[{"role": "assistant", "content": "hi there"}]')
    shown = _table(100, str(one))
    title = next(line for line in shown.splitlines() if "Suspects (0)" in line)
    assert title.strip() == "Suspects (0)"


RECORDING = FIXTURES / "upstream" / "react-tools.recording.json"
QUESTION = "I bought Trailblazer hiking boots (order NW-4417)"
ANSWER = "Yes. Footwear can be returned for a full refund within 90 days of delivery"


def test_json_names_the_answer_being_explained_and_its_question() -> None:
    for path, step, index, question, answer in (
        (TRACE, "chat#6", 2, QUESTION, ANSWER),
        (RECORDING, "call-llm#106", 4, "Can I get a refund for order K-2207?", "Refund APPROVED"),
    ):
        res = cli("bisect", str(path), "--at-llm", "-1", "--json", "--no-cache")
        assert res.exit_code == 0, res.stderr
        t = json.loads(res.stdout)["trigger"]
        assert (t["step"], t["llmIndex"]) == (step, index)
        assert t["question"].startswith(question) and t["output"].startswith(answer)


def test_the_upstream_report_has_no_trigger_object() -> None:
    res = cli("bisect", str(RECORDING), "--at-llm", "-1", "--json", "--upstream")
    assert res.exit_code == 0 and "trigger" not in json.loads(res.stdout)


def test_every_format_shows_the_answer_first(tmp_path: Path) -> None:
    table = _table(80, str(TRACE)).splitlines()
    at = next(i for i, line in enumerate(table) if line.startswith("question: "))
    assert table[at].startswith("question: I bought Trailblazer") and at <= 3  # after the verdict
    assert any(
        line.startswith("answer (chat#6, LLM call 2): Yes.") for line in table[at + 1 : at + 3]
    )
    assert at < next(i for i, line in enumerate(table) if line.startswith("Suspects ("))
    text = cli("bisect", str(TRACE), "--at-llm", "-1", "--format", "text", "--no-cache")
    lines = str(text.stdout).splitlines()
    assert lines[1].startswith("question: ") and lines[2].startswith("answer (chat#6, LLM call 2)")
    out = tmp_path / "r.html"
    html = cli("bisect", str(TRACE), "--at-llm", "-1", "--format", "html", "-o", str(out))
    assert html.exit_code == 0, html.stderr
    page = out.read_text()
    assert page.index('id="answer"') < page.index("Suspects") and ANSWER in page


# ------------------------------------------------------------------------------ one screen
PLANTED = FIXTURES / "upstream" / "planted-fact.recording.json"


def test_the_default_table_fits_one_80_by_40_screen() -> None:
    for path in (TRACE, PLANTED):
        for width in (80, 120):
            shown = _table(width, str(path)).splitlines()
            assert len(shown) <= 40 and all(len(line) <= width for line in shown), path
            text = "\n".join(shown)
            assert shown[0].startswith("CORRELATIONAL · ")
            assert "question: " in text and "answer (" in text
            assert sum(1 for line in shown if line.startswith("⚠ honesty: ")) == 1
            # moved under --details: the panel, the path scores, the evidence paths, flag texts
            for gone in ("slice:", "Evidence paths", "⚠ [", "path ", "influence-weighted"):
                assert gone not in text, (path, gone)
    shown = _table(80, str(TRACE))
    # the planted sentence, deep in a tool result, whole on the line under its row
    rows = shown.splitlines()
    # (found by name: the ranking is another issue's to change)
    top = next(i for i, line in enumerate(rows) if "tool result get_refund_policy" in line)
    assert "returned for a full refund within 90 days of delivery" in rows[top + 1]
    assert rows[top + 1].startswith("     ")


def test_details_has_what_the_screen_leaves_out() -> None:
    shown = _table(120, str(TRACE), "--details")
    for kept in ("slice:", "Evidence paths", "⚠ [untracked-sources]", "Where each suspect says it"):
        assert kept in shown


def test_a_trace_is_told_in_its_own_words() -> None:
    import re

    for width in (80, 120):
        shown = _table(width, str(TRACE), "--embedder", "mock")  # (words, not scores)
        assert not re.search(r"\b(injection|stage|arg)s?\b", shown, re.I), shown
        for words in (
            "tool result get_refund_policy (call_pLvZkQ…)",
            "document kb-refund-processing",
            "system prompt (part 3)",
            "LLM output (chat#4)",
            "user message (message 2)",
        ):
            assert words in shown, (width, words)
    head = next(x for x in shown.splitlines() if x.startswith(" #  "))  # (at 120)
    assert head.split() == ["#", "source", "step", "evidence"]
    doc = json.loads(str(cli("bisect", str(TRACE), "--json", "--embedder", "mock").stdout))
    assert [s["kind"] for s in doc["suspects"]][:2] == ["tool", "injection"]  # upstream's kind
    # a recording keeps the library's own words
    assert "injection 'vip-override-fact'" in _table(80, str(PLANTED), "--embedder", "mock")


# ------------------------------------------------------------------------------ highlights
def test_each_suspect_says_where_it_says_the_answer() -> None:
    doc = json.loads(str(cli("bisect", str(TRACE), "--json", "--no-cache").stdout))
    for s in doc["suspects"]:
        ev = s["evidence"]
        text, spans = ev["text"], ev["highlights"]
        assert all(0 <= a < b <= len(text) for a, b in spans)
        if "text" in s.get("detail", {}):
            assert s["detail"]["text"].startswith(text)  # the same offsets index detail.text
        assert (ev["bestHighlight"] is None) == (not spans)
    top = next(s for s in doc["suspects"] if s["source"].startswith("execute_tool:get_refund"))
    top = top["evidence"]
    best = top["highlights"][top["bestHighlight"]]
    assert top["text"][best[0] : best[1]] == "returned for a full refund within 90 days of delivery"
    up = cli("bisect", str(TRACE), "--json", "--upstream", "--at-llm", "-1").stdout
    up = json.loads(str(up))
    assert "confidence" not in up and all("evidence" not in s for s in up["suspects"])


def test_the_html_report_marks_the_highlights(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    res = cli("bisect", str(TRACE), "--format", "html", "-o", str(out), "--no-cache")
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    best = '<mark class="best">returned for a full refund within 90 days of delivery</mark>'
    assert best in page and "<mark>footwear</mark>" in page
    assert page.index('id="answer"') < page.index('id="suspects"') < page.index('id="timeline"')
    assert "<details" in page and "OpenTelemetry trace, 3 LLM calls" in page
    assert "shape recording" not in page


# ------------------------------------------------------------------------------ confidence
def test_the_verdict_is_confident_only_where_the_corpus_says_so() -> None:
    from agentbisect.bisect.confidence import TARGET, fit

    f = fit()  # (refitted when the ranking changes: the checks hold for any fit)
    assert f.confidentAbove is None or (f.cvPrecision is not None and f.cvPrecision >= TARGET)
    for path in (PLANTED, TRACE):
        doc = json.loads(str(cli("bisect", str(path), "--json", "--no-cache").stdout))
        c, n = doc["confidence"], len(doc["suspects"])
        scores = [s["evidence"]["score"] for s in doc["suspects"] if "evidence" in s]
        assert c["margin"] == scores[0] - scores[1]  # from the report's own evidence scores
        assert c["confident"] == (f.confidentAbove is not None and c["margin"] >= f.confidentAbove)
        assert c["shortlist"] == (1 if c["confident"] else min(f.shortlist, n))
        pct = f"{100 * c['probability']:.0f} %"
        said = " ".join(_table(80, str(path)).split())
        if c["confident"]:
            assert said.startswith(f"CORRELATIONAL · confident ({pct}) · top suspect ")
        else:
            assert said.startswith(f"CORRELATIONAL · not confident ({pct}): check #1–#")
    # on the current fit: the planted fact is a confident call, the OpenTelemetry trace is not
    sure = json.loads(str(cli("bisect", str(PLANTED), "--json", "--no-cache").stdout))
    assert sure["confidence"]["probability"] > 0.9
    # calibrated on plain scores: a contrastive report makes no claim
    contrast = cli("bisect", str(PLANTED), "--json", "--no-cache", "--expected", "Refund denied.")
    assert "confidence" not in json.loads(str(contrast.stdout))


# ------------------------------------------------------------------------------ the pager
def test_a_long_report_on_a_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    from tests.test_events_view import on_a_pty

    out = tmp_path / "paged.txt"
    args = ["bisect", str(TRACE), "--embedder", "mock"]
    code, screen, _ = on_a_pty(args, {"PAGER": f"cat > {out}"}, rows=20)
    assert code == 0 and "Suspects (12)" in out.read_text() and "Suspects" not in screen
    out.unlink()
    code, screen, _ = on_a_pty([*args, "--no-pager"], {"PAGER": f"cat > {out}"}, rows=20)
    assert code == 0 and not out.exists() and "Suspects (12)" in screen
    code, screen, _ = on_a_pty(
        ["events", str(TRACE), "--no-pager"], {"PAGER": f"cat > {out}"}, rows=5
    )
    assert code == 0 and not out.exists() and "llm.start" in screen


def test_warnings_on_a_terminal_break_between_words() -> None:
    from agentbisect.render.notes import wrapped

    line = "afp: warning: replay could not remove execute_tool:get_refund_policy#5 " * 3
    for width in (40, 80):
        out = wrapped(line.strip(), width).splitlines()
        assert " ".join(x.strip() for x in out) == " ".join(line.split())  # no word cut
        assert all(len(x) <= width for x in out)
        assert all(x.startswith("  ") for x in out[1:])
