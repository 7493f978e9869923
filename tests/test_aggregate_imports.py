"""`afp aggregate` and `afp events` read a recording without numpy and without the localizer: the
index queries, the step strip and the rollups are plain Python (numpy's import alone was ~40 ms of
every aggregate), and the renderers tell a bisect result without importing bisect (~13 ms)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import afp_loaded
from tests.helpers import recording

HEAVY = ("numpy", "agentbisect.bisect.pipeline.localize")


def loaded_after(*argv: str) -> set[str]:
    return afp_loaded(*argv, among=HEAVY)


def test_aggregate_and_events_load_neither_numpy_nor_the_localizer() -> None:
    for name in ("react-tools", "composition"):
        assert loaded_after("aggregate", recording(name), "--json") == set(), name
        assert loaded_after("aggregate", recording(name)) == set(), name  # the tables too
    assert loaded_after("events", recording("composition"), "--at", "3", "--json") == set()
    assert loaded_after("events", recording("react-tools")) == set()


def test_a_position_too_large_for_a_double_is_read(tmp_path: Path) -> None:
    # numpy could not hold it (OverflowError: an internal error); the index saturates it to inf.
    rec = json.loads(Path(recording("react-tools")).read_text())
    row = rec["snapshot"]["recorders"][0]["data"]
    exit_ = next(e for e in row if e["type"] == "subflow.exit")
    exit_["commitIdxBefore"] = "@@BIG@@"
    path = tmp_path / "big.json"
    path.write_text(json.dumps(rec).replace('"@@BIG@@"', "1" + "0" * 400))
    out = subprocess.run(
        [sys.executable, "-m", "agentbisect", "aggregate", str(path), "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    ends = [r.get("endIdx") for r in json.loads(out.stdout)["index"]]
    assert 10**400 in ends
