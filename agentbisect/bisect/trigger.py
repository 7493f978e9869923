"""What a bisect explains: the trigger call's own output and the question it answered.

A user must be able to check that afp explains the call they mean, so every report shows the
trigger's answer first. The question is the last user message the call saw: for an imported
run, the user-message source the call read; for a recording, the last user message put into
the context before the call (or the run's input), where there is one.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import UNSET

from agentbisect.model.run import Run
from agentbisect.results.report import TriggerText


def _text(value: Any) -> str | None:
    if value is None or value is UNSET or value == "":  # (a lean recording keeps no content)
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def explained(run: Run, step: str) -> TriggerText:
    """The trigger step, its index among the LLM calls, its output and its question."""
    ids = run.llm_call_ids
    output: str | None = None
    question: str | None = None
    for e in run.events:
        kind = e.type
        if e.runtimeStageId == step and kind == "llm.start":
            break  # (what the call saw came before it)
        if kind == "run.entry":
            payload = getattr(e, "payload", None)
            if isinstance(payload, dict) and isinstance(payload.get("message"), str):
                question = payload["message"]
        elif kind == "context.injected" and getattr(e, "asRole", None) == "user":
            question = _text(getattr(e, "contentSummary", None)) or question
    for e in run.events:
        if e.type == "llm.end" and e.runtimeStageId == step:
            output = _text(getattr(e, "content", None))
            break
    meta = run.import_meta
    if meta is not None:
        read = set(run.keys_read(step))
        users = [
            (src.messageIndex, src.text)
            for sid, src in meta.sources.items()
            if src.kind == "message" and src.role == "user" and f"in:{sid}" in read
        ]
        if users:
            question = _text(max(users, key=lambda u: u[0] if isinstance(u[0], int) else -1)[1])
    return TriggerText(
        step=step,
        llmIndex=ids.index(step) if step in ids else None,
        output=output,
        question=question,
    )
