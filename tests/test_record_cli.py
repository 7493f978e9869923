"""`afp record` end to end: round trips, lean parity, refusals, bad input, crash safety."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from agentbisect.importers import load
from tests.conftest import CAPTURE, ROOT, UPSTREAM

RECORDINGS = sorted(UPSTREAM.glob("*.recording.json"))
runner = CliRunner()


def afp(*args: str) -> Any:
    return runner.invoke(app, list(args))


def record(src: Path | str, out: Path, *extra: str) -> Any:
    result = afp("record", str(src), "-o", str(out), *extra)
    assert result.exit_code == 0, result.stderr
    return result


def domain_raws(path: Path) -> list[bytes]:
    loaded = load(str(path))
    return [bytes(r) for r in loaded.domain.raws()]  # type: ignore[union-attr]


@pytest.mark.parametrize("src", RECORDINGS, ids=lambda p: p.name.split(".")[0])
def test_full_round_trip(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    record(src, out, "--detail", "full")
    assert domain_raws(out) == domain_raws(src)
    # no embeddings in the corpus: a full re-projection is byte-identical
    assert out.read_bytes() == src.read_bytes()
    for cmd in (["events", "--json"], ["aggregate", "--json"]):
        a, b = afp(*cmd, str(src)), afp(*cmd, str(out))
        assert a.exit_code == 0 and b.exit_code == 0
        assert a.stdout.replace(str(src), "X") == b.stdout.replace(str(out), "X")


def test_lean_matches_upstream_lean_bundle(tmp_path: Path) -> None:
    """react-tools --detail lean vs the bundle upstream wrote for react-tools-lean.

    They are two runs of the same scripted agent, so wall-clock values differ: we compare the
    row header exactly, every event's key list (order included) exactly, and every value except
    ``ts`` on all events and ``durationMs`` on tool.end (measured tool time).
    """
    out = tmp_path / "lean.json"
    record(UPSTREAM / "react-tools.recording.json", out, "--detail", "lean")
    ours = json.loads(out.read_bytes())["snapshot"]["recorders"][0]
    theirs = json.loads((UPSTREAM / "react-tools-lean.recording.json").read_bytes())
    theirs = theirs["snapshot"]["recorders"][0]
    assert [(k, v) for k, v in ours.items() if k != "data"] == [
        (k, v) for k, v in theirs.items() if k != "data"
    ]
    assert len(ours["data"]) == len(theirs["data"])
    for a, b in zip(ours["data"], theirs["data"], strict=True):
        assert list(a) == list(b)
        wall = {"ts"} | ({"durationMs"} if a["type"] == "tool.end" else set())
        assert {k: v for k, v in a.items() if k not in wall} == {
            k: v for k, v in b.items() if k not in wall
        }
    # aggregates and the index are the same as on upstream's lean recording
    x = json.loads(afp("aggregate", "--json", str(out)).stdout)
    y = json.loads(
        afp("aggregate", "--json", str(UPSTREAM / "react-tools-lean.recording.json")).stdout
    )

    def strip_wall(v: Any) -> Any:
        if isinstance(v, dict):
            return {
                k: strip_wall(w)
                for k, w in v.items()
                if k not in ("ts", "startedAtMs", "endedAtMs", "durationMs", "file")
            }
        if isinstance(v, list):
            return [strip_wall(w) for w in v]
        return v

    assert len(x["index"]) == len(y["index"]) == 32
    assert strip_wall(x["index"]) == strip_wall(y["index"])
    assert strip_wall(x["aggregates"]) == strip_wall(y["aggregates"])
    assert x["honestyFlags"] == y["honestyFlags"]


def test_capture_reproduces_the_golden_row(tmp_path: Path) -> None:
    out = tmp_path / "cap.json"
    result = record(CAPTURE, out)
    assert "capture (JSON Lines)" in result.stderr
    rec = json.loads(out.read_bytes())
    assert list(rec) == ["snapshot", "events", "structure"]
    spec = ROOT.parent / "shared" / "spec" / "recording.md"
    data = rec["snapshot"]["recorders"][0]["data"]
    assert [e["type"] for e in data] == [
        "run.entry",
        "subflow.entry",
        "llm.start",
        "llm.end",
        "tool.start",
        "tool.end",
        "llm.start",
        "llm.end",
        "subflow.exit",
        "run.exit",
    ]
    assert [e["commitIdxBefore"] for e in data] == [0, 1, 2, 2, 3, 3, 4, 4, 6, 7]
    if spec.exists():
        text = spec.read_text()
        block = text[text.index("### 6.5") :]
        block = block[block.index("```json") + 8 :]
        lines = [ln.rstrip(",") for ln in block[: block.index("```")].strip().splitlines()[1:-1]]
        assert [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in data] == lines
    assert len(rec["snapshot"]["commitLog"]) == 7


def test_summary_and_warnings(tmp_path: Path) -> None:
    res = record(
        UPSTREAM / "react-tools-legacy.recording.json",
        tmp_path / "a.json.gz",
        "--max-events",
        "100",
        "--detail",
        "lean",
    )
    err = res.stderr
    for needle in (
        "B: recording",
        "151 in, 100 out",
        "166 in, 166 out",
        "bytes",
        "commit-axis-absent",
        "events-dropped",
        "lean",
        "not redaction",
        "systemPromptText",
    ):
        assert needle in err
    raw = (tmp_path / "a.json.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    env = json.loads(gzip.decompress(raw))
    assert env["format"] == "agentfootprint.recording.v1"
    assert env["run"]["droppedEvents"] == 51 and "firstRetainedEventIndex" not in env["run"]
    assert len(env["recording"]["events"]) == 100
    # re-cutting an envelope adds to its counts
    res2 = record(tmp_path / "a.json.gz", tmp_path / "b.json", "--max-events", "40")
    assert "A: envelope" in res2.stderr
    env2 = json.loads((tmp_path / "b.json").read_bytes())
    assert env2["run"]["droppedEvents"] == 111


def test_unclosed_and_missing_structure(tmp_path: Path) -> None:
    cap = tmp_path / "partial.jsonl"
    cap.write_text(
        '{"flow":"runStart","ts":1,"commits":0,"event":{}}\n'
        '{"flow":"subflowEntry","ts":2,"commits":1,"event":{"name":"a","subflowId":"a",'
        '"traversalContext":{"runtimeStageId":"a#1"}}}\n'
    )
    res = record(cap, tmp_path / "p.json")
    assert "unclosed-ranges" in res.stderr and "structure-absent" in res.stderr
    assert "__root__#0" in res.stderr


def test_legacy_capture(tmp_path: Path) -> None:
    cap = tmp_path / "legacy.jsonl"
    cap.write_text(
        '{"flow":"runStart","ts":1,"event":{}}\n'
        '{"flow":"subflowEntry","ts":2,"event":{"name":"a","subflowId":"a",'
        '"traversalContext":{"runtimeStageId":"a#1"}}}\n'
        '{"flow":"subflowExit","ts":3,"event":{"name":"a","subflowId":"a",'
        '"traversalContext":{"runtimeStageId":"a#1"}}}\n'
        '{"flow":"runEnd","ts":4,"event":{}}\n'
    )
    res = record(cap, tmp_path / "l.json")
    assert "commit-axis-absent" in res.stderr and "no-commit-axis" not in res.stderr


def test_refusals(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_bytes((UPSTREAM / "planted-fact.recording.json").read_bytes())
    before = src.read_bytes()
    link = tmp_path / "link.json"
    os.symlink(src, link)
    hard = tmp_path / "hard.json"
    os.link(src, hard)
    for out in (src, link, hard, Path(str(tmp_path) + "/./in.json")):
        res = afp("record", str(src), "-o", str(out), "--force")
        assert res.exit_code == 2 and "input" in res.stderr
    assert src.read_bytes() == before
    existing = tmp_path / "exists.json"
    existing.write_text("keep")
    res = afp("record", str(src), "-o", str(existing))
    assert res.exit_code == 2 and "--force" in res.stderr
    assert existing.read_text() == "keep"
    assert afp("record", str(src), "-o", str(existing), "--force").exit_code == 0
    assert existing.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


BAD_INPUTS = {
    "empty": b"",
    "not-json": b"{nope",
    "truncated": b'{"snapshot": {"commitLog": [',
    "wrong-shape": b'{"hello": 1}',
    "bad-envelope": b'{"format": "agentfootprint.recording.v9", "recording": {}}',
    "capture-bad-flow": b'{"flow": "explode", "event": {}}\n',
    "capture-bad-line": b'{"flow": "runStart"}\n[1,2]\n',
    "capture-bad-commits": b'{"flow": "runStart", "commits": "3"}\n',
    "capture-two-kinds": b'{"flow": "runStart", "typed": {}}\n',
    "capture-bad-typed": b'{"typed": {"payload": {}}}\n',
    "capture-late-header": b'{"flow": "runStart"}\n{"afp": "capture"}\n',
    "capture-bad-json": b'{"flow": "runStart"}\n{"flow": \n',
    "not-gzip": b"\x1f\x8b\x08garbage",
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_inputs_one_line_exit_2(name: str, tmp_path: Path) -> None:
    src = tmp_path / f"{name}.json"
    src.write_bytes(BAD_INPUTS[name])
    out = tmp_path / "out.json"
    res = afp("record", str(src), "-o", str(out))
    assert res.exit_code == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("afp: ")
    assert "Traceback" not in res.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["record", "{src}", "-o", "{out}", "--detail", "medium"],
        ["record", "{src}", "-o", "-"],
        ["record", "{src}", "-o", "{dir}"],
        ["record", "{missing}", "-o", "{out}"],
        ["record", "{src}", "-o", "{dir}/no/such/dir/x.json"],
    ],
)
def test_bad_usage_one_line_exit_2(args: list[str], tmp_path: Path) -> None:
    fill = {
        "src": str(CAPTURE),
        "out": str(tmp_path / "o.json"),
        "dir": str(tmp_path),
        "missing": str(tmp_path / "missing.json"),
    }
    res = afp(*[a.format(**fill) for a in args])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_stdin_and_help(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["record", "-", "-o", str(tmp_path / "s.json")], input=CAPTURE.read_bytes()
    )
    assert res.exit_code == 0, res.stderr
    help_text = afp("record", "--help").stdout
    for needle in (
        "JSON Lines",
        '"flow"',
        '"typed"',
        '"commit"',
        "commits",
        "--max-events",
        "not redaction",
    ):
        assert needle in help_text


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_real_subprocess(tmp_path: Path) -> None:
    out = tmp_path / "sub.json"
    proc = subprocess.run(
        [sys.executable, "-m", "agentbisect", "record", str(CAPTURE), "-o", str(out)],
        capture_output=True,
        env=_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"" and b"ranges" in proc.stderr
    assert load(str(out)).shape == "recording"
    bad = subprocess.run(
        [sys.executable, "-m", "agentbisect", "record", str(tmp_path / "nope"), "-o", str(out)],
        capture_output=True,
        env=_env(),
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stderr.count(b"\n") == 1


def test_crash_mid_write_leaves_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "crash.json"
    env = _env()
    env["AFP_TEST_WRITE_DELAY"] = "30"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentbisect",
            "record",
            str(UPSTREAM / "composition.recording.json"),
            "-o",
            str(out),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 60
        # wait until the temp file holds the first half of the bytes
        while time.time() < deadline:
            temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            if temps and temps[0].stat().st_size > 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the writer never started")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists()
    # the orphaned temp file is hidden and never has the output's name
    assert all(p.name.startswith(".crash.json.") for p in tmp_path.iterdir())
