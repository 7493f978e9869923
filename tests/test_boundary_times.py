"""A boundary (the run, an agent or chain span) whose own start or end time is unknown: its
rollup has ``durationMs: null`` (unknown) in ``afp aggregate --json`` and "unknown" in the
table — not a number made from the stand-in 0, and not "in flight" (it did end)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET
from typer.testing import CliRunner

from agentbisect.cli.typer_app import app
from agentbisect.model.boundary.rollup import BoundaryAggregate, Tokens, aggregate_run
from agentbisect.render.html.run import _rollup_cells
from agentbisect.schema.events import RunEntry, RunExit
from tests.conftest import PLANTED, afp_proc
from tests.otel_build import raw_span

ROOT_ID, AGENT, CHAT, ROOT2 = (
    "b7ad6b7169203331",
    "00f067aa0ba90210",
    "00f067aa0ba90211",
    "b7ad6b7169203332",
)
S = 1_700_000_000_000_000_000  # ns
SEC = 1_000_000_000


def _span(sid: str, parent: str, op: str, start: Any, end: Any) -> dict[str, Any]:
    attrs = {"gen_ai.operation.name": op, "gen_ai.agent.name": "inner", "gen_ai.request.model": "m"}
    return raw_span(sid, parent, f"{op} x", 1, attrs, start, end)


def _trace(root_end: Any = str(S + 5 * SEC), agent_start: Any = str(S + SEC)) -> bytes:
    spans = [
        _span(ROOT_ID, "", "invoke_agent", str(S), root_end),
        _span(AGENT, ROOT_ID, "invoke_agent", agent_start, str(S + 4 * SEC)),
        _span(CHAT, AGENT, "chat", str(S + 2 * SEC), str(S + 3 * SEC)),
    ]
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    return json.dumps(doc).encode()


def _rollups(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["runtimeStageId"]: r for r in out["aggregates"]}


def test_good_times_give_real_durations() -> None:
    res = CliRunner().invoke(app, ["aggregate", "-", "--json"], input=_trace())
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["run"]["durationMs"] == 5000
    assert _rollups(out)["invoke_agent:inner#1"]["durationMs"] == 3000


def test_unknown_boundary_times_real_process(tmp_path: Path) -> None:
    f = tmp_path / "t.otlp.json"
    f.write_bytes(_trace(root_end="abc", agent_start=None))
    proc = afp_proc("aggregate", str(f), "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    run = out["run"]
    # (was 1700000005000 - … from the stand-in 0: a negative or epoch-sized number)
    assert run["durationMs"] is None and "endedAtMs" not in run
    assert run["startedAtMs"] == S // 1_000_000
    agent = _rollups(out)["invoke_agent:inner#1"]
    assert agent["durationMs"] is None and "startedAtMs" not in agent
    assert agent["endedAtMs"] == (S + 4 * SEC) // 1_000_000
    assert agent["llmCalls"] == 1  # the rest of the rollup is kept
    assert "malformed-span-time" in {f["flag"] for f in out["honestyFlags"]}
    table = afp_proc("aggregate", str(f), env={"COLUMNS": "160"})
    assert table.returncode == 0 and "Traceback" not in table.stderr
    rows = [ln for ln in table.stdout.splitlines() if "Run" in ln or "inner" in ln]
    assert len(rows) >= 2 and all("unknown" in ln for ln in rows[:2]), table.stdout
    assert "in flight" not in table.stdout


def test_unknown_root_time_among_several_roots_clirunner(tmp_path: Path) -> None:
    # Two roots: the synthesized run spans them; one unknown end makes the run's end unknown.
    spans = [
        _span(ROOT_ID, "", "invoke_agent", str(S), "not a time"),
        _span(ROOT2, "", "chat", str(S + SEC), str(S + 2 * SEC)),
    ]
    f = tmp_path / "t.otlp.json"
    f.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    runner = CliRunner()
    res = runner.invoke(app, ["aggregate", str(f), "--json"])
    assert res.exit_code == 0 and res.exception is None, res.output
    assert json.loads(res.stdout)["run"]["durationMs"] is None  # (was 2000: a guess)
    table = runner.invoke(app, ["aggregate", str(f)])
    assert table.exit_code == 0 and table.exception is None
    run_row = next(ln for ln in table.stdout.splitlines() if "Run" in ln)
    assert "unknown" in run_row


@pytest.mark.parametrize(
    ("entry_ts", "exit_ts", "want"),
    [
        (10, 25, 15),
        (None, 25, None),  # exited, start unknown: null
        (10, None, None),  # exited, end unknown: null
    ],
)
def test_run_row_duration(entry_ts: Any, exit_ts: Any, want: Any) -> None:
    entry = RunEntry() if entry_ts is None else RunEntry(ts=entry_ts)
    exit_ = RunExit() if exit_ts is None else RunExit(ts=exit_ts)
    assert aggregate_run([entry, exit_]).durationMs == want
    # no exit at all: still in flight (absent), not unknown
    assert aggregate_run([entry]).durationMs is UNSET


def test_html_rollup_cell_says_unknown_not_in_flight() -> None:
    agg = BoundaryAggregate(
        runtimeStageId="a#1",
        subflowId="a",
        subflowPath=["__root__", "a#1"],
        label="a",
        tokens=Tokens(),
        llmCalls=0,
        toolCalls=0,
        iterations=0,
        durationMs=None,
    )
    assert _rollup_cells(agg).endswith('<td class="n">unknown</td>')
    agg.durationMs = UNSET
    assert _rollup_cells(agg).endswith('<td class="n">in flight</td>')


def test_event_order_timeline_bars_say_where_they_span_not_an_empty_duration() -> None:
    # an unknown agent start puts the timeline on the event-order axis, where a pass has no
    # duration: its hover text read "Run · __root__#0 ·  · from #0", an empty field
    res = CliRunner().invoke(
        app, ["aggregate", "-", "--format", "html"], input=_trace(agent_start=None)
    )
    assert res.exit_code == 0, res.output
    assert "x: event order (times missing)" in res.stdout
    assert "<title>Run · __root__#0 · from #0 to #5</title>" in res.stdout
    assert "<title>inner · invoke_agent:inner#1 · from #1 to #4</title>" in res.stdout
    assert "·  ·" not in res.stdout


def test_html_header_says_a_trace_commit_axis_is_synthesized() -> None:
    # "commit axis present" beside the flag saying the trace has no commits of its own misled;
    # a recording's own axis stays "present"
    res = CliRunner().invoke(app, ["aggregate", "-", "--format", "html"], input=_trace())
    assert res.exit_code == 0, res.output
    assert "commit axis present (synthesized from span order)" in res.stdout
    assert "synthesized-commit-axis" in res.stdout
    own = CliRunner().invoke(app, ["aggregate", str(PLANTED), "--format", "html"])
    assert own.exit_code == 0, own.output
    assert "commit axis present ·" in own.stdout and "synthesized from" not in own.stdout


def test_html_duration_tile_says_unknown_like_the_table() -> None:
    # the table's Run row said "unknown", the page's duration tile "—" (the overview folded an
    # unknown duration into "no exit recorded")
    tile = '<div class="tot"><b>{}</b><span>duration</span></div>'
    for fmt in ("html", "table"):
        res = CliRunner().invoke(
            app,
            ["aggregate", "-", "--format", fmt],
            input=_trace(root_end="abc"),
            env={"COLUMNS": "120"},
        )
        assert res.exit_code == 0, res.output
        if fmt == "html":
            assert tile.format("unknown") in res.stdout and tile.format("—") not in res.stdout
        else:
            run_row = next(ln for ln in res.stdout.splitlines() if ln.startswith("│ Run"))
            assert run_row.rstrip(" │").endswith("unknown")
    good = CliRunner().invoke(app, ["aggregate", "-", "--format", "html"], input=_trace())
    assert tile.format("5,000 ms") in good.stdout
    # no run exit at all (a recording cut short) stays "—": not known to be unknown
    cut = CliRunner().invoke(app, ["aggregate", str(PLANTED), "--format", "html"])
    assert cut.exit_code == 0 and "<span>duration</span>" in cut.stdout
