"""A long run nests its execution tree as deep as it is long (~7 levels per iteration): every
reading command must get past the importer sniffing (which decodes a first line) at any depth."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import make_long_run

runner = CliRunner()


@pytest.fixture(scope="module")
def deep_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    info = make_long_run(path, target_mb=0.1, iterations=160)
    assert info["treeDepth"] > sys.getrecursionlimit()
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
    res = runner.invoke(app, [argv[0], str(deep_run), *argv[1:]])
    assert res.exit_code == 0, res.output
    assert "RecursionError" not in res.output
    assert res.stdout.lstrip().startswith("{")
