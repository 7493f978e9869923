"""`afp aggregate` and `afp events` read a recording without numpy: the index queries, the step
strip and the rollups are plain Python (numpy's import alone was ~40 ms of every aggregate)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import recording

_PROBE = (
    "import runpy, sys\n"
    "sys.argv = ['afp', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('agentbisect', run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    "sys.stderr.write('NUMPY ' + str('numpy' in sys.modules))\n"
)


def numpy_loaded(*argv: str) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    )
    return out.stderr.rsplit("NUMPY ", 1)[1].strip() == "True"


def test_aggregate_and_events_load_no_numpy() -> None:
    for name in ("react-tools", "composition"):
        assert not numpy_loaded("aggregate", recording(name), "--json"), name
        assert not numpy_loaded("aggregate", recording(name)), name  # the tables too
    assert not numpy_loaded("events", recording("composition"), "--at", "3", "--json")
