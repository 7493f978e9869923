"""``afp bisect --rerun``: signals kill the rerun groups, rerun output is bounded, bad options are
one-line errors (real subprocesses where a signal or a process group is involved)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import PLANTED, process_alive

PF = str(PLANTED)
PY = shlex.quote(sys.executable)
BASE = ["--at-step", "call-llm#40", "--comparator", "contains:APPROVED"]

runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, ["bisect", PF, *BASE, *args], env=env)


def _script(tmp_path: Path, body: str) -> str:
    p = tmp_path / "rerun.py"
    p.write_text("import json, sys, os, subprocess, time\nreq = json.load(sys.stdin)\n" + body)
    return f"{PY} {p}"


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("jobs", ["1", "3"])
def test_signal_kills_rerun_groups(tmp_path: Path, sig: int, code: int, jobs: str) -> None:
    pidfile = tmp_path / "pids"
    body = (
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pidfile)!r}, 'a').write(f'{{os.getpid()}} {{child.pid}} ')\n"
        "time.sleep(300)\n"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentbisect",
            "bisect",
            PF,
            *BASE,
            "--jobs",
            jobs,
            "--rerun",
            _script(tmp_path, body),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(pidfile.read_text().split() if pidfile.exists() else []) < 2 * int(jobs):
            assert time.monotonic() < deadline, "the reruns never started"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        pids = [int(x) for x in pidfile.read_text().split()]
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        time.sleep(0.3)
        assert proc.returncode == code, err
        assert b"Traceback" not in err
        assert not [p for p in pids if process_alive(p)], "a rerun outlived afp"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in pids:  # on failure: leave no orphan behind on the test machine
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p, signal.SIGKILL)


def test_rerun_stdout_over_the_cap_is_a_rerun_failure(tmp_path: Path) -> None:
    body = "sys.stdout.write('Refund APPROVED ' + 'x' * (2 << 20))\n"
    res = invoke("--rerun", _script(tmp_path, body))
    assert res.exit_code == 3, res.output
    assert "more than 1 MiB" in res.stderr and "AFP_MAX_RERUN_OUTPUT" in res.stderr
    assert "seed 0" in res.stderr


def test_rerun_stdout_cap_follows_the_environment(tmp_path: Path) -> None:
    script = _script(tmp_path, "print('Refund APPROVED, and then some more words')\n")
    res = invoke("--rerun", script, env={"AFP_MAX_RERUN_OUTPUT": "16"})
    assert res.exit_code == 3 and "more than 16 bytes" in res.stderr
    ok = invoke("--rerun", script, "--max-ablations", "1", env={"AFP_MAX_RERUN_OUTPUT": "1K"})
    assert ok.exit_code == 0, ok.stderr


def test_rerun_stderr_keeps_its_tail(tmp_path: Path) -> None:
    body = (
        "sys.stderr.write('first line\\n' + 'noise\\n' * 400000 + 'the real reason\\n')\n"
        "sys.exit(5)\n"
    )
    res = invoke("--rerun", _script(tmp_path, body))
    assert res.exit_code == 3
    assert "exited with status 5" in res.stderr and "the real reason" in res.stderr
    assert "first line" not in res.stderr


def test_rerun_stderr_is_trimmed_while_it_is_read() -> None:
    """Only the tail of a chatty rerun's stderr is ever held: 32 MiB of noise must not be
    buffered whole (the CLI test above cannot see memory; this measures it)."""
    import tracemalloc

    from agentbisect.bisect.causal.rerun_io import STDERR_TAIL_BYTES, exchange

    code = (
        "import sys\n"
        "chunk = b'noise ' * 10922 + b'\\n'\n"
        "for _ in range(512): sys.stderr.buffer.write(chunk)\n"
        "sys.stderr.buffer.write(b'the real reason\\n')\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    tracemalloc.start()
    try:
        got = exchange(proc, b"", timeout=60, cap=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        proc.wait()
    assert got.stderr_tail.endswith(b"the real reason\n")
    assert len(got.stderr_tail) <= STDERR_TAIL_BYTES
    assert peak < 8 * STDERR_TAIL_BYTES + (1 << 20)  # a few tails and read buffers, not 32 MiB


def test_rerun_with_an_unbalanced_quote_is_a_usage_error() -> None:
    res = invoke("--rerun", "echo 'unbalanced")
    assert res.exit_code == 2
    line = _one_line(res.stderr)
    assert "--rerun" in line and "quot" in line


def test_original_output_from_a_binary_file(tmp_path: Path) -> None:
    binary = tmp_path / "answer.bin"
    binary.write_bytes(bytes(range(256)))
    res = invoke("--rerun", "true", "--original-output", f"@{binary}")
    assert res.exit_code == 2
    line = _one_line(res.stderr)
    assert str(binary) in line and "binary" in line


def test_original_output_latin1_file_names_the_byte(tmp_path: Path) -> None:
    text = tmp_path / "answer.txt"
    text.write_bytes("Refund d\xe9clined".encode("latin-1"))
    res = invoke("--rerun", "true", "--original-output", f"@{text}")
    assert res.exit_code == 2
    line = _one_line(res.stderr)
    assert str(text) in line and "not UTF-8" in line and "0xe9" in line


def test_original_output_with_a_bom_is_read_as_utf8(tmp_path: Path) -> None:
    # The rerun answers exactly the original text; a BOM left in the original would make the
    # anchored regex see a change on every baseline rerun (baseline-unstable).
    text = tmp_path / "answer.txt"
    text.write_bytes(b"\xef\xbb\xbfRefund APPROVED")
    script = _script(tmp_path, "print('Refund APPROVED')\n")
    res = runner.invoke(
        app,
        [
            "bisect",
            PF,
            "--at-step",
            "call-llm#40",
            "--rerun",
            script,
            "--max-ablations",
            "0",
            "--comparator",
            "regex:^Refund",
            "--original-output",
            f"@{text}",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.stderr
    flags = [f["flag"] for f in json.loads(res.stdout)["honestyFlags"]]
    assert "baseline-unstable" not in flags


def test_a_rerun_started_after_the_kill_all_dies_at_once(tmp_path: Path) -> None:
    # Parallel reruns: a worker may start its process just after an abort killed the others.
    from agentbisect.bisect.causal.rerun import CommandRunner
    from agentbisect.core.errors import ExternalCommandFailed

    script = tmp_path / "sleepy.py"
    script.write_text("import time\ntime.sleep(300)\n")
    runner = CommandRunner([sys.executable, str(script)], "llm#6", timeout=20)
    runner.kill_all()
    start = time.monotonic()
    with pytest.raises(ExternalCommandFailed, match="killed by signal 9"):
        runner.run_one({"specs": []}, 0, "baseline")
    assert time.monotonic() - start < 10


def test_termination_is_held_back_inside_a_deferred_block() -> None:
    from agentbisect.core.signals import Terminated, deferred, raising_on_termination

    steps: list[str] = []
    with pytest.raises(Terminated) as caught, raising_on_termination():
        with deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.1)  # the handler has run by now; the exception waits
            steps.append("finished the step")
        steps.append("after the block")  # never reached
    assert steps == ["finished the step"]
    assert caught.value.exit_code == 143
