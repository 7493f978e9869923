"""Everyday CLI use (issue 10): closed pipes, silent no-ops, gates that cannot trip, unusable
inputs, finding your way (version, help, flags anywhere)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CAPTURE, GENUI, MINI, PLANTED, UPSTREAM, cli

REACT = str(UPSTREAM / "react-tools.recording.json")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}


def _exit_with_reader_gone(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run afp with a stdout pipe whose reader has already left (like `| head -0`)."""
    r, w = os.pipe()
    os.close(r)  # before afp writes anything: its first write fails with EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "agentbisect", *args],
            stdout=w,
            stderr=subprocess.PIPE,
            env=ENV,
            timeout=120,
        )
    finally:
        os.close(w)
    return proc  # type: ignore[return-value]


@pytest.mark.parametrize(
    "args",
    [
        ["aggregate", REACT],
        ["bisect", REACT, "--at-llm", "-1"],
        ["bisect", REACT, "--at-llm", "-1", "--format", "text"],
        ["genui-stats", str(GENUI / "spec-8a.jsonl")],
        ["events", REACT, "--table"],
        ["events", REACT, "--json"],
    ],
)
def test_closed_pipe_exits_quietly(args: list[str]) -> None:
    proc = _exit_with_reader_gone(*args)
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr and b"Error" not in proc.stderr


# ------------------------------------------------------------------------- silent no-ops


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["--type", "llm_end"],
            "--type llm_end: no event of this type; nearest event types: llm.end",
        ),
        (["--stage", "call-llm#7"], "nearest step ids: call-llm#"),
        (["--at", "99999"], "--at 99999: no boundary range encloses this commit position"),
        (["--path", "sf-cahce"], "nearest subflow paths: sf-cache"),
    ],
)
def test_events_say_when_nothing_matched(args: list[str], needle: str) -> None:
    res = cli("events", REACT, "--json", *args)
    assert res.exit_code == 0 and res.stdout == ""
    assert needle in res.stderr


def test_events_no_note_when_something_matched() -> None:
    res = cli("events", REACT, "--json", "--type", "llm.end")
    assert res.exit_code == 0 and res.stdout and "no event" not in res.stderr


@pytest.mark.parametrize("cap", ["0", "-1", "nan", "1.5"])
def test_record_rejects_bad_event_caps(cap: str, tmp_path: Path) -> None:
    res = cli("record", str(CAPTURE), "-o", str(tmp_path / "o.json"), "--max-events", cap)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "--max-events" in res.stderr
    assert not (tmp_path / "o.json").exists()


# ------------------------------------------------------------------------- gates that cannot trip


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--fail-on", "baseline-unstable"], "only reruns raise it: add --rerun"),
        (["--fail-on", "multiple-runs", "--upstream"], "only the upstream library's flags"),
        (["--fail-on", "drops-unknown"], "only afp record raises it"),
        (["--fail-on", "slice-truncatd"], "not a flag; nearest flags: slice-truncated"),
    ],
)
def test_fail_on_a_flag_the_mode_cannot_raise(args: list[str], why: str) -> None:
    res = cli("bisect", str(PLANTED), "--at-step", "call-llm#40", *args)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and why in res.stderr


def test_fail_on_flags_the_mode_can_raise() -> None:
    ok = cli(
        "bisect",
        str(PLANTED),
        "--at-step",
        "call-llm#40",
        "--upstream",
        "--fail-on",
        "slice-truncated",
    )
    assert ok.exit_code == 0
    tripped = cli(
        "bisect", str(PLANTED), "--at-step", "call-llm#40", "--fail-on", "no-control-deps"
    )
    assert tripped.exit_code == 1


# ------------------------------------------------------------------------- inputs with nothing usable


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"snapshot": 5}', "snapshot-unreadable"),
        (
            '{"snapshot": {"recorders": [{"name": "BoundaryEvents", "data": 5}]}}',
            "boundaries-unreadable",
        ),
        ('{"events": []}', "not a recording"),
    ],
)
@pytest.mark.parametrize("command", ["events", "aggregate"])
def test_not_a_recording_is_an_input_error(
    content: str, needle: str, command: str, tmp_path: Path
) -> None:
    f = tmp_path / "x.json"
    f.write_text(content)
    res = cli(command, str(f), "--json")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert "not a recording" in res.stderr and needle in res.stderr


