"""The bisect table says what it shows in as few words as it can (issue 25's small defects)."""

from __future__ import annotations

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
