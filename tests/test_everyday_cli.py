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