def test_degraded_but_usable_stays_readable() -> None:
    res = cli("aggregate", str(UPSTREAM / "demo-turn.json"), "--json")
    assert res.exit_code == 0
    assert "snapshot-absent" in {f["flag"] for f in json.loads(res.stdout)["honestyFlags"]}


def test_genui_stats_on_a_recording_says_so() -> None:
    for f in (str(UPSTREAM / "react-tools.recording.json"), str(CAPTURE)):
        res = cli("genui-stats", f)
        assert (
            res.exit_code == 2
            and "agent recording" in res.stderr
            and "toolCallId" not in res.stderr
        )


def test_bisect_without_commit_log_says_what_is_missing() -> None:
    res = cli("bisect", str(UPSTREAM / "demo-turn.json"), "--at-llm", "-1")
    assert res.exit_code == 2 and "no snapshot" in res.stderr and "composition" not in res.stderr


# ------------------------------------------------------------------------- finding your way


def test_version_and_short_help() -> None:
    from agentbisect.core.version import __version__

    for flag in ("--version", "-V"):
        res = cli(flag)
        assert res.exit_code == 0 and res.stdout == f"afp {__version__}\n"
    for args in (["-h"], ["bisect", "-h"], ["events", "-h"]):
        res = cli(*args)
        assert res.exit_code == 0 and res.stdout.startswith("Usage: afp")
    assert "--install-completion" in cli("--help").stdout


def test_debug_after_the_subcommand_shows_the_traceback(tmp_path: Path) -> None:
    f = tmp_path / "x.json"
    f.write_text('{"snapshot": 5}')
    quiet = cli("aggregate", str(f))
    assert quiet.exit_code == 2 and isinstance(quiet.exception, SystemExit)
    from agentbisect.core.errors import InputError

    loud = cli("aggregate", str(f), "--debug")
    assert loud.exit_code == 2 and "Traceback" in loud.stderr and "InputError" in loud.stderr
    assert InputError.__name__ in loud.stderr  # the traceback names the error it maps


@pytest.mark.parametrize(
    "args",
    [
        ["-v", "aggregate", REACT, "--json"],
        ["aggregate", "-v", REACT, "--json"],
        ["-v", "bisect", str(PLANTED), "--at-step", "call-llm#40", "--json"],
        ["events", REACT, "--json", "--limit", "1", "--verbose"],
    ],
)
def test_verbose_before_or_after_the_subcommand(args: list[str]) -> None:
    res = cli(*args)
    assert res.exit_code == 0 and "as shape B: recording" in res.stderr


def test_verbose_on_record_and_genui_stats(tmp_path: Path) -> None:
    res = cli("record", str(CAPTURE), "-o", str(tmp_path / "o.json"), "-v")
    assert res.exit_code == 0 and "as capture (JSON Lines)" in res.stderr
    res = cli("-v", "genui-stats", str(GENUI / "spec-8a.jsonl"), "--json")
    assert res.exit_code == 0 and "8 call(s)" in res.stderr


@pytest.mark.parametrize("command", ["events", "aggregate", "bisect", "record", "genui-stats"])
def test_help_says_what_values_are_and_shows_examples(command: str) -> None:
    from typer.main import get_command

    from agentbisect.cli import app

    params = get_command(app).commands[command].params  # type: ignore[attr-defined]
    assert all(p.help for p in params), [p.name for p in params if not p.help]
    res = cli(command, "--help")
    assert res.exit_code == 0
    text = res.stdout
    assert "Examples:" in text and f"afp {command} " in text.split("Examples:")[1]
    options = text.split("\nOptions:\n")[1]
    for vague in ("<str>", "<int", "<float", "<list", "{file}", "[[", "]]"):
        assert vague not in options, (command, vague)


# ------------------------------------------------------------------------- the per-LLM-call view


