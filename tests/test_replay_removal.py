"""The one removal (``bisect.causal.removal``) per source kind, the rerun helper built on it, and
``"skipped"`` in the rerun protocol's answer (issue 24)."""

from __future__ import annotations

import copy
import io
import json
import sys

import pytest

from agentbisect.bisect import rerun
from agentbisect.bisect.causal.removal import OUTPUT_PLACEHOLDER, TOOL_PLACEHOLDER, apply
from agentbisect.bisect.causal.rerun import parse_answer
from tests.conftest import PLANTED, afp_proc

MESSAGES = [
    {"role": "system", "content": "You are Ada.\n\nToday is Monday."},
    {"role": "system", "content": "Context:\n\n[kb-1] Boots: 90 days.\n\n[kb-2] Refunds: 5 days."},
    {"role": "user", "content": "Can I return my boots? Notes: [kb-9] Sale items are final."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "policy", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "order NW-1"},
    {"role": "tool", "tool_call_id": "c2", "content": "footwear: 90 days"},
    {"role": "assistant", "content": "Checking the policy."},
]


def test_tool_result_becomes_a_placeholder_and_keeps_the_pairing() -> None:
    before = copy.deepcopy(MESSAGES)
    out, skipped = apply(
        [{"kind": "tool", "ignoredTools": ["policy"], "toolCallIds": ["c2"]}], MESSAGES
    )
    assert skipped == [] and before == MESSAGES  # the input is not changed
    assert out[5] == {"role": "tool", "tool_call_id": "c2", "content": TOOL_PLACEHOLDER}
    assert out[4]["content"] == "order NW-1" and len(out) == len(MESSAGES)
    # every tool call still has its result
    calls = {c["id"] for m in out for c in m.get("tool_calls", [])}
    assert calls == {m["tool_call_id"] for m in out if m["role"] == "tool"}


def test_a_tool_by_name_removes_every_call_of_it() -> None:
    out, skipped = apply([{"kind": "tool", "ignoredTools": ["lookup"]}], MESSAGES)
    assert skipped == [] and out[4]["content"] == TOOL_PLACEHOLDER
    assert out[5]["content"] == "footwear: 90 days"


def test_a_system_prompt_part_is_cut_from_its_message() -> None:
    spec = {
        "kind": "injection",
        "excludeInjectionIds": ["system-instructions.p2"],
        "text": "Today is Monday.",
    }
    out, skipped = apply([spec], MESSAGES)
    assert skipped == [] and out[0]["content"] == "You are Ada."


def test_a_document_is_cut_wherever_it_was_placed_but_the_user_message_stays() -> None:
    doc = {
        "kind": "injection",
        "excludeInjectionIds": ["kb-9"],
        "text": "[kb-9] Sale items are final.",
    }
    out, skipped = apply([doc], MESSAGES)
    assert skipped == [] and out[2] == {"role": "user", "content": "Can I return my boots? Notes: "}
    kb1 = {"kind": "injection", "excludeInjectionIds": ["kb-1"], "text": "[kb-1] Boots: 90 days."}
    out, _ = apply([kb1], MESSAGES)
    assert out[1]["content"] == "Context:\n\n[kb-2] Refunds: 5 days."


def test_a_system_message_left_empty_goes() -> None:
    specs = [
        {"kind": "injection", "excludeInjectionIds": ["p1"], "text": "You are Ada."},
        {"kind": "injection", "excludeInjectionIds": ["p2"], "text": "Today is Monday."},
    ]
    out, skipped = apply(specs, MESSAGES)
    assert skipped == [] and len(out) == len(MESSAGES) - 1 and out[0]["role"] == "system"
    assert out[0]["content"].startswith("Context:")


