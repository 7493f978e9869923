"""`afp events` and `afp aggregate` end to end: CliRunner, real subprocesses, errors, pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import ROOT, afp_proc
from tests.helpers import expected, ordered, recording

runner = CliRunner()


afp = afp_proc


def test_events_jsonl_in_a_pipe_is_the_recorded_stream() -> None:
    res = runner.invoke(app, ["events", recording("react-tools")])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line, object_pairs_hook=list) for line in res.stdout.splitlines()]
    assert lines == ordered(expected("react-tools", "boundary-events")["boundaryEvents"])


def test_events_filters() -> None:
    res = runner.invoke(app, ["events", recording("react-tools"), "--type", "llm.*", "--json"])
    types = [json.loads(x)["type"] for x in res.stdout.splitlines()]
    assert types == ["llm.start", "llm.end"] * 5
    res = runner.invoke(
        app, ["events", recording("react-tools"), "--stage", "tool-calls#22", "--json"]
    )
    assert [json.loads(x)["type"] for x in res.stdout.splitlines()] == [
        "tool.start",
        "tool.end",
        "loop.iteration",
    ]
    res = runner.invoke(
        app, ["events", recording("react-tools"), "--path", "sf-tools", "--limit", "2", "--json"]
    )
    assert [json.loads(x)["runtimeStageId"] for x in res.stdout.splitlines()] == [
        "sf-tools#11",
        "sf-tools/compose#13",
    ]


def test_events_at_matches_index_enclosing() -> None:
    from agentbisect.importers import open_run

    run = open_run(recording("react-tools"))
    want = {r.label.runtimeStageId for r in run.index.enclosing(8)}
    res = runner.invoke(app, ["events", recording("react-tools"), "--at", "8", "--json"])
    got = {json.loads(x)["runtimeStageId"] for x in res.stdout.splitlines()}
    assert got == want
    assert len(res.stdout.splitlines()) == 2 * len(want)


def test_events_table_is_forced_with_table_flag_and_scrubs_escapes(tmp_path: Path) -> None:
    rows = json.loads((Path(recording("react-tools"))).read_text())["snapshot"]["recorders"][0]
    evil = dict(rows["data"][22])
    assert evil["type"] == "llm.start"
    evil["model"] = "\x1b[31mred\x1b]0;pwned\x07[bold]x[/bold]"
    f = tmp_path / "evil.json"
    f.write_text(json.dumps([rows["data"][0], evil]))
    res = runner.invoke(app, ["events", str(f), "--table"], env={"COLUMNS": "250"})
    assert res.exit_code == 0
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout and "pwned" not in res.stdout
    # escape sequences stripped, and the markup shown literally rather than interpreted
    assert "red[bold]x[/bold]" in res.stdout


def test_events_steps_json_equals_upstream_graph() -> None:
    res = runner.invoke(app, ["events", recording("composition"), "--steps", "--json"])
    assert res.exit_code == 0
    assert ordered(json.loads(res.stdout)) == ordered(
        expected("composition", "step-graph")["stepGraph"]
    )


def test_aggregate_json_document() -> None:
    res = runner.invoke(app, ["aggregate", recording("planted-fact"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert list(doc) == [
        "source",
        "run",
        "aggregates",
        "index",
        "strip",
        "llmCalls",
        "honestyFlags",
    ]
    assert doc["source"]["shape"] == "recording" and doc["source"]["mode"] == "full"
    assert doc["run"]["llmCalls"] == 2 and doc["run"]["label"] == "Run"
    exp = expected("planted-fact", "aggregates")["aggregates"]
    assert [
        {k: v for k, v in a.items() if k not in ("endedAtMs", "durationMs")}
        for a in doc["aggregates"]
    ] == exp
    assert doc["index"] == expected("planted-fact", "boundary-index")["liveRanges"]
    assert doc["strip"][0]["label"] == "Run · start"
    assert doc["honestyFlags"] == []


def test_aggregate_legacy_json_says_no_commit_axis() -> None:
    res = runner.invoke(app, ["aggregate", recording("react-tools-legacy"), "--json"])
    doc = json.loads(res.stdout)
    assert doc["index"] == [] and doc["strip"] == []
    assert [f["flag"] for f in doc["honestyFlags"]] == ["commit-axis-absent"]


def test_aggregate_table_hides_zero_internal_rows() -> None:
    res = runner.invoke(app, ["aggregate", recording("react-tools")])
    assert res.exit_code == 0
    assert "5 agent-internal rollup(s) with all-zero counts hidden" in res.stdout
    res_all = runner.invoke(app, ["aggregate", recording("react-tools"), "--all"])
    assert "hidden" not in res_all.stdout and res_all.stdout.count("CacheDecision") >= 5


def test_verbose_names_the_shape() -> None:
    res = afp("aggregate", recording("react-tools-lean"), "--json", "--verbose")
    assert res.returncode == 0
    assert "shape B: recording" in res.stderr and "mode lean (decided by meta)" in res.stderr


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"", "file is empty"),
        (b"{not json", "not valid JSON"),
        (b'{"format": "agentfootprint.recording.v9"}', "unknown envelope format"),
        (b'{"snapshot": {"recorders": "x"}}', "$.snapshot.recorders"),
    ],
)
def test_bad_input_exit_2_one_line_no_traceback(
    tmp_path: Path, content: bytes, phrase: str
) -> None:
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    for cmd in ("events", "aggregate"):
        res = afp(cmd, str(f))
        assert res.returncode == 2, res.stderr
        assert phrase in res.stderr and str(f) in res.stderr
        assert "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1


def test_missing_file_and_directory(tmp_path: Path) -> None:
    res = runner.invoke(app, ["aggregate", str(tmp_path / "none.json")])
    assert res.exit_code == 2 and "no such file" in res.stderr
    res = runner.invoke(app, ["events", str(tmp_path)])
    assert res.exit_code == 2 and "is a directory" in res.stderr


def test_stdin_dash() -> None:
    res = afp("aggregate", "-", "--json", input=Path(recording("planted-fact")).read_text())
    assert res.returncode == 0 and json.loads(res.stdout)["source"]["file"] == "<stdin>"


def test_head_closes_the_pipe_quietly() -> None:
    cmd = f"{sys.executable} -m agentbisect events {recording('composition')} | head -1"
    res = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {cmd}"], capture_output=True, text=True, timeout=60
    )
    assert json.loads(res.stdout)["type"] == "run.entry"
    assert "Traceback" not in res.stderr and "BrokenPipe" not in res.stderr


def test_real_afp_console_script_runs() -> None:
    import shutil

    exe = shutil.which("afp")
    if exe is None:
        pytest.skip("afp console script not on PATH")
    # The script may belong to another checkout's install: PYTHONPATH makes it run this tree.
    res = subprocess.run(
        [exe, "events", recording("planted-fact"), "--type", "tool.*"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert res.returncode == 0, res.stderr
    assert [json.loads(x)["type"] for x in res.stdout.splitlines()] == ["tool.start", "tool.end"]


def test_debug_shows_traceback(tmp_path: Path) -> None:
    f = tmp_path / "bad.json"
    f.write_text("{")
    res = afp("--debug", "events", str(f))
    # the traceback is extra: an input error still exits 2, never 1 (a tripped gate's code)
    assert res.returncode == 2 and "Traceback" in res.stderr
    assert res.stderr.rstrip().splitlines()[-1].startswith("afp: ")


def test_usage_error_exit_2() -> None:
    res = runner.invoke(app, ["events", recording("react-tools"), "--json", "--table"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["aggregate", recording("react-tools"), "--drill", "nope#1"])
    assert res.exit_code == 2 and "no such group" in res.stderr


def test_the_afp_process_runs_the_cycle_collector_less_often() -> None:
    # A real process (the threshold is process-wide): afp's entry point sets it, a library
    # import does not.
    probe = (
        "import gc,sys\n"
        "import agentbisect.model.loaded\n"
        "lib = gc.get_threshold()\n"
        "from agentbisect.__main__ import GC_THRESHOLD, main\n"
        "sys.argv = ['afp', '--help']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(lib[0], gc.get_threshold()[0], GC_THRESHOLD[0], file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    lib, cli, goal = map(int, out.stderr.split()[-3:])
    assert lib == 700 and cli == goal == 200_000
