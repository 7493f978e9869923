"""Langfuse trace exports (``fixtures/exports/langfuse.*``, made with the langfuse SDK's own
``TraceWithFullDetails`` model and serializer): every LLM call, tool call and token counted, the
planted tool result on its suspect, ``afp record`` giving back the same run, several traces in
one file, and bad input refused in one line naming where and what."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbisect.core.errors import InputError
from agentbisect.importers import langfuse, load_bytes
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

RUN = "langfuse.refund-agent"
FILES = [EXPORTS / f for f in truth(RUN)["files"]]
TRACE = EXPORTS / f"{RUN}.json"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_call_tool_and_token_is_counted(path: Path) -> None:
    check_counts(path, truth(RUN))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_planted_tool_result_is_on_its_suspect(path: Path) -> None:
    check_culprit(path, truth(RUN))


def test_record_gives_back_the_same_run(tmp_path: Path) -> None:
    check_round_trip(TRACE, tmp_path)


def test_the_format_is_named() -> None:
    proc = afp_proc("aggregate", str(TRACE), "-v")
    assert proc.returncode == 0, proc.stderr
    assert "as shape Langfuse trace export" in proc.stderr


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_tools_and_documents_are_read_whole(path: Path) -> None:
    # (@observe's {"args": [], "kwargs": {...}} is read as the keyword arguments, and the tools,
    # which Langfuse keeps no call id for, take the ids of the calls that asked for them)
    check_tool_events(path, truth(RUN))


def test_several_traces_read_the_last_and_trace_id_picks_another() -> None:
    listed = EXPORTS / f"{RUN}.list.json"
    other = json.loads(listed.read_text())[0]["id"]
    proc = afp_proc("aggregate", str(listed), "--trace-id", other, "--json")
    assert proc.returncode == 0, proc.stderr
    flags = [f["flag"] for f in json.loads(proc.stdout)["honestyFlags"]]
    assert "multiple-runs" not in flags
    default = afp_json("aggregate", str(listed), "--json")
    assert "multiple-runs" in [f["flag"] for f in default["honestyFlags"]]
    proc = afp_proc("aggregate", str(listed), "--trace-id", "nope", "--json")
    assert proc.returncode == 2
    assert "no trace 'nope'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _broken(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(TRACE.read_text())
    change(doc)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("change", "json_path", "expected"),
    [
        (lambda d: d.update(observations={"a": 1}), "$.observations", "observations (an array"),
        (lambda d: d.update(id=7), "$.id", "the trace's id (a string)"),
        (lambda d: d["observations"].__setitem__(2, "x"), "$.observations[2]", "an observation"),
        (lambda d: d["observations"][3].pop("id"), "$.observations[3].id", "observation's id"),
        (lambda d: d["observations"][1].update(type=5), "$.observations[1].type", "GENERATION"),
        (
            lambda d: d["observations"][4].update(parentObservationId=[1]),
            "$.observations[4].parentObservationId",
            "parentObservationId",
        ),
    ],
)
def test_bad_input_is_one_line_naming_file_path_and_expectation(
    tmp_path: Path, change: Any, json_path: str, expected: str
) -> None:
    check_refused(_broken(tmp_path, change), json_path, expected)


def test_a_list_naming_a_bad_trace_gives_its_index(tmp_path: Path) -> None:
    listed = json.loads((EXPORTS / f"{RUN}.list.json").read_text())
    listed[1]["observations"] = None
    path = tmp_path / "list.json"
    path.write_text(json.dumps(listed))
    check_refused(path, "$[1].observations", "observations")


def test_an_observations_page_names_a_bad_observation_by_its_index(tmp_path: Path) -> None:
    page = json.loads((EXPORTS / f"{RUN}.observations.json").read_text())
    del page["data"][1]["traceId"]
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page))
    check_refused(path, "$.data[1].traceId", "traceId (a string)")
    page["data"][1] = ["not", "an", "observation"]
    path.write_text(json.dumps(page))
    check_refused(path, "$.data[1]", "an observation")


_KEYS = [
    "id",
    "type",
    "name",
    "parentObservationId",
    "startTime",
    "endTime",
    "model",
    "input",
    "output",
    "usage",
    "usageDetails",
    "level",
    "metadata",
]
observations = st.lists(
    st.dictionaries(st.sampled_from(_KEYS), json_values, max_size=8)
    | st.fixed_dictionaries(
        {
            "id": st.sampled_from(["a", "b", "c"]),
            "type": st.sampled_from(["GENERATION", "TOOL", "RETRIEVER", "SPAN", "EVENT", "AGENT"]),
        },
        optional={k: json_values for k in _KEYS[2:]}
        | {"parentObservationId": st.sampled_from([None, "a", "b", "zz"])},
    ),
    max_size=5,
)
traces = st.fixed_dictionaries(
    {"id": json_values | st.just("t1"), "timestamp": json_values, "observations": observations},
    optional={"name": json_values, "input": json_values, "output": json_values},
)


pages = st.fixed_dictionaries(
    {"data": st.lists(st.fixed_dictionaries({"traceId": json_values | st.just("t")}), max_size=1)},
    optional={"meta": json_values},
).map(
    lambda p: {**p, "data": [{**o, "id": "a", "type": "SPAN", "startTime": "x"} for o in p["data"]]}
)


@given(st.one_of(traces, st.lists(traces, max_size=3), pages, json_values))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_sniff_never_raises_and_the_reader_reads_or_raises_input_error(value: Any) -> None:
    data = json.dumps(value).encode()
    claimed = langfuse.sniff(data)  # never raises
    if not claimed:
        return
    with contextlib.suppress(InputError):  # (anything else fails the test)
        load_bytes(data, "any.json")
