"""``afp scan --engine ray`` (issue 27) on one local Ray instance for the whole module: the same
per-file function as Ray tasks writes the same tables as the local engine. Ray comes with the
``ray`` extra, which CI installs (README's test command): this test does not skip without it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CAPTURE, PLANTED, cli
from tests.test_scan import LANGFUSE, TWO, table


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_engine_writes_the_local_engine_s_tables(ray_instance: Any, tmp_path: Path) -> None:
    src = tmp_path / "runs"
    src.mkdir()
    for f in (PLANTED, CAPTURE, TWO, LANGFUSE):
        shutil.copy(f, src / f.name)
    (src / "notes.txt").write_text("not a run")
    local = cli(
        "scan",
        str(src),
        "-o",
        str(tmp_path / "local"),
        "--jobs",
        "1",
        "--bisect",
        "--embedder",
        "mock",
    )
    assert local.exit_code == 0, local.stderr
    res = cli(
        "scan",
        str(src),
        "-o",
        str(tmp_path / "ray"),
        "--engine",
        "ray",
        "--bisect",
        "--embedder",
        "mock",
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    assert '"engine": "ray"' in res.stdout and ray_instance.is_initialized()  # (not stopped)
    for name in ("runs.parquet", "calls.parquet", "suspects.parquet"):
        assert table(tmp_path / "local" / name) == table(tmp_path / "ray" / name), name
    assert len(table(tmp_path / "ray" / "runs.parquet")) == 1 + 1 + 2 + 1 + 1  # TWO: 2 traces
