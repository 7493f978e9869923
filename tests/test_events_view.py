"""`afp events` on a terminal: one line per event, columns chosen by width, paged when long."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from typer.testing import CliRunner

from agentbisect.cli import app
from agentbisect.importers import open_run
from agentbisect.render.safetext import clean
from agentbisect.render.tables.event_lines import choose_columns, fit, write_event_lines
from tests.helpers import recording

runner = CliRunner()
REACT_EVENTS = 166


def table(width: int, *args: str, path: str | None = None) -> list[str]:
    res = runner.invoke(
        app,
        ["events", path or recording("react-tools"), "--table", *args],
        env={"COLUMNS": str(width), "LINES": "24"},
    )
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


def header(lines: list[str]) -> list[str]:
    return lines[1].split()


def test_80_columns_one_line_per_event_and_the_narrow_column_set() -> None:
    lines = table(80)
    assert len(lines) == 2 + REACT_EVENTS
    assert lines[0].startswith(f"{REACT_EVENTS} of {REACT_EVENTS} domain events")
    assert header(lines) == ["#", "type", "stage", "summary"]
    assert max(cell_len(line) for line in lines) <= 80
    # each row starts with its own index, in order: no row wrapped onto a second line
    assert [int(line.split()[0]) for line in lines[2:]] == list(range(REACT_EVENTS))
    assert lines[2 + 22].split()[1:3] == ["llm.start", "call-llm#18"]


def test_120_columns_add_commit_and_path() -> None:
    lines = table(120)
    assert header(lines) == ["#", "commit", "type", "stage", "path", "summary"]
    assert max(cell_len(line) for line in lines) <= 120
    row = lines[2 + 6].split()
    assert row[:5] == ["6", "4", "subflow.entry", "sf-system-prompt#7", "sf-system-prompt"]


def test_a_narrow_terminal_keeps_index_type_and_summary() -> None:
    lines = table(50)
    assert header(lines) == ["#", "type", "summary"]
    assert max(cell_len(line) for line in lines) <= 50


def test_long_stage_ids_keep_their_distinguishing_tail() -> None:
    lines = table(80)
    row = lines[2 + 7]
    assert "…tem-prompt/compose#8" in row


def _evil_recording(tmp_path: Path, text: str) -> str:
    rows = json.loads(Path(recording("react-tools")).read_text())["snapshot"]["recorders"][0]
    evil = dict(rows["data"][23])
    assert evil["type"] == "llm.end"
    evil["content"] = text
    f = tmp_path / "evil.json"
    f.write_text(json.dumps([rows["data"][0], evil]))
    return str(f)


def test_newlines_escapes_and_wide_text_stay_on_one_line(tmp_path: Path) -> None:
    text = "line one\nline two\r\n\x1b[2J\x1b]0;pwned\x07" + "退款政策🙂" * 30
    lines = table(80, path=_evil_recording(tmp_path, text))
    assert len(lines) == 4
    assert "\x1b" not in "".join(lines) and "pwned" not in "".join(lines)
    assert "line one line two" in lines[3]
    assert all(cell_len(line) <= 80 for line in lines)
    assert lines[3].endswith("…")


@given(raw=st.text(max_size=60), width=st.integers(0, 40), tail=st.booleans())
def test_fit_never_exceeds_the_width_and_keeps_what_fits(raw: str, width: int, tail: bool) -> None:
    text = clean(raw)  # cells are fitted after scrubbing, as the view does
    got = fit(text, width, keep_tail=tail)
    assert cell_len(got) <= max(width, 0)
    if cell_len(text) <= width:
        assert got == text
    elif width > 0:
        assert got.startswith("…") if tail else got.endswith("…")


def test_rows_are_written_as_they_are_made() -> None:
    run = open_run(recording("react-tools"))
    consumed = 0

    def rows() -> Iterator[tuple[int, object]]:
        nonlocal consumed
        for i, ev in enumerate(run.events):
            consumed += 1
            yield i, ev

    class Out:
        first_write_after: int | None = None

        def write(self, s: str) -> int:
            if self.first_write_after is None:
                self.first_write_after = consumed
            return len(s)

    out = Out()
    cols = choose_columns(100, len(run.events), run.events)
    write_event_lines(out, rows(), cols, lambda ev: ev.type, False)  # type: ignore[arg-type]
    assert out.first_write_after == 1
    assert consumed == REACT_EVENTS


# --------------------------------------------------------------------------- pager, on a pty


def on_a_pty(
    args: list[str], env: dict[str, str], rows: int = 10, cols: int = 80
) -> tuple[int, str]:
    """Run `afp ARGS` with stdout (and stdin) on a pseudo-terminal of ROWS×COLS."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "PAGER", "LESS")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", *args],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**base, **env},
    )
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            proc.kill()
            raise AssertionError("afp hung on the pty")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=30)
    os.close(master)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    assert "Traceback" not in err
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace"), err


