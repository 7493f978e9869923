"""``afp aggregate`` names the steps ``--at-step`` takes by decoding the commit log one bundle at a
time (the whole decode lifted a 100,000-span trace's peak by 73 MiB): the same ids as the indexed
log, and for a log the whole decode refuses, the very error it raised, as one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentbisect.analyses.aggregate import _localizable, aggregate
from agentbisect.core.errors import InputError
from agentbisect.importers import open_run
from agentbisect.model.loaded import decode_commit_log
from tests.helpers import RECORDINGS, recording


@pytest.mark.parametrize("rid", RECORDINGS)
def test_same_ids_as_the_whole_decode(rid: str) -> None:
    run = open_run(recording(rid))
    assert _localizable(run) == {b.runtimeStageId for b in decode_commit_log(run.loaded)}


@pytest.mark.parametrize("rid", RECORDINGS)
def test_an_indexed_log_gives_the_same_ids(rid: str) -> None:
    run = open_run(recording(rid))
    unindexed = run.committed_step_ids()
    assert "commit_log" not in run.__dict__  # the ids were read without indexing the log
    assert {b.runtimeStageId for b in run.commit_log.bundles} == unindexed
    assert run.committed_step_ids() == unindexed  # (now read from the indexed log)


def _with_log(tmp_path: Path, log: Any) -> str:
    doc = json.loads(Path(recording("react-tools")).read_text())
    doc["snapshot"]["commitLog"] = log
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    return str(path)


BAD_LOGS = [
    5,
    {"a": 1},
    [{"runtimeStageId": "a", "trace": []}, None],
    [{"runtimeStageId": "a", "trace": 5}],
    [{"runtimeStageId": "a"}, {"runtimeStageId": 7}],
    [{"runtimeStageId": "a", "trace": [{"verb": "set"}]}],
]


def _outcome(fn: Any) -> Any:
    try:
        return fn()
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("log", BAD_LOGS, ids=lambda x: json.dumps(x)[:40])
def test_an_odd_log_gives_what_the_whole_decode_gave(tmp_path: Path, log: Any) -> None:
    path = _with_log(tmp_path, log)
    whole = _outcome(lambda: {b.runtimeStageId for b in decode_commit_log(open_run(path).loaded)})
    ours = _outcome(lambda: aggregate(open_run(path), overview=False).localizable)
    assert ours == whole
    if isinstance(log, list):  # every listed log holds a bundle the whole decode refuses
        assert ours[0] == "error" and "$.snapshot.commitLog" in ours[1]


def test_a_refused_bundle_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = _with_log(tmp_path, [{"runtimeStageId": "a"}, {"runtimeStageId": 7}])
    out = subprocess.run(
        [sys.executable, "-m", "agentbisect", "aggregate", "--json", path],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.splitlines()) == 1
    assert "commit log" in out.stderr and "Traceback" not in out.stderr


def test_null_and_empty_logs_name_no_steps(tmp_path: Path) -> None:
    for log in (None, []):
        assert _localizable(open_run(_with_log(tmp_path, log))) == set()
