"""The floor benchmark's programs compute what they claim (``benchmarks/otlp_floor.py``): the
minimal facts program (c) agrees with ``afp aggregate --json`` on a generated trace — also when
a key it does not list sends lines down its general path — and (b) finds every span. Nothing here
is timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import otlp_floor  # noqa: E402
import otlp_gen  # noqa: E402


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("floor") / "trace.otlp.jsonl"
    otlp_gen.write(1201, path)  # three export requests (512 spans each)
    return path


def _facts(path: Path, mode: str = "facts") -> Any:
    out = subprocess.run(
        [sys.executable, otlp_floor.FACTS, mode, str(path)], capture_output=True, check=True
    )
    return json.loads(out.stdout)


def test_facts_agree_with_afp_aggregate(trace: Path) -> None:
    said = otlp_floor.check(trace, str(trace.parent))
    assert "600 LLM calls, 600 tool calls" in said
    facts = _facts(trace)
    assert facts["spans"] == 1201
    assert [b["name"] for b in facts["boundaries"]] == ["support"]
    assert facts["boundaries"][0]["llmCalls"] == facts["run"]["llmCalls"] == 600
    starts = [c["start"] for c in facts["llmCalls"]]
    assert starts == sorted(starts)


def test_an_unlisted_key_takes_the_general_path_to_the_same_facts(
    trace: Path, tmp_path: Path
) -> None:
    data = trace.read_bytes()
    odd = data.replace(
        b'{"key":"gen_ai.tool.name"',
        b'{"key":"custom.key","value":{"intValue":"7"}},{"key":"gen_ai.tool.name"',
    )
    assert odd != data
    path = tmp_path / "odd.otlp.jsonl"
    path.write_bytes(odd)
    assert _facts(path) == _facts(trace)


def test_a_disagreement_is_reported(trace: Path, tmp_path: Path) -> None:
    # the check must be able to fail: a trace whose tool is renamed for afp only
    fake = tmp_path / "facts.py"
    fake.write_text(
        "import json,subprocess,sys\n"
        f"out=subprocess.run([sys.executable,{otlp_floor.FACTS!r}]+sys.argv[1:],"
        "capture_output=True).stdout\n"
        "d=json.loads(out); d['toolCalls'][0]['name']='other'\n"
        "print(json.dumps(d))\n"
    )
    old = otlp_floor.FACTS
    otlp_floor.FACTS = str(fake)
    try:
        with pytest.raises(SystemExit, match="tool names"):
            otlp_floor.check(trace, str(trace.parent))
    finally:
        otlp_floor.FACTS = old


def test_facts_inputs_add_only_the_source_counts(trace: Path) -> None:
    out = subprocess.run(
        [sys.executable, otlp_floor.FACTS, "facts-inputs", str(trace)],
        capture_output=True,
        check=True,
    )
    with_inputs = json.loads(out.stdout)
    counts = [c.pop("sources") for c in with_inputs["llmCalls"]]
    plain = _facts(trace)
    assert all(c.pop("sources") is None for c in plain["llmCalls"])
    assert with_inputs == plain
    # one user message, then up to six messages of history (one part each), plus one system part
    assert counts[0] == 2 and max(counts) == 7


def test_raw_finds_every_span(trace: Path) -> None:
    out = subprocess.run(
        [sys.executable, otlp_floor.FACTS, "raw", str(trace)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "1201"
