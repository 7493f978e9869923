"""Hostile inputs cost what afp keeps, not what they inflate to (issue 28).

Running out of memory anywhere is one line and exit 2; an input's shape is checked while it is
decoded, so a huge array of the wrong items is refused before it is all built; whitespace and
element bombs are refused or shrunk as they inflate. The memory figures are peak RSS of a real
process under an address-space limit (``RLIMIT_AS``), as the issue measures them.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentbisect.cli import flow
from tests.conftest import PLANTED, ROOT

AS_LIMIT = 6 << 30  # the measuring limit: reserved stacks count against afp too


def run_limited(*args: str, as_limit: int = AS_LIMIT) -> tuple[int, str, float, int]:
    """``(exit code, stderr, seconds, peak RSS in bytes)`` of ``afp ARGS`` under ``as_limit``."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (as_limit, as_limit))

    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        preexec_fn=limit,
    )
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    return (
        os.waitstatus_to_exitcode(status),
        err,
        time.perf_counter() - start,
        usage.ru_maxrss << 10,
    )


def one_line(code: int, err: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------- out of memory, one line


def test_a_memory_error_anywhere_is_one_line_and_exit_2(capsys: Any) -> None:
    def body(file: str) -> None:
        bytearray(1 << 62)  # a real MemoryError, from deep inside a command

    assert flow.call(body, {"file": "big.json"}) == 2
    err = capsys.readouterr().err
    assert err.startswith("afp: input too large to hold in memory: big.json"), err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err


def test_no_room_for_the_decoding_stack_is_one_line() -> None:
    # Under a tight address-space limit the decoding thread's 512 MB stack cannot be reserved:
    # that is being out of memory, not "internal error: RuntimeError: can't start new thread".
    code, err, _, _ = run_limited("aggregate", str(PLANTED), as_limit=500 << 20)
    line = one_line(code, err)
    assert line.startswith(f"afp: input too large to hold in memory: {PLANTED}"), line


def test_the_decoding_stack_fits_the_measuring_limit() -> None:
    code, err, _, _ = run_limited("aggregate", str(PLANTED), "--json")
    assert code == 0, err