def test_aggregate_lists_llm_calls() -> None:
    doc = json.loads(cli("aggregate", REACT, "--json").stdout)
    calls = doc["llmCalls"]
    assert [c["step"] for c in calls] == [
        "call-llm#18",
        "call-llm#40",
        "call-llm#62",
        "call-llm#84",
        "call-llm#106",
    ]
    first = calls[0]
    assert first["model"] == "mock-react-1" and (first["tokensIn"], first["tokensOut"]) == (51, 8)
    assert first["latencyMs"] == 215 and first["tools"] == ["lookup_order"]
    assert calls[-1]["tools"] == [] and all(c["inCommitLog"] for c in calls)
    table = cli("aggregate", REACT).stdout
    assert "LLM calls (5)" in table and "call-llm#106" in table and "lookup_order" in table


def test_llm_calls_inside_a_composition_are_marked() -> None:
    res = cli("aggregate", str(UPSTREAM / "composition.recording.json"))
    assert res.exit_code == 0
    assert "cannot localize" in res.stdout
    doc = json.loads(
        cli("aggregate", str(UPSTREAM / "composition.recording.json"), "--json").stdout
    )
    assert doc["llmCalls"] and not any(c["inCommitLog"] for c in doc["llmCalls"])


# ------------------------------------------------------------------------- nearest ids


def test_unknown_step_suggests_the_nearest_ids_not_all() -> None:
    res = cli("bisect", REACT, "--at-step", "call-llm#7")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert "Nearest step ids: call-llm#" in res.stderr
    assert "afp aggregate lists them" in res.stderr
    assert res.stderr.count("call-llm#") <= 9  # a few, not every id of the run


def test_composition_names_what_can_be_localized() -> None:
    res = cli("bisect", str(UPSTREAM / "composition.recording.json"), "--at-llm", "-1")
    assert res.exit_code == 2 and "inside a composition only top-level steps" in res.stderr
    assert "Nearest step ids: step-" in res.stderr


def test_drill_by_group_name() -> None:
    comp = str(UPSTREAM / "composition.recording.json")
    by_name = json.loads(cli("aggregate", comp, "--drill", "step-research", "--json").stdout)
    by_id = json.loads(cli("aggregate", comp, "--drill", "step-research#14", "--json").stdout)
    assert by_name["strip"] == by_id["strip"] and len(by_id["strip"]) > 1
    several = cli("aggregate", REACT, "--drill", "sf-tools")
    assert several.exit_code == 2 and "pick one: sf-tools#11" in several.stderr
    typo = cli("aggregate", REACT, "--drill", "sf-toolz")
    assert typo.exit_code == 2 and "nearest groups: sf-tools#" in typo.stderr
    # the name the tree shows ("research [Parallel]  step-research#14") finds the group too
    shown_name = json.loads(cli("aggregate", comp, "--drill", "research", "--json").stdout)
    assert shown_name["strip"] == by_id["strip"]
    tools = cli("aggregate", REACT, "--drill", "Tools")
    assert tools.exit_code == 2 and "5 groups have this name; pick one: sf-tools#11" in tools.stderr
    near = cli("aggregate", comp, "--drill", "reserch")
    assert near.exit_code == 2 and "research" in near.stderr.split("nearest groups:")[1]


def test_text_names_the_cli_option_not_the_library_api() -> None:
    mini = str(MINI / "mini-a.json")
    ours = cli("bisect", mini, "--at-step", "llm#6", "--format", "text").stdout
    assert "rerun with --rerun CMD to test causally" in ours and "AblationRunner" not in ours
    theirs = cli("bisect", mini, "--at-step", "llm#6", "--format", "text", "--upstream").stdout
    assert "supply an AblationRunner to test causally" in theirs


