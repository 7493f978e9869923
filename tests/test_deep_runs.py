"""A long run nests its execution tree as deep as it is long (~7 levels per iteration): every
reading command must get past the importer sniffing (which decodes a first line) at any depth.

Real processes: the loader raises the recursion limit for the rest of a process, so in-process
runs after any other test would not see the interpreter's default limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import make_long_run

DEFAULT_RECURSION_LIMIT = 1000


@pytest.fixture(scope="module")
def deep_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    info = make_long_run(path, target_mb=0.1, iterations=160)
    assert info["treeDepth"] > DEFAULT_RECURSION_LIMIT
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["events", "--json"],
        ["aggregate", "--json"],
        ["bisect", "--at-llm", "-1", "--json", "--upstream"],
    ],
)
def test_reading_commands_read_a_run_deeper_than_the_recursion_limit(
    deep_run: Path, argv: list[str]
) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "agentbisect", argv[0], str(deep_run), *argv[1:]],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    assert "RecursionError" not in res.stderr
    assert res.stdout.lstrip().startswith("{")
