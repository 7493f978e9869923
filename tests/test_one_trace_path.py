"""The one way a trace is read (issue 22) is right where the deleted fast copies were wrong:

1. a non-LLM span (embeddings, retrieval, an unknown operation) carrying ``gen_ai.input.messages``
   changes no LLM call's reads or commits: its content is not an LLM call's (the conventions read
   message content of LLM spans only), so the run is as if the span carried none;
2. token totals past 2^63 are summed exactly (Python ints), never wrapped (past 2^53 a sum is
   upstream's sequence of double additions, exact whenever the doubles hold it);
3. a file truncated while it is read gives a clean result or a one-line input error (exit 2),
   never a crash;
4. ``afp aggregate`` on a FIFO reads what the writer writes, as from stdin, and does not hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agentbisect.importers import open_run
from tests.conftest import ROOT, afp_proc, cli
from tests.otel_build import export, span

sys.path.insert(0, str(ROOT / "benchmarks"))
import otlp_gen


def _msgs(*texts: str) -> str:
    return json.dumps([{"role": "user", "parts": [{"type": "text", "content": t}]} for t in texts])


def _chat(sid: str, start: int, inputs: str, answer: str, **extra: Any) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.input.messages": inputs,
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
        ),
        **extra,
    }
    return span(sid, "chat gpt-4o", start, start + 5, attrs, parent="a0")


def _trace(side_messages: bool) -> list[dict[str, Any]]:
    side = _msgs("Where is order 7?", "It shipped.") if side_messages else None
    spans = [
        span("a0", "invoke_agent helper", 0, 100, {"gen_ai.operation.name": "invoke_agent"}),
        _chat("c1", 1, _msgs("Where is order 7?"), "Let me look."),
    ]
    for k, op in enumerate(("embeddings", "retrieval", "summarize_things")):
        attrs: dict[str, Any] = {"gen_ai.operation.name": op}
        if side is not None:
            attrs["gen_ai.input.messages"] = side
        spans.append(span(f"s{k}", f"{op} x", 10 + 5 * k, 12 + 5 * k, attrs, parent="a0"))
    spans.append(_chat("c2", 40, _msgs("Where is order 7?", "It shipped."), "It shipped."))
    return spans


def _commits_of_llm_calls(path: Path) -> dict[str, Any]:
    run = open_run(str(path))
    log = run.commit_log
    return {
        "llm": run.llm_call_ids,
        "reads": {i: run.reads_of.get(i, []) for i in run.llm_call_ids},
        "commits": len(log.bundles) if hasattr(log, "bundles") else len(list(log)),
        "rows": json.loads(cli("aggregate", str(path), "--json").stdout)["run"],
    }


def test_non_llm_spans_messages_change_no_llm_call(tmp_path: Path) -> None:
    with_side = tmp_path / "side.otlp.json"
    without = tmp_path / "plain.otlp.json"
    with_side.write_text(json.dumps(export(_trace(True))))
    without.write_text(json.dumps(export(_trace(False))))
    got, want = _commits_of_llm_calls(with_side), _commits_of_llm_calls(without)
    assert len(want["llm"]) == 2
    assert got == want


def test_token_totals_past_2_63_are_exact(tmp_path: Path) -> None:
    # Each count within what a recording may hold (≤ 2^53; larger ones are left out of totals,
    # with a flag), their sum far past 2^63.
    big, calls = 2**53, 1100
    spans = [
        span(
            "a0",
            "invoke_agent helper",
            0,
            10 * calls + 10,
            {"gen_ai.operation.name": "invoke_agent"},
        )
    ]
    for k in range(calls):
        usage = {"gen_ai.usage.input_tokens": big, "gen_ai.usage.output_tokens": big - k}
        spans.append(_chat(f"c{k}", 10 * k + 1, _msgs("a"), "b", **usage))
    f = tmp_path / "big.otlp.json"
    f.write_text(json.dumps(export(spans)))
    res = cli("aggregate", str(f), "--json")
    assert res.exit_code == 0, res.stderr
    run = json.loads(res.stdout)["run"]
    assert run["llmCalls"] == calls
    assert calls * big > 2**63  # past a signed 64-bit integer (wrapped, it turns negative)
    assert run["tokens"]["input"] == calls * big
    # Counts that no double holds exactly are summed as upstream's fold sums them (sequential
    # double additions, model/boundary/rollup.py): still never wrapped.
    fold = 0.0
    for k in range(calls):
        fold += big - k
    assert run["tokens"]["output"] == int(fold) > 2**63


def _bench_trace(spans: int, batch: int) -> bytes:
    return otlp_gen.encode(otlp_gen.generate(spans), batch=batch)


def _one_line_error_or_result(res: subprocess.CompletedProcess[str], name: str) -> None:
    assert res.returncode in (0, 2), (res.returncode, res.stderr[-2000:])
    if res.returncode == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and name in lines[0], res.stderr
        assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    else:
        assert json.loads(res.stdout)["run"]["llmCalls"] >= 0


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.999])
def test_a_truncated_trace_reads_cleanly(tmp_path: Path, keep: float) -> None:
    data = _bench_trace(201, 2)
    f = tmp_path / "cut.otlp.jsonl"
    f.write_bytes(data[: int(len(data) * keep)])  # cut inside a line
    _one_line_error_or_result(afp_proc("aggregate", "--json", str(f)), str(f))


def test_a_trace_truncated_while_it_is_read_never_crashes(tmp_path: Path) -> None:
    data = _bench_trace(4001, 2)
    f = tmp_path / "shrinking.otlp.jsonl"
    for delay in (0.0, 0.05, 0.2, 0.5):
        f.write_bytes(data)
        proc = subprocess.Popen(
            [sys.executable, "-m", "agentbisect", "aggregate", "--json", str(f)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        time.sleep(delay)
        with open(f, "r+b") as fh:  # truncated in place, as a rotating log would be
            fh.truncate(len(data) // 3)
        out, err = proc.communicate(timeout=120)
        res = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        _one_line_error_or_result(res, str(f))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_aggregate_reads_a_fifo_like_stdin(tmp_path: Path) -> None:
    data = _bench_trace(401, 2)
    plain = tmp_path / "plain.otlp.jsonl"
    plain.write_bytes(data)
    fifo = tmp_path / "pipe.otlp.jsonl"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "wb") as fh:  # blocks until afp opens it for reading
            for k in range(0, len(data), 7000):
                fh.write(data[k : k + 7000])
                fh.flush()
                time.sleep(0.001)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    res = afp_proc("aggregate", "--json", str(fifo), timeout=60)
    t.join(timeout=10)
    assert res.returncode == 0, res.stderr
    want = afp_proc("aggregate", "--json", str(plain))
    assert json.loads(res.stdout)["run"] == json.loads(want.stdout)["run"]