def test_comparator_warning_once_per_run() -> None:
    replay = Path(__file__).resolve().parent / "rerun_replay.py"
    cmd = f"{sys.executable} {replay} causal-default-comparator-cost"
    res = cli(
        "bisect", str(PLANTED), "--at-step", "call-llm#40", "--rerun", cmd,
        "--samples", "4", "--flip-threshold", "0.98", "--max-ablations", "3", "--json",
        "--embedder", "mock", "--ranking", "upstream",
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count("rarely flips") == 1


# ------------------------------------------------------------------------- readable bisect screen


def test_bisect_screen_starts_with_a_verdict_and_flags_before_paths() -> None:
    args = ["--at-llm", "-1", "--embedder", "mock", "--ranking", "upstream", "--details"]
    out = cli("bisect", REACT, *args).stdout
    head = " ".join(out.splitlines()[:2])  # the headline may wrap at 80 columns
    assert head.startswith("CORRELATIONAL · trigger call-llm#106 · top suspect arg 'seed#0'")
    assert "(a proxy) · 3 honesty flags" in head  # upstream's two, plus mock-embedder
    assert "mock-embedder" in out
    assert out.index("Honesty") < out.index("Evidence paths")
    assert "get_refund_policy" in out  # identities keep whole words at 80 columns


def test_long_evidence_paths_are_collapsed(capsys: pytest.CaptureFixture[str]) -> None:
    from agentbisect.bisect.pipeline.localize import localize
    from agentbisect.importers import open_run
    from agentbisect.render import get_renderer
    from agentbisect.results.bisect import bisect_result

    report = localize(open_run(REACT), at_step="call-llm#106")
    s = report.suspects[0]
    s.edgePath = s.edgePath * 8  # a long path
    result = bisect_result(report)
    result.details = True  # (the evidence paths are in the full report)
    get_renderer("table").render(result)
    out = capsys.readouterr().out
    assert f"… {len(s.edgePath) - 4} more hop(s) …" in out


def test_record_reprojects_a_run_nested_2000_levels_deep(tmp_path: Path) -> None:
    """A long real run nests its execution tree > 2,000 levels: re-projection and writing must
    not hit the recursion limit (file and stdin, full and lean), in a fresh process."""
    root = Path(__file__).resolve().parent.parent
    deep = tmp_path / "deep.json"
    made = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "synth.py"), "--mb", "2", str(deep)],
        capture_output=True, text=True, check=True, env=ENV,
    )  # fmt: skip
    assert json.loads(made.stdout.splitlines()[-1])["treeDepth"] >= 2000
    for detail, source in (("lean", str(deep)), ("full", "-")):
        out = tmp_path / f"out-{detail}.json.gz"
        proc = subprocess.run(
            [sys.executable, "-m", "agentbisect", "record", source, "-o", str(out), "--detail", detail],
            input=deep.read_bytes() if source == "-" else None,
            capture_output=True, env=ENV, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-500:]
        check = subprocess.run(
            [sys.executable, "-m", "agentbisect", "aggregate", str(out), "--json"],
            capture_output=True, env=ENV, timeout=300,
        )  # fmt: skip
        assert (
            check.returncode == 0
            and json.loads(check.stdout)["source"]["counts"]["commits"] == 2100
        )


@pytest.mark.parametrize(
    "args",
    [
        ["events", "--at", "3", "--json"],
        ["bisect", "--at-step", "nosuch"],
        ["aggregate", "--drill", "x"],
    ],
)
def test_errors_on_a_flagged_recording_stay_one_line(args: list[str]) -> None:
    """The legacy recording raises commit-axis-absent; an error must not come after a block of
    honesty warnings (issue 10: at most three lines)."""
    legacy = str(UPSTREAM / "react-tools-legacy.recording.json")
    res = cli(args[0], legacy, *args[1:])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.stderr


# ------------------------------------------------------------------------- -o on every report


@pytest.mark.parametrize("command", ["events", "aggregate", "bisect", "genui-stats"])
def test_every_report_command_takes_an_output_file(command: str) -> None:
    text = cli(command, "--help").stdout
    assert "-o, --output FILE" in text and "--force" in text


def test_events_output_file_follows_record_rules(tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    res = cli("events", REACT, "-o", str(out))
    assert res.exit_code == 0 and res.stdout == ""
    assert out.read_bytes() == cli("events", REACT, "--json").stdout_bytes  # JSON Lines
    again = cli("events", REACT, "-o", str(out))
    assert again.exit_code == 2 and "--force" in again.stderr
    refused = cli("events", REACT, "-o", REACT)
    assert refused.exit_code == 2 and "refusing to overwrite the input" in refused.stderr
    forced = cli("events", REACT, "--steps", "--format", "json", "-o", str(out), "--force")
    assert forced.exit_code == 0 and json.loads(out.read_text())["nodes"]
    table = cli("events", REACT, "--table", "-o", str(out), "--force")
    assert table.exit_code == 0 and out.read_text().count("\n") >= 166
