"""``afp aggregate`` on OTLP traces: the fast path and the full path write the same bytes.

``agentbisect.importers.otlp_aggregate.fast_result`` answers ``aggregate`` straight from the trace
(None: not handled); the full path imports the trace into a recording, builds the ``Run`` and
aggregates it. For every generated trace (tests/otlp_cases.py) and every file in fixtures/otel,
each option set is run twice through the CLI — once with ``otlp_aggregate.ENABLED`` False (the
full path) and once True — and exit code, stdout, stderr and any ``-o`` file must be identical.
A spy on ``fast_result`` counts the runs it answered, so the test cannot pass by never taking
the fast path: it must answer ``--json`` on the cases marked ``fast_family`` (the benchmark's
trace at four sizes, and well-formed current-GenAI traces of one run, content on the spans, no
attribute beyond the conventions', uncompressed JSON Lines or one document); how many runs it
answered in all is printed by ``test_tally`` (``pytest -s``). Skipped until the module exists.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from agentbisect.cli.app import app
from tests.conftest import ROOT, afp_proc
from tests.otlp_cases import Case, bench_case, cases, named_cases

otlp_aggregate = pytest.importorskip("agentbisect.importers.otlp_aggregate")

COLUMNS = "100"
NAMED = named_cases()
OTEL = ROOT / "fixtures" / "otel"
# The log records of these fixture traces are in a second file (``--logs``).
LOGS = {p.name.replace(".logs.otlp.json", ".otlp.json"): p for p in OTEL.glob("*.logs.otlp.json")}
# Every input file there (the .truth.json files describe them: not inputs).
FIXTURES = sorted(
    p
    for p in OTEL.iterdir()
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".truth.json")
)


class Spy:
    """How often ``fast_result`` was asked, and how often it answered (returned non-None)."""

    def __init__(self) -> None:
        self.asked = 0
        self.answered = 0


@contextlib.contextmanager
def spying() -> Iterator[tuple[Spy, pytest.MonkeyPatch]]:
    """Wrap ``fast_result`` (wherever the command may have bound it) for the duration."""
    spy = Spy()
    real = otlp_aggregate.fast_result

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        spy.asked += 1
        if out is not None:
            spy.answered += 1
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(otlp_aggregate, "fast_result", wrapped)
        command = importlib.import_module("agentbisect.commands.aggregate")
        if getattr(command, "fast_result", None) is real:
            mp.setattr(command, "fast_result", wrapped)
        yield spy, mp


Outcome = tuple[int, bytes, bytes, bytes | None]


def _invoke(args: list[str], stdin: bytes | None, out: Path | None) -> Outcome:
    if out is not None and out.exists():
        out.unlink()
    res = CliRunner().invoke(app, ["aggregate", *args], input=stdin, env={"COLUMNS": COLUMNS})
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"afp aggregate {args} crashed") from res.exception
    written = out.read_bytes() if out is not None and out.exists() else None
    return res.exit_code, res.stdout_bytes, res.stderr_bytes, written


def agree(
    spy: Spy,
    mp: pytest.MonkeyPatch,
    args: list[str],
    stdin: bytes | None = None,
    out: Path | None = None,
) -> tuple[Outcome, bool]:
    """Run ``afp aggregate ARGS`` on the full path, then with the fast path allowed; assert the
    two agree byte for byte. Returns the outcome and whether the fast path answered."""
    mp.setattr(otlp_aggregate, "ENABLED", False)
    before = spy.answered
    full = _invoke(args, stdin, out)
    assert spy.answered == before, f"fast path answered with ENABLED False: {args}"
    mp.setattr(otlp_aggregate, "ENABLED", True)
    fast = _invoke(args, stdin, out)
    took = spy.answered > before
    if fast != full:
        raise AssertionError(
            f"afp aggregate {args}: fast path (answered: {took}) differs\n" + _diff(full, fast)
        )
    return full, took


def _diff(full: Outcome, fast: Outcome) -> str:
    """Where two outcomes differ: each differing part as a short unified diff (full → fast)."""
    out = []
    for name, a, b in zip(("exit code", "stdout", "stderr", "-o file"), full, fast, strict=True):
        if a == b:
            continue
        if not isinstance(a, bytes) or not isinstance(b, bytes):
            out.append(f"{name}: {a!r} (full) != {b!r} (fast)")
            continue
        lines = difflib.unified_diff(
            a.decode(errors="replace").splitlines(),
            b.decode(errors="replace").splitlines(),
            "full",
            "fast",
            lineterm="",
            n=2,
        )
        out.append(f"{name}:\n" + "\n".join(list(lines)[:60]))
    return "\n".join(out)


def _groups(full_json: bytes) -> list[str]:
    """Group ids (and one shown name) to ``--drill`` into: the root, the deepest, the first."""
    try:
        doc = json.loads(full_json)
    except ValueError:
        return []
    aggs = doc.get("aggregates") or []
    picks = ["__root__#0"]
    if aggs:
        deepest = max(aggs, key=lambda a: len(a.get("subflowPath", [])))
        picks += [deepest["runtimeStageId"], aggs[0]["label"]]
    return list(dict.fromkeys(picks))


def option_sets(traces: list[str], full_json: bytes, out: Path, small: bool) -> list[list[str]]:
    """The options each case is run with (file arguments added by the caller)."""
    sets: list[list[str]] = [["--json"], [], ["--all"]]
    if not small:
        sets += [
            ["--all", "--json"],
            ["--format", "table", "--verbose"],
            ["--format", "json", "-o", str(out)],
            ["--drill", "no-such-group", "--json"],
        ]
    for group in _groups(full_json)[: 1 if small else 3]:
        sets += [["--drill", group, "--json"], ["--drill", group]]
    if len(traces) > 1:
        for trace in traces[: 1 if small else 2]:
            sets += [["--trace-id", trace, "--json"], ["--trace-id", trace.upper()]]
        sets.append(["--trace-id", "0" * 32])
    return sets


def check_case(case: Case, where: Path, small: bool = False) -> tuple[int, int, bool]:
    """Every option set on ``case`` (fewer if ``small``, damaged or big: the suite's time);
    (runs, runs the fast path answered, whether it answered ``--json``)."""
    # (damaged files: --json, the table, --all and one --drill — where a fast path would wrongly
    # accept damage, these show it)
    small = small or len(case.data) > 200_000 or bool(case.damage)
    f, extra = case.write(where)
    return check_file(f, extra, case.traces, where / "out.json", small, stdin=case.data)


def check_file(
    f: Path,
    extra: list[str],
    traces: list[str],
    out: Path,
    small: bool,
    stdin: bytes | None = None,
) -> tuple[int, int, bool]:
    runs = answered = 0
    with spying() as (spy, mp):
        (code, full_json, _, _), json_took = agree(spy, mp, [str(f), "--json", *extra])
        runs, answered = 1, int(json_took)
        for opts in option_sets(traces, full_json if code == 0 else b"", out, small)[1:]:
            _, took = agree(spy, mp, [str(f), *opts, *extra], out=out if "-o" in opts else None)
            runs, answered = runs + 1, answered + took
        if stdin is not None and not small:
            _, took = agree(spy, mp, ["-", "--json", *extra], stdin=stdin)
            runs, answered = runs + 1, answered + took
        if extra and not small:  # the same file without its log records
            _, took = agree(spy, mp, [str(f), "--json"])
            runs, answered = runs + 1, answered + took
    return runs, answered, json_took


TALLY: dict[str, list[int]] = {
    "named": [0, 0, 0],
    "fixtures": [0, 0, 0],
    "hypothesis": [0, 0, 0],
    "hypothesis-plain": [0, 0, 0],
}


def _tally(kind: str, runs: int, answered: int) -> None:
    t = TALLY[kind]
    t[0], t[1], t[2] = t[0] + 1, t[1] + runs, t[2] + answered


@pytest.mark.parametrize("case", NAMED, ids=[c.name for c in NAMED])
def test_named_case_paths_agree(case: Case, tmp_path: Path) -> None:
    runs, answered, json_took = check_case(case, tmp_path)
    _tally("named", runs, answered)
    if case.fast_family:
        # the family the fast path exists for: it must answer here, or this test proves nothing
        assert json_took, f"{case.name}: the fast path did not answer afp aggregate --json"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_paths_agree(path: Path, tmp_path: Path) -> None:
    extra = ["--logs", str(LOGS[path.name])] if path.name in LOGS else []
    traces: list[str] = []
    if "two-traces" in path.name:
        truth = json.loads((OTEL / (path.name.split(".otlp")[0] + ".truth.json")).read_text())
        traces = [t["trace_id"] for t in truth["traces"]]
        assert len(traces) == 2
    runs, answered, _ = check_file(path, extra, traces, tmp_path / "out.json", small=False)
    _tally("fixtures", runs, answered)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_generated_trace_paths_agree(case: Case) -> None:
    limit = sys.getrecursionlimit()  # (the loader moves it; hypothesis wants it back)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs, answered, _ = check_case(case, Path(tmp), small=True)
        _tally("hypothesis", runs, answered)
    finally:
        sys.setrecursionlimit(limit)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(plain=True))
def test_generated_plain_trace_paths_agree(case: Case) -> None:
    """The family the fast path takes, varied (sizes, windows, parallel calls, ids, retrieval,
    embeddings, odd text, file forms): every option set, not only the small ones."""
    limit = sys.getrecursionlimit()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs, answered, _ = check_case(case, Path(tmp))
        _tally("hypothesis-plain", runs, answered)
    finally:
        sys.setrecursionlimit(limit)


def test_a_real_process_agrees_with_the_full_path(tmp_path: Path) -> None:
    """``python -m agentbisect aggregate --json`` (fast path on, as a user runs it) against the
    in-process full path, on the benchmark's trace and on a plain current-GenAI trace."""
    for case in (bench_case(201), next(c for c in NAMED if c.name == "genai-plain-1")):
        f = tmp_path / f"{case.name}.otlp.jsonl"
        f.write_bytes(case.data)
        proc = afp_proc("aggregate", "--json", str(f), text=False)
        with spying() as (spy, mp):
            mp.setattr(otlp_aggregate, "ENABLED", False)
            full = _invoke(["--json", str(f)], None, None)
            assert spy.answered == 0
        assert (proc.returncode, proc.stdout, proc.stderr) == full[:3]
        assert json.loads(proc.stdout)["run"]["llmCalls"] >= 1


def test_tally(capsys: pytest.CaptureFixture[str]) -> None:
    """How many cases and runs the fast path answered, printed for the record (this runs after
    the tests above, in file order); the named cases include its family, so some must be."""
    if not TALLY["named"][0]:
        pytest.skip("the named cases did not run in this session")
    with capsys.disabled():
        for kind, (n, runs, answered) in TALLY.items():
            print(f"\n[paths-agree] {kind}: {n} cases, {runs} runs, fast path answered {answered}")
    assert TALLY["named"][2] > 0
