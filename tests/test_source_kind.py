"""``sourceKind``: every suspect named in a trace user's words (issue 25), one rule for bisect,
diff and scan; upstream parity reports never carry it."""

from __future__ import annotations

import json

import pytest

from agentbisect.bisect.pipeline.source_kind import SOURCE_KINDS, imported_kind
from agentbisect.schema.imported import SourceRef
from tests.conftest import FIXTURES, cli

OTEL = FIXTURES / "otel"


def _kinds(path: str, *extra: str) -> dict[str, tuple[str, str | None]]:
    res = cli("bisect", path, "--json", "--no-cache", *extra)
    assert res.exit_code == 0, res.stderr
    return {
        s["source"]: (s["kind"], s.get("sourceKind")) for s in json.loads(res.stdout)["suspects"]
    }


@pytest.mark.parametrize(
    ("fixture", "source", "want"),
    [
        (
            "oaiv2-2.4b0-event-only.tool-planted.otlp.json",
            "execute_tool:get_refund_policy#5",
            "tool-result",
        ),
        ("oaiv2-2.4b0-event-only.tool-planted.otlp.json", "chat#2", "llm-output"),
        ("openinference-langchain.doc-planted.otlp.json", "retrieval:KnowledgeBase#1", "document"),
        (
            "openinference-langchain.doc-planted.otlp.json",
            "system-instructions.p3#2",
            "system-prompt",
        ),
        ("openinference-langchain.doc-planted.otlp.json", "message:user.2#2", "user-message"),
    ],
)
def test_trace_suspects_are_named_by_what_they_are(fixture: str, source: str, want: str) -> None:
    assert _kinds(str(OTEL / fixture))[source][1] == want


def test_recording_suspects_get_a_source_kind_too() -> None:
    kinds = _kinds(str(FIXTURES / "upstream" / "planted-fact.recording.json"))
    assert kinds["context#6"] == ("injection", "system-prompt")
    assert kinds["tool-calls#22"] == ("tool", "tool-result")
    assert kinds["seed#0"] == ("arg", "user-message")
    assert all(k in SOURCE_KINDS for _, k in kinds.values())


def test_upstream_parity_carries_no_source_kind() -> None:
    path = str(FIXTURES / "upstream" / "planted-fact.recording.json")
    assert all(k is None for _, k in _kinds(path, "--upstream", "--at-llm", "-1").values())


@pytest.mark.parametrize(
    ("role", "want"),
    [
        ("system", "system-prompt"),
        ("assistant", "llm-output"),
        ("tool", "tool-result"),
        ("user", "user-message"),
        ("human", "user-message"),
    ],
)
def test_a_message_without_producer_is_named_by_its_role(role: str, want: str) -> None:
    assert imported_kind(SourceRef(kind="message", role=role)) == want
