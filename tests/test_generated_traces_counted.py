"""Well-formed generated traces (tests/otlp_cases.py) in every convention and file form: the
whole-run row of ``afp aggregate`` counts exactly the LLM calls, tool calls and tokens the
generator put in the trace; without ``--trace-id`` the run whose root span ended last is
analysed; ``--json`` lists every trace of the file."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import cli
from tests.otlp_cases import Case, Counts, cases, named_cases

WELL_FORMED = [c for c in named_cases() if not c.damage]


def _aggregate(f: Path, extra: list[str], *opts: str) -> dict[str, Any]:
    res = cli("aggregate", str(f), "--json", *opts, *extra)
    assert res.exit_code == 0, res.stderr
    out: dict[str, Any] = json.loads(res.stdout)
    return out


def _row(out: dict[str, Any]) -> tuple[int, int, int, int]:
    run = out["run"]
    return run["llmCalls"], run["toolCalls"], run["tokens"]["input"], run["tokens"]["output"]


def _want(c: Counts) -> tuple[int, int, int, int]:
    return c.llm, c.tools, c.tokens_in, c.tokens_out


def check(case: Case, where: Path) -> None:
    f, extra = case.write(where)
    out = _aggregate(f, extra)
    listed = [t["traceId"] for t in out["traces"]]
    assert sorted(listed) == sorted(case.traces)
    last = max(range(len(case.counts)), key=lambda i: case.counts[i].last_end)
    assert _row(out) == _want(case.counts[last])
    if len(case.traces) > 1:
        assert "multiple-runs" in {x["flag"] for x in out["honestyFlags"]}
        for trace, want in zip(case.traces, case.counts, strict=True):
            assert _row(_aggregate(f, extra, "--trace-id", trace)) == _want(want)


@pytest.mark.parametrize("case", WELL_FORMED, ids=[c.name for c in WELL_FORMED])
def test_named_case_counted_exactly(case: Case, tmp_path: Path) -> None:
    assert case.counts and len(case.counts) == len(case.traces)
    check(case, tmp_path)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(damaged=False))
def test_generated_trace_counted_exactly(case: Case) -> None:
    limit = sys.getrecursionlimit()  # (the loader moves it; hypothesis wants it back)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            check(case, Path(tmp))
    finally:
        sys.setrecursionlimit(limit)
