"""Every generated trace (tests/otlp_cases.py: each convention, each file form, each kind of
damage) through ``afp aggregate``, ``events``, ``bisect`` and ``record``: exit 0, or a clean
exit 2 with one ``afp:`` line on stderr naming the file — never a traceback."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import cli
from tests.otlp_cases import BYTE_DAMAGE, CORRUPTIONS, STYLES, Case, cases, named_cases

NAMED = named_cases()
# Damage that leaves nothing a reader could take for a trace: the file must be refused.
REFUSED = {
    "truncated",
    "bad-json-line",
    "empty-file",
    "whitespace-only",
    "not-an-object",
    "wrong-document",
    "trailing-garbage",
    "invalid-utf8",
    "no-spans",
    "no-span-id",
    "name-not-string",
    "events-not-list",
}


def _clean(res: Any, what: str, name: Path) -> None:
    """Exit 0, or exit 2 with exactly one ``afp:`` line naming the file; never a traceback."""
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"{what}: crashed") from res.exception
    assert res.exit_code in (0, 2), (what, res.exit_code, res.stderr)
    if res.exit_code == 2:
        lines = res.stderr.splitlines()
        assert len(lines) == 1, (what, res.stderr)
        assert lines[0].startswith("afp: ") and str(name) in lines[0], (what, lines[0])
        assert "Traceback" not in res.stderr


def _commands(f: Path, out: Path) -> list[list[str]]:
    return [
        ["aggregate", str(f), "--json"],
        ["events", str(f), "--format", "jsonl"],
        ["bisect", str(f), "--at-llm", "-1", "--json"],
        ["record", str(f), "-o", str(out), "--force", "--json"],
    ]


def test_the_named_cases_cover_every_style_and_damage() -> None:
    names = {c.name for c in NAMED}
    assert {f"{s}-basic" for s in STYLES} <= names
    assert {f"damage-{d}" for d in CORRUPTIONS} <= names
    assert len({c.data for c in NAMED}) == len(NAMED)  # no two cases are the same file
    # the same bytes on every call (a failure names a case that can be rebuilt and opened)
    assert [c.data for c in named_cases()] == [c.data for c in NAMED]


@pytest.mark.parametrize("case", NAMED, ids=[c.name for c in NAMED])
def test_named_case_never_crashes(case: Case, tmp_path: Path) -> None:
    f, extra = case.write(tmp_path)
    results = []
    for args in _commands(f, tmp_path / "out.json"):
        res = cli(*args, *extra)
        _clean(res, " ".join(args[:1]), f)
        results.append(res)
    codes = [res.exit_code for res in results]
    if case.damage in REFUSED:
        assert codes[0] == 2
    else:
        # well-formed JSON holding spans: damage inside is flagged, the run still loads
        assert codes == [0, 0, 0, 0] or (codes[0] == 0 and case.damage), codes
        out = json.loads(results[0].stdout)  # the first command: aggregate --json
        if case.damage:
            return
        # an undamaged run: every span was read (the counts of the runs the generator drew)
        assert out["run"]["llmCalls"] >= 1
        assert not {"malformed-attribute", "malformed-span-time", "orphan-spans"} & {
            x["flag"] for x in out["honestyFlags"]
        }


def test_byte_damage_is_refused_with_the_reason() -> None:
    assert REFUSED - set(CORRUPTIONS) == set()
    assert {d for d in BYTE_DAMAGE if d not in ("blank-lines-crlf", "byte-order-mark")} <= REFUSED


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_generated_trace_never_crashes(case: Case) -> None:
    limit = sys.getrecursionlimit()  # (the loader moves it; hypothesis wants it back)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            f, extra = case.write(Path(tmp))
            for args in _commands(f, Path(tmp) / "out.json")[:3]:
                _clean(cli(*args, *extra), args[0], f)
    finally:
        sys.setrecursionlimit(limit)


def test_a_trace_with_no_readable_llm_call_is_named_when_asked_for_one(tmp_path: Path) -> None:
    # (found by the generated cases: an LLM span whose attributes were lost, beside spans afp
    # does read) --at-llm on a run of no LLM call said so without naming the file
    real = (
        Path(__file__).parent.parent / "fixtures/otel/genai-1.3b0-current.tool-planted.otlp.jsonl"
    )
    lines = []
    for line in real.read_text().splitlines():
        doc = json.loads(line)
        for rs in doc.get("resourceSpans", []):
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    if span["name"].startswith("chat"):
                        span["attributes"] = []
        lines.append(json.dumps(doc))
    f = tmp_path / "no-llm.otlp.jsonl"
    f.write_text("\n".join(lines) + "\n")
    for args in (["bisect", str(f), "--at-llm", "-1"], ["call", str(f), "--at-llm", "0"]):
        res = cli(*args)
        assert res.exit_code == 2, res.output
        _clean(res, args[0], f)
        assert "no LLM call" in res.stderr