def test_long_output_on_a_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    out = tmp_path / "paged.txt"
    code, screen, _ = on_a_pty(["events", recording("react-tools")], {"PAGER": f"cat > {out}"})
    assert code == 0
    paged = out.read_text().splitlines()
    assert len(paged) == 2 + REACT_EVENTS
    assert paged[1].replace("\x1b[1m", "").split()[:2] == ["#", "type"]
    assert "llm.start" not in screen  # the rows went to the pager, not past it


def test_output_that_fits_the_screen_is_not_paged(tmp_path: Path) -> None:
    out = tmp_path / "paged.txt"
    code, screen, _ = on_a_pty(
        ["events", recording("react-tools"), "--limit", "3"], {"PAGER": f"cat > {out}"}, rows=24
    )
    assert code == 0
    assert not out.exists()
    assert "run.entry" in screen


def test_quitting_the_pager_early_is_not_an_error(tmp_path: Path) -> None:
    code, _, _ = on_a_pty(["events", recording("react-tools")], {"PAGER": "head -c 100 >/dev/null"})
    assert code == 0


def test_an_empty_pager_setting_means_no_pager() -> None:
    code, screen, _ = on_a_pty(["events", recording("react-tools")], {"PAGER": ""}, rows=10)
    assert code == 0
    assert screen.count("\n") >= REACT_EVENTS  # everything printed straight to the terminal


def test_a_pager_that_cannot_run_is_said_and_the_rows_still_shown() -> None:
    code, screen, err = on_a_pty(
        ["events", recording("react-tools")], {"PAGER": "/nonexistent/afp-pager"}
    )
    assert code == 0
    assert "cannot run the pager '/nonexistent/afp-pager'" in err
    assert screen.count("\n") >= REACT_EVENTS


def test_a_pipe_is_never_paged(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    res = runner.invoke(
        app,
        ["events", recording("react-tools"), "--table"],
        env={"PAGER": f"touch {marker}; cat", "LINES": "5"},
    )
    assert res.exit_code == 0
    assert not marker.exists()


def test_colour_only_where_it_reaches_the_screen_intact(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentbisect.render import pager

    monkeypatch.setattr(pager, "stdout_is_terminal", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("LESS", raising=False)
    assert pager._colour_ok(None) is True  # straight to the terminal
    assert pager._colour_ok("less") is True  # our LESS=FRX passes colour
    monkeypatch.setenv("LESS", "S")
    assert pager._colour_ok("less") is False  # the user's less would show raw escapes
    assert pager._colour_ok("less -R") is True
    assert pager._colour_ok("most") is False  # an unknown pager: plain text is safe
    monkeypatch.setenv("NO_COLOR", "1")
    assert pager._colour_ok(None) is False
    monkeypatch.setattr(pager, "stdout_is_terminal", lambda: False)
    monkeypatch.delenv("NO_COLOR")
    assert pager._colour_ok(None) is False
