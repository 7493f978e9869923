"""What "removed" means for each source kind, on an OpenAI chat ``messages`` list — the one
implementation ``afp bisect``'s replay and the rerun helper (``agentbisect.bisect.rerun``) share.

| spec kind | removal |
|---|---|
| ``tool`` | the result's content becomes ``TOOL_PLACEHOLDER``; the tool message stays, so every tool call keeps its result (the API rejects an orphaned call). ``toolCallIds`` picks the calls, else every call of a tool named in ``ignoredTools`` |
| ``injection`` / ``memory`` (a system-prompt part, a retrieved document) | its ``text`` is cut from every message it was placed in (the whole paragraph where it is one); a system message left empty goes |
| ``stage`` (an earlier LLM output) | that assistant message's content becomes ``OUTPUT_PLACEHOLDER`` (its tool calls stay); ``messageIndex`` names it, else ``text`` matches its content |
| ``arg`` (a user message, the run's input) | never removed: skipped |

A spec that lacks what its removal needs (an injection without ``text``) or that matches nothing
is not applied: it comes back in the skipped list, and the probe reports it as skipped rather than
as a negative result.
"""

from __future__ import annotations

import copy
from typing import Any

TOOL_PLACEHOLDER = "[tool result removed]"
OUTPUT_PLACEHOLDER = "[earlier output removed]"

_IDS = ("ignoredTools", "excludeInjectionIds", "excludeMemoryIds")


def spec_ident(spec: dict[str, Any]) -> str:
    """The name a spec removes: its tool, injection or memory id, or its step."""
    for field in _IDS:
        ids = spec.get(field)
        if isinstance(ids, list) and ids:
            return str(ids[0])
    src = spec.get("source")
    return str(src) if src is not None else ""


def spec_label(spec: dict[str, Any]) -> str:
    """``kind 'name'``: the label the report gives the suspect this spec removes."""
    return f"{spec.get('kind', '')} '{spec_ident(spec)}'"


def apply(
    specs: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``messages`` with every spec applied (a copy; the input is not changed), and the specs
    that could not be applied."""
    out = copy.deepcopy(messages)
    skipped: list[dict[str, Any]] = []
    for spec in specs:
        kind = spec.get("kind")
        if kind == "tool":
            done = _tool(spec, out)
        elif kind in ("injection", "memory"):
            done = _text(spec, out)
        elif kind == "stage":
            done = _output(spec, out)
        else:  # arg: the user's own input is what the run answers; never removed
            done = False
        if not done:
            skipped.append(spec)
    return [m for m in out if not m.pop("_drop", False)], skipped


def _tool(spec: dict[str, Any], messages: list[dict[str, Any]]) -> bool:
    ids = spec.get("toolCallIds")
    wanted: set[str] = set(ids) if isinstance(ids, list) and ids else set()
    if not wanted:
        names = set(spec.get("ignoredTools") or [])
        for m in messages:
            for c in m.get("tool_calls") or []:
                if isinstance(c, dict) and (c.get("function") or {}).get("name") in names:
                    wanted.add(str(c.get("id")))
    done = False
    for m in messages:
        if m.get("role") == "tool" and m.get("tool_call_id") in wanted:
            m["content"] = TOOL_PLACEHOLDER
            done = True
    return done


def _cut(content: str, text: str) -> str:
    """``content`` without ``text``: whole paragraphs where it is one, else the bare text."""
    paragraphs = content.split("\n\n")
    kept = [p for p in paragraphs if p.strip() != text.strip()]
    joined = "\n\n".join(kept)
    if text in joined:
        joined = joined.replace(text, "")
        while "\n\n\n" in joined:
            joined = joined.replace("\n\n\n", "\n\n")
    return joined.strip("\n")


def _text(spec: dict[str, Any], messages: list[dict[str, Any]]) -> bool:
    text = spec.get("text")
    if not isinstance(text, str) or not text.strip():
        return False
    done = False
    for m in messages:
        content = m.get("content")
        if isinstance(content, str) and text.strip() in content:
            m["content"] = _cut(content, text.strip())
            done = True
            if m.get("role") in ("system", "developer") and not m["content"].strip():
                m["_drop"] = True
    return done


def _output(spec: dict[str, Any], messages: list[dict[str, Any]]) -> bool:
    at = spec.get("messageIndex")
    targets = []
    if isinstance(at, int) and 0 <= at < len(messages):
        targets = [messages[at]]
    elif isinstance(spec.get("text"), str):
        targets = [m for m in messages if m.get("content") == spec["text"]]
    targets = [m for m in targets if m.get("role") == "assistant"]
    for m in targets:
        m["content"] = OUTPUT_PLACEHOLDER
    return bool(targets)
