"""``CallResult``: what ``afp call`` shows and ``afp bisect``'s replay sends — one LLM call of a
run as an OpenAI chat-completions request, and the response the run recorded for it."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field


class CallResult(Struct, kw_only=True):
    """One LLM call rebuilt from a run.

    ``request`` is the chat-completions body (``model``, ``messages``, ``tools``?, the sampling
    parameters the run recorded), exactly what a replay sends with nothing removed; ``response``
    is the recorded answer as an assistant message. ``hints`` says, per ablation spec the
    localizer can write for this run, what the run knows that the spec does not carry (the text
    of an injection, the message an earlier LLM output became), keyed ``kind\\0id``: the replay
    adds them to a spec before removing it, the rendering never shows them.
    """

    file: str
    step: str
    llm_index: int | None
    origin: str  # where the request came from, for the reader (a span, a message, the commit log)
    request: dict[str, Any]
    response: dict[str, Any]
    hints: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request, "response": self.response}
