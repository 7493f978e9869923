"""Multi-agent histories in the two forms of the Who&When benchmark's logs, end to end.

Hand-crafted logs (Magentic-One) put ``history`` first, with any role: ``human``,
``Orchestrator (thought)``, ``Orchestrator (-> WebSurfer)``, ``WebSurfer``. Algorithm-generated
logs (CaptainAgent) put the question (often thousands of bytes) first, give each entry a ``name``
beside a role of ``assistant`` or ``user``, and keep each agent's system prompt. Both count steps
by 0-based position (``mistake_step``). The texts here are this project's own, in those shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers.transcript import sniff
from agentbisect.importers.transcript_import import import_transcript
from tests.conftest import afp_proc

HAND_CRAFTED: dict[str, Any] = {
    "history": [
        {"content": "Which ferry leaves Harbor Point after 6 pm on Sundays?\n", "role": "human"},
        {
            "content": "Initial plan: ask WebSurfer for the timetable.",
            "role": "Orchestrator (thought)",
        },
        {
            "content": "Please open the Harbor Point ferry timetable.",
            "role": "Orchestrator (-> WebSurfer)",
        },
        {
            "content": "The timetable page says: Sunday departures 17:10 and 18:40 (the Gull).",
            "role": "WebSurfer",
        },
        {"content": "Next speaker WebSurfer", "role": "Orchestrator (thought)"},
        {
            "content": "I scrolled down: the 18:40 Gull does not run in winter.",
            "role": "WebSurfer",
        },
        {
            "content": "The Gull leaves Harbor Point at 18:40 on Sundays.",
            "role": "Orchestrator (final answer)",
        },
    ],
    "question": "Which ferry leaves Harbor Point after 6 pm on Sundays?",
    "ground_truth": "None in winter",
    "is_corrected": False,
    "mistake_agent": "WebSurfer",
    "mistake_step": "3",
    "mistake_reason": "It read the summer timetable.",
}


_AGENTS = ["human", "Orchestrator", "Orchestrator", "WebSurfer", "Orchestrator", "WebSurfer"]


def _algorithm_generated() -> dict[str, Any]:
    question = "A depot ships crates of 12 kg. " * 200  # ~6 KB before the history
    return {
        "is_correct": False,
        "question": question,
        "question_ID": "0f0e-demo",
        "level": "2",
        "ground_truth": "14",
        "history": [
            {
                "content": "Plan: load the manifest and count crates over 100 kg.",
                "role": "assistant",
                "name": "Logistics_Expert",
            },
            {
                "content": "exitcode: 0 (execution succeeded)\nCode output: 41\n",
                "name": "Computer_terminal",
                "role": "user",
            },
            {
                "content": "The count of heavy crates is 41.",
                "name": "Verification_Expert",
                "role": "user",
            },
            {"content": "TERMINATE", "name": "Verification_Expert", "role": "user"},
        ],
        "mistake_agent": "Logistics_Expert",
        "mistake_step": 0,
        "mistake_reason": "Counted crates, not pallets.",
        "system_prompt": {
            "Logistics_Expert": "## Your role\nLogistics_Expert counts shipments.",
            "Verification_Expert": "## Your role\nVerification_Expert checks results.",
        },
    }


def _write(tmp_path: Path, doc: Any, indent: int | None = 4) -> str:
    p = tmp_path / "log.json"
    p.write_text(json.dumps(doc, indent=indent))
    return str(p)


def _events(path: str) -> list[dict[str, Any]]:
    proc = afp_proc("events", path, "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_a_hand_crafted_log_opens_with_one_step_per_entry_numbered_by_position(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, HAND_CRAFTED)
    llm = [e["runtimeStageId"] for e in _events(path) if e["type"] == "llm.end"]
    assert llm == [
        "human#0",
        "Orchestrator#1",
        "Orchestrator#2",
        "WebSurfer#3",
        "Orchestrator#4",
        "WebSurfer#5",
        "Orchestrator#6",
    ]
    agg = json.loads(afp_proc("aggregate", path, "--json").stdout)
    rows = {(a["label"], a["llmCalls"]) for a in agg["aggregates"]}
    assert {("human", 1), ("WebSurfer", 1), ("Orchestrator", 2)} <= rows


def test_the_mistake_step_is_a_step_to_bisect_at(tmp_path: Path) -> None:
    # Who&When says the mistake is step 3 (WebSurfer); the answer at step 6 repeats its "18:40".
    path = _write(tmp_path, HAND_CRAFTED)
    proc = afp_proc("bisect", path, "--at-step", "Orchestrator#6", "--json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    sources = [s["source"] for s in report["suspects"]]
    # Every earlier entry is a suspect under its own step id (the ranking is a proxy).
    assert set(sources) == {f"{who}#{i}" for i, who in enumerate(_AGENTS[:6])}, sources
    assert afp_proc("bisect", path, "--at-step", "WebSurfer#3", "--json").returncode == 0


def test_an_algorithm_generated_log_opens_whatever_its_key_order(tmp_path: Path) -> None:
    doc = _algorithm_generated()
    data = json.dumps(doc, indent=4).encode()
    assert data.index(b'"history"') > 4096  # past what a sniff looks at first
    assert sniff(data)
    r = import_transcript("log.json", data)
    assert r.llm_steps == [
        "Logistics_Expert#0",
        "Computer_terminal#1",
        "Verification_Expert#2",
        "Verification_Expert#3",
    ]
    path = _write(tmp_path, doc)
    proc = afp_proc("bisect", path, "--at-step", "Verification_Expert#2", "--json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    sources = {s["source"] for s in report["suspects"]}
    assert {"Logistics_Expert#0", "Computer_terminal#1"} <= sources
    # Each agent's own system prompt is a source of its own steps.
    texts = [s["detail"].get("text", "") for s in report["suspects"] if s["kind"] == "injection"]
    assert "Verification_Expert checks results." in texts


def test_a_history_entry_that_is_not_an_object_is_named_with_its_path(tmp_path: Path) -> None:
    doc = {"history": [{"role": "human", "content": "hi"}, {"role": "bot", "content": "yo"}, 3]}
    proc = afp_proc("events", _write(tmp_path, doc))
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "at $.history[2]: expected a history entry: an object with a role or name (text), not 3"
    )


def test_a_message_with_an_unknown_role_is_named_with_its_value_and_path(tmp_path: Path) -> None:
    doc = {"messages": [{"role": "user", "content": "hi"}, {"role": "wizard", "content": "x"}]}
    proc = afp_proc("events", _write(tmp_path, doc))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "at $.messages[1].role:" in line and "not 'wizard'" in line
    assert len(proc.stderr.splitlines()) == 1


names = st.text(min_size=1, max_size=12).filter(lambda t: t.strip() and t not in ("system",))


@given(
    st.lists(st.tuples(names, st.text(max_size=30), st.booleans()), min_size=1, max_size=12),
    st.dictionaries(st.sampled_from(["question", "zeta", "a"]), st.text(max_size=20)),
)
@settings(max_examples=60, deadline=None)
def test_any_roles_and_names_give_one_step_per_entry(
    entries: list[tuple[str, str, bool]], extra: dict[str, str]
) -> None:
    history = [
        {"role": "user", "name": who, "content": text} if named else {"role": who, "content": text}
        for who, text, named in entries
    ]
    history = [h for h in history if h["role"] not in ("developer",)]
    if not history:
        return
    doc = {**extra, "history": history}  # (the history after other keys, or alone)
    data = json.dumps(doc).encode()
    assert sniff(data)
    r = import_transcript("h.json", data)
    numbers = [int(step.rpartition("#")[2]) for step in r.llm_steps]
    assert numbers == list(range(len(history)))
