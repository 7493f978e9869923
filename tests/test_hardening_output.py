"""``afp record -o``: only regular files are replaced, modes survive ``--force``, signals clean up.

Special files are a FIFO and a symlink in a temporary directory, never a real device node.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import PLANTED

PF = str(PLANTED)

runner = CliRunner()


def record(out: Path | str, *extra: str) -> Any:
    return runner.invoke(app, ["record", PF, "-o", str(out), *extra])


@pytest.mark.parametrize("force", [True, False])
def test_fifo_is_never_replaced(tmp_path: Path, force: bool) -> None:
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    res = record(fifo, *(["--force"] if force else []))
    assert res.exit_code == 2, res.output
    assert "FIFO" in res.stderr and "regular file" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]  # no temp file left


def test_symlink_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("keep")
    link = tmp_path / "link.json"
    os.symlink(target, link)
    res = record(link, "--force")
    assert res.exit_code == 2 and "symbolic link" in res.stderr
    assert os.path.islink(link) and target.read_text() == "keep"


def test_force_keeps_the_replaced_files_mode(tmp_path: Path) -> None:
    out = tmp_path / "secret.json"
    out.write_text("old")
    os.chmod(out, 0o600)
    res = record(out, "--force")
    assert res.exit_code == 0, res.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert out.read_bytes() == Path(PF).read_bytes()


def test_force_keeps_a_wider_mode_too(tmp_path: Path) -> None:
    out = tmp_path / "shared.json"
    out.write_text("old")
    os.chmod(out, 0o664)
    assert record(out, "--force").exit_code == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o664


@pytest.mark.parametrize(("mask", "mode"), [(0o002, 0o664), (0o077, 0o600), (0o022, 0o644)])
def test_new_file_follows_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    old = os.umask(mask)
    try:
        res = record(tmp_path / "new.json")
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == mode


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_during_write_leaves_no_temp_file(tmp_path: Path, sig: int, code: int) -> None:
    out = tmp_path / "out.json"
    env = dict(os.environ, AFP_TEST_WRITE_DELAY="30")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", "record", PF, "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline, "the temp file never appeared"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert b"Traceback" not in err and signal.Signals(sig).name.encode() in err
    assert list(tmp_path.iterdir()) == []  # neither the temp file nor a partial output


def test_report_output_follows_the_same_rules(tmp_path: Path) -> None:
    # `-o FILE` of the report commands goes through the same check as `afp record -o`.
    dangling = tmp_path / "gone.html"
    os.symlink(tmp_path / "missing" / "x.html", dangling)
    res = runner.invoke(app, ["aggregate", PF, "-f", "html", "-o", str(dangling), "--force"])
    assert res.exit_code == 2 and "symbolic link" in res.stderr
    assert "internal error" not in res.stderr
    secret = tmp_path / "report.json"
    secret.write_text("old")
    os.chmod(secret, 0o600)
    res = runner.invoke(app, ["aggregate", PF, "--json", "-o", str(secret), "--force"])
    assert res.exit_code == 0, res.stderr
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
