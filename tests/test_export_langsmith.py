"""LangSmith exports (``fixtures/exports/langsmith.*``): a ``langsmith.schemas.Run`` tree written
with the SDK's own serializer, and what the real ``langsmith-fetch`` CLI wrote for that trace.
Every LLM call, tool call and token counted, the planted tool result on its suspect, ``afp
record`` giving back the same run, a flat list of runs read as the same tree, and bad input
refused in one line naming where and what."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbisect.core.errors import InputError
from agentbisect.importers import langsmith, load_bytes
from tests.conftest import afp_proc
from tests.export_cases import (
    EXPORTS,
    afp_json,
    check_counts,
    check_culprit,
    check_refused,
    check_round_trip,
    check_tool_events,
    json_values,
    truth,
)

RUN = "langsmith.refund-agent"
FILES = [EXPORTS / f for f in truth(RUN)["files"]]
TREE = EXPORTS / f"{RUN}.json"
FETCHED = [p for p in FILES if ".fetch" in p.name]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_call_tool_and_token_is_counted(path: Path) -> None:
    check_counts(path, truth(RUN))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_planted_tool_result_is_on_its_suspect(path: Path) -> None:
    check_culprit(path, truth(RUN))


@pytest.mark.parametrize("path", [TREE, *FETCHED], ids=lambda p: p.name)
def test_record_gives_back_the_same_run(path: Path, tmp_path: Path) -> None:
    check_round_trip(path, tmp_path)


def test_tools_and_documents_of_the_run_tree_are_read_whole() -> None:
    check_tool_events(TREE, truth(RUN))


def test_the_format_is_named(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    for path, form in [(TREE, "LangSmith run tree"), (FETCHED[0], "langsmith-fetch messages")]:
        proc = afp_proc("record", str(path), "-o", str(out), "--force")
        assert proc.returncode == 0, proc.stderr
        assert form in proc.stderr
        assert json.loads(out.read_text())["import"]["format"].startswith(form)


def _flat(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """The tree as ``client.list_runs`` gives it: every run on its own, linked by parent id."""
    out, stack = [], [tree]
    while stack:
        run = stack.pop()
        stack.extend(reversed(run.get("child_runs") or []))
        out.append({**run, "child_runs": None})
    return out


def test_a_flat_list_of_runs_is_the_same_tree(tmp_path: Path) -> None:
    flat = tmp_path / "runs.json"
    flat.write_text(json.dumps(_flat(json.loads(TREE.read_text()))))
    want = afp_json("aggregate", str(TREE), "--json")
    got = afp_json("aggregate", str(flat), "--json")
    assert got["run"] == want["run"]
    assert got["calls"] == want["calls"]


def test_several_traces_read_the_last_and_trace_id_picks_another(tmp_path: Path) -> None:
    tree = json.loads(TREE.read_text())
    other = json.loads(TREE.read_text())
    other["id"] = other["trace_id"] = "00000000-0000-4000-8000-000000000001"
    other["end_time"] = "2026-11-30T08:00:00+00:00"
    other["child_runs"] = other["child_runs"][:1]  # (its retrieval only)
    both = tmp_path / "both.json"
    both.write_text(json.dumps([other, tree]))
    default = afp_json("aggregate", str(both), "--json")
    assert default["run"]["llmCalls"] == 3
    assert "multiple-runs" in [f["flag"] for f in default["honestyFlags"]]
    picked = afp_json("aggregate", str(both), "--trace-id", other["id"], "--json")
    assert picked["run"]["llmCalls"] == 0


def _broken(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(TREE.read_text())
    change(doc)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("change", "json_path", "expected"),
    [
        (lambda d: d.update(child_runs={"a": 1}), "$.child_runs", "child_runs to be an array"),
        (lambda d: d.update(id=None), "$.id", "the run's id (a string)"),
        (lambda d: d["child_runs"].__setitem__(2, 7), "$.child_runs[2]", "a LangSmith run"),
        (
            lambda d: d["child_runs"][3].update(run_type=["tool"]),
            "$.child_runs[3].run_type",
            "run_type (a string: llm, tool",
        ),
        (
            lambda d: d["child_runs"][1].update(child_runs=[{"id": "x", "name": "n"}]),
            "$.child_runs[1].child_runs[0].run_type",
            "run_type",
        ),
        (lambda d: d.update(parent_run_id=5), "$.parent_run_id", "parent_run_id"),
    ],
)
def test_bad_input_is_one_line_naming_file_path_and_expectation(
    tmp_path: Path, change: Any, json_path: str, expected: str
) -> None:
    check_refused(_broken(tmp_path, change), json_path, expected)


def test_a_bad_fetched_message_is_named_by_its_index(tmp_path: Path) -> None:
    doc = json.loads(FETCHED[0].read_text())
    doc[4] = {"role": "tool", "content": "x"}  # (OpenAI's form: not what langsmith-fetch writes)
    path = tmp_path / "fetched.json"
    path.write_text(json.dumps(doc))
    check_refused(path, "$[4]", "a LangChain message")


_KEYS = [
    "id",
    "name",
    "run_type",
    "start_time",
    "end_time",
    "inputs",
    "outputs",
    "extra",
    "error",
    "status",
    "parent_run_id",
    "trace_id",
    "child_runs",
    "prompt_tokens",
    "completion_tokens",
]
runs = st.recursive(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["a", "b", "c"]) | json_values,
            "name": json_values,
            "run_type": st.sampled_from(["llm", "tool", "chain", "retriever", "prompt", "x"])
            | json_values,
        },
        optional={k: json_values for k in _KEYS[3:]},
    ),
    lambda kids: st.fixed_dictionaries(
        {
            "id": st.sampled_from(["r", "s"]),
            "name": st.just("run"),
            "run_type": st.sampled_from(["chain", "llm"]),
            "child_runs": st.lists(kids, max_size=3),
        }
    ),
    max_leaves=6,
)
messages = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["human", "ai", "tool", "system"]), "content": json_values},
        optional={
            "tool_calls": json_values,
            "tool_call_id": json_values,
            "usage_metadata": json_values,
        },
    )
    | st.fixed_dictionaries(
        {
            "lc": st.just(1),
            "type": st.just("constructor"),
            "id": st.sampled_from([["langchain", "schema", "messages", "AIMessage"], ["x"]]),
            "kwargs": json_values,
        }
    ),
    max_size=5,
)


@given(
    st.one_of(
        runs,
        st.lists(runs, max_size=3),
        messages,
        st.fixed_dictionaries({"messages": messages}, optional={"trace_id": json_values}),
        json_values,
    )
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_sniff_never_raises_and_the_reader_reads_or_raises_input_error(value: Any) -> None:
    data = json.dumps(value).encode()
    if not langsmith.sniff(data):  # (never raises)
        return
    with contextlib.suppress(InputError):  # (anything else fails the test)
        load_bytes(data, "any.json")
