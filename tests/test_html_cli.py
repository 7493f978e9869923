"""``--format html`` and ``-o FILE`` through the CLI: the page lands in the file, with ``afp
record``'s output rules (atomic, no overwrite without --force, regular files only, never an
input)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GENUI, ROOT, UPSTREAM, cli

PF = str(UPSTREAM / "planted-fact.recording.json")
RT = str(UPSTREAM / "react-tools.recording.json")


def test_aggregate_html_to_file(tmp_path: Path) -> None:
    out = tmp_path / "a.html"
    res = cli("aggregate", RT, "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    assert res.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert '<tr id="llm-4"><td class="n">4</td><td class="mono">call-llm#106</td>' in page
    assert "No honesty flags" in page and 'id="suspects"' not in page


def test_bisect_html_to_stdout_in_a_pipe() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "agentbisect", "bisect", PF, "--at-llm", "-1", "-f", "html"]
    res = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    page = res.stdout.decode("utf-8")
    assert 'data-step="call-llm#40"' in page and 'id="suspect-1"' in page
    assert "CORRELATIONAL" in page


def test_html_refuses_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentbisect.render.console as console

    monkeypatch.setattr(console, "stdout_is_terminal", lambda: True)
    res = cli("aggregate", RT, "--format", "html")
    assert res.exit_code == 2 and "give -o FILE" in res.stderr and res.stdout == ""


def test_output_rules(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("keep me")
    res = cli("bisect", PF, "--at-step", "call-llm#40", "--format", "html", "-o", str(out))
    assert res.exit_code == 2 and "exists; pass --force" in res.stderr
    assert out.read_text() == "keep me"
    res = cli(
        "bisect", PF, "--at-step", "call-llm#40", "--format", "html", "-o", str(out), "--force"
    )
    assert res.exit_code == 0 and out.read_text().startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name != "r.html"]  # no temp file left

    # Never over the input, even with --force; never over something that is not a file.
    copy = tmp_path / "in.json"
    copy.write_bytes(Path(PF).read_bytes())
    res = cli("aggregate", str(copy), "--format", "html", "-o", str(copy), "--force")
    assert res.exit_code == 2 and "refusing to overwrite the input" in res.stderr
    assert copy.read_bytes() == Path(PF).read_bytes()
    res = cli("aggregate", PF, "--format", "html", "-o", str(tmp_path), "--force")
    assert res.exit_code == 2 and "not a regular file" in res.stderr
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    res = cli("aggregate", PF, "--format", "html", "-o", str(fifo), "--force")
    assert res.exit_code == 2 and "not a regular file" in res.stderr
    res = cli("aggregate", PF, "-f", "html", "-o", str(tmp_path / "no" / "dir.html"))
    assert res.exit_code == 2 and "does not exist" in res.stderr


def test_o_works_for_every_format(tmp_path: Path) -> None:
    res = cli("aggregate", PF, "--json", "-o", str(tmp_path / "a.json"))
    assert res.exit_code == 0 and res.stdout == ""
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads(
        cli("aggregate", PF, "--json").stdout
    )
    res = cli("bisect", PF, "--at-step", "call-llm#40", "-f", "text", "-o", str(tmp_path / "b"))
    assert (tmp_path / "b").read_text().startswith("CONTEXT BUG LOCALIZATION — trigger call-llm#40")


def test_genui_html_and_gates(tmp_path: Path) -> None:
    out = tmp_path / "g.html"
    rows = str(GENUI / "spec-8a.jsonl")
    res = cli("genui-stats", rows, "--format", "html", "-o", str(out), "--max-failed", "0")
    # The page is written, then the gate trips: CI keeps the report of a failing run.
    assert res.exit_code == 1
    page = out.read_text(encoding="utf-8")
    assert '<span class="big" id="first-try">25.0%</span>' in page


def test_sqlite_input_is_never_the_output(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    db.write_bytes(b"not really a database")
    res = cli("genui-stats", "--db", f"sqlite:///{db}", "-f", "html", "-o", str(db), "--force")
    assert res.exit_code == 2 and "refusing to overwrite the input" in res.stderr
    assert db.read_bytes() == b"not really a database"


def test_record_summary_has_no_html() -> None:
    res = cli("record", PF, "-o", "/dev/null", "--format", "html")
    assert res.exit_code == 2 and "'table', 'json'" in res.stderr