def test_an_earlier_output_becomes_a_placeholder_its_tool_calls_kept() -> None:
    out, skipped = apply([{"kind": "stage", "source": "chat#4", "messageIndex": 3}], MESSAGES)
    assert skipped == [] and out[3]["content"] == OUTPUT_PLACEHOLDER
    assert len(out[3]["tool_calls"]) == 2
    out, skipped = apply(
        [{"kind": "stage", "source": "chat#6", "text": "Checking the policy."}], MESSAGES
    )
    assert skipped == [] and out[6]["content"] == OUTPUT_PLACEHOLDER


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "arg", "source": "message:user.2#2", "messageIndex": 2, "role": "user"},
        {"kind": "injection", "excludeInjectionIds": ["vip-fact"]},  # no text: nothing to cut
        {"kind": "injection", "excludeInjectionIds": ["x"], "text": "not in any message"},
        {"kind": "tool", "ignoredTools": ["never_called"]},
        {"kind": "stage", "source": "chat#2"},  # no message named
        {"kind": "stage", "source": "chat#2", "messageIndex": 2},  # a user message: never
    ],
)
def test_what_cannot_be_applied_is_skipped_and_changes_nothing(spec: dict) -> None:
    out, skipped = apply([spec], MESSAGES)
    assert skipped == [spec] and out == MESSAGES


def test_the_helper_reads_the_probe_and_writes_the_answer() -> None:
    probe = rerun.read_probe(io.StringIO('{"seed": 1, "step": "chat#6", "probe": "baseline"}'))
    assert probe["specs"] == []
    buf = io.StringIO()
    skipped = [{"kind": "injection", "excludeInjectionIds": ["vip-fact"]}]
    rerun.write_answer("APPROVED", skipped=skipped, tokens=12, stream=buf)
    assert json.loads(buf.getvalue()) == {
        "output": "APPROVED",
        "skipped": ["injection 'vip-fact'"],
        "cost": {"tokens": 12},
    }


def test_the_protocol_answer_carries_skipped() -> None:
    got = parse_answer(b'{"output": "x", "skipped": ["tool \'a\'"]}\n')
    assert got.output == "x" and got.skipped == ("tool 'a'",)
    assert parse_answer(b"plain\n").skipped == ()
    with pytest.raises(ValueError, match="skipped"):
        parse_answer(b'{"output": "x", "skipped": "tool"}')


HELPER_CMD = """
import json, sys
from agentbisect.bisect import rerun
probe = rerun.read_probe()
with open(sys.argv[1]) as f:
    request = json.load(f)["request"]
messages, skipped = rerun.apply(probe["specs"], request["messages"])
seen = "Order A-1001" in json.dumps(messages)
rerun.write_answer("Refund APPROVED" if seen else "Refund DECLINED", skipped=skipped)
"""


def test_a_rerun_through_the_helper_reports_what_it_skipped(tmp_path) -> None:
    """The planted recording's injection specs carry only ids: a helper working from the
    messages alone cannot cut them, says so, and afp reports them skipped, not not-confirmed."""
    call = afp_proc("call", str(PLANTED), "--at-step", "call-llm#40", "--json")
    assert call.returncode == 0, call.stderr
    (tmp_path / "call.json").write_text(call.stdout)
    (tmp_path / "helper.py").write_text(HELPER_CMD)
    proc = afp_proc(
        "bisect", str(PLANTED), "--at-step", "call-llm#40", "--json",
        "--rerun", f"{sys.executable} {tmp_path / 'helper.py'} {tmp_path / 'call.json'}",
        "--comparator", "contains:APPROVED", "--embedder", "mock",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    verdicts = {
        (
            s["kind"],
            s.get("detail", {}).get("toolName") or s.get("detail", {}).get("injectionId"),
        ): s["verdict"]
        for s in json.loads(proc.stdout)["suspects"]
        if "verdict" in s
    }
    assert verdicts[("tool", "lookup_order")]["verdict"] == "confirmed"
    assert verdicts[("injection", "vip-override-fact")]["verdict"] == "skipped"
    assert verdicts[("injection", "vip-override-fact")]["claim"].startswith("SKIPPED:")
