"""When an error follows warnings, the whole message is at most three lines (issue 10): every
command and mode, over the most-flagged inputs. Warnings are held until the command ends; a
command that succeeds still prints every one of them."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from agentbisect.render import notes
from tests.conftest import FIXTURES, GENUI, MINI, PLANTED, UPSTREAM, afp_proc, cli

FLAGGED = [
    UPSTREAM / "react-tools-legacy.recording.json",  # commit-axis-absent
    UPSTREAM / "react-tools-lean.recording.json",
    UPSTREAM / "demo-turn.json",  # no snapshot
    FIXTURES / "otel" / "oaiv2-2.4b0-no-content.tool-planted.otlp.json",  # importer flags
    FIXTURES / "otel" / "transcript.multi-agent.history.json",
    FIXTURES / "hostile" / "xss-tools.recording.json",
    MINI / "mini-b.json",
]

ERRORS = [
    ["events", "{f}", "--at", "3", "--stage", "nosuch#1", "--limit", "x"],
    ["events", "{f}", "--steps", "--json", "--type", "llm_end", "--max-events", "2"],
    ["aggregate", "{f}", "--drill", "nosuch"],
    ["aggregate", "{f}", "--json", "-o", "{f}"],
    ["bisect", "{f}", "--at-step", "nosuch"],
    ["bisect", "{f}", "--at-llm", "99"],
    ["bisect", "{f}", "--at-llm", "-1", "--json", "--embedder", "mock", "--fail-on", "any"],
    ["bisect", "{f}", "--at-llm", "-1", "--embedder", "mock", "--fail-on", "any"],
    ["bisect", "{f}", "--at-llm", "-1", "--rerun", "false", "--embedder", "mock", "--json"],
    [
        "bisect",
        "{f}",
        "--at-llm",
        "-1",
        "--rerun",
        f"{sys.executable} -c \"print('x')\"",
        "--original-output",
        "y",
        "--embedder",
        "mock",
        "--fail-on",
        "any",
        "--json",
    ],
    ["record", "{f}", "-o", "{f}", "--force"],
    ["record", "{f}", "-o", "/nonexistent-dir/x.json"],
    ["genui-stats", "{f}", "--max-failed", "0"],
]


@pytest.mark.parametrize("args", ERRORS, ids=lambda a: " ".join(a[:1] + a[2:4]))
@pytest.mark.parametrize("path", FLAGGED, ids=lambda p: p.name)
def test_every_failing_command_says_it_in_at_most_three_lines(path: Path, args: list[str]) -> None:
    res = cli(*(str(path) if a == "{f}" else a for a in args))
    if res.exit_code == 0:
        return  # (a gate that did not trip on this input)
    lines = res.stderr.splitlines()
    assert 1 <= len(lines) <= 3, res.stderr
    assert all(line.startswith("afp: ") for line in lines), res.stderr


def _inconsistent_rows(tmp_path: Path, n: int) -> Path:
    base = json.loads((GENUI / "spec-8a.jsonl").read_text().splitlines()[0])
    rows = [dict(base, toolCallId=f"x{i}", outcome="ok", validity="failed") for i in range(n)]
    p = tmp_path / "rows.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_a_tripped_gate_after_many_warnings_is_three_lines(tmp_path: Path, fmt: list[str]) -> None:
    rows = _inconsistent_rows(tmp_path, 30)
    res = cli("genui-stats", str(rows), *fmt, "--max-failed", "0")
    assert res.exit_code == 1
    first, held, gate = res.stderr.splitlines()  # it was 22 lines
    assert "toolCallId 'x0'" in first
    assert "20 more warning line(s)" in held
    assert gate == "afp: gate tripped: 30 failed calls > --max-failed 0"
    # the same run without the gate prints every warning: nothing is lost on success
    ok = cli("genui-stats", str(rows), *fmt)
    assert ok.exit_code == 0 and len(ok.stderr.splitlines()) == 21


def test_the_fast_front_end_holds_warnings_too(tmp_path: Path) -> None:
    rows = _inconsistent_rows(tmp_path, 30)
    proc = afp_proc("genui-stats", str(rows), "--json", "--max-failed", "0")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 3, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("afp: gate tripped")


def test_a_bisect_gate_after_its_warnings(tmp_path: Path) -> None:
    args = ["bisect", str(PLANTED), "--at-llm", "-1", "--embedder", "mock", "--json"]
    args += ["--rerun", f"{sys.executable} -c \"print('x')\"", "--original-output", "y"]
    ok = cli(*args)
    warned = ok.stderr.splitlines()
    assert ok.exit_code == 0 and any("contains:WORD" in w for w in warned)
    res = cli(*args, "--fail-on", "any")
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert len(lines) <= 3 and lines[-1].startswith("afp: gate tripped (--fail-on)")
    assert lines[:-1] == notes.compact(warned, 2)


def test_held_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with notes.held():
        for i in range(5):
            notes.note(f"w{i}")
        assert err.getvalue() == ""  # held
    assert err.getvalue().splitlines() == [f"afp: w{i}" for i in range(5)]

    err.truncate(0)
    err.seek(0)
    with notes.held():
        for i in range(5):
            notes.note(f"w{i}")
        notes.error("boom")
    assert err.getvalue().splitlines() == [
        "afp: w0",
        "afp: … and 4 more warning line(s), held back before the error",
        "afp: boom",
    ]

    err.truncate(0)
    err.seek(0)
    with pytest.raises(SystemExit), notes.held():
        notes.note("w0")
        notes.note("w1")
        notes.note("w2")
        raise SystemExit(0)  # a quiet exit: every warning
    assert len(err.getvalue().splitlines()) == 3

    assert notes.compact(["a", "b"], 2) == ["a", "b"]
    assert notes.compact(["a", "b", "c"], 0) == []
    notes.note("outside")  # no held command: at once
    assert err.getvalue().endswith("afp: outside\n")
