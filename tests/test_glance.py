"""The answer at a glance (issue 25): what is being explained comes first, and the bisect table
says what it shows in as few words as it can."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES, cli

TRACE = FIXTURES / "otel" / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"


def _table(width: int, *args: str) -> str:
    res = cli("bisect", *args, "--at-llm", "-1", "--no-cache", env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def test_the_stage_column_does_not_repeat_a_name_its_id_spells() -> None:
    # It read "execute_tool:get_refund_policy#5 execute_tool get_refund_policy".
    shown = _table(120, str(TRACE))
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
    assert table[2].startswith("question: I bought Trailblazer")  # after the two-line headline
    assert any(line.startswith("answer (chat#6, LLM call 2): Yes.") for line in table[3:5])
    text = cli("bisect", str(TRACE), "--at-llm", "-1", "--format", "text", "--no-cache")
    lines = str(text.stdout).splitlines()
    assert lines[1].startswith("question: ") and lines[2].startswith("answer (chat#6, LLM call 2)")
    out = tmp_path / "r.html"
    html = cli("bisect", str(TRACE), "--at-llm", "-1", "--format", "html", "-o", str(out))
    assert html.exit_code == 0, html.stderr
    page = out.read_text()
    assert page.index('id="answer"') < page.index("Suspects") and ANSWER in page
