"""Rebuild one LLM call of a run as an OpenAI chat-completions request (``afp call``, and what
``afp bisect``'s replay sends).

Two sources of truth, one result (``results.call.CallResult``):

- an imported trace or transcript: the call's span (or message) is read again from the input
  file (``importers.calls``) — system instructions, the messages in their order, assistant tool
  calls, tool results paired by id, the model and the sampling parameters the span recorded;
- an agentfootprint recording: the agent's state as the call began, folded from the commit log
  (``systemPromptInjections`` as the system message, ``history`` as the conversation,
  ``toolsInjections`` as the tool list) and the model of its ``llm.start`` event.

A call whose content the run does not hold (capture off, a lean recording, a recording converted
from a trace) is a usage error pointing to the rerun option: replay cannot invent messages.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from msgspec import Raw

from agentbisect.core.errors import UsageError
from agentbisect.core.js import ABSENT
from agentbisect.core.options import RERUN
from agentbisect.importers.base import ImportOptions
from agentbisect.results.call import CallResult

if TYPE_CHECKING:
    from agentbisect.model.run import Run


def hint_key(kind: str, ident: str) -> str:
    """The key of ``CallResult.hints`` for the spec of a suspect of ``kind`` named ``ident``."""
    return f"{kind}\0{ident}"


def no_content(step: str, why: str) -> UsageError:
    return UsageError(
        f"LLM call {step}: {why}, so its request cannot be rebuilt; replay needs the messages — "
        f"use {RERUN.flag} CMD to rerun your agent instead"
    )


def llm_call(run: Run, step: str, options: ImportOptions | None = None) -> CallResult:
    """The request and recorded response of LLM call ``step`` (a step id of ``run.llm_call_ids``)."""
    ids = run.llm_call_ids
    if step not in ids:
        from agentbisect.core.suggest import say_nearest

        raise UsageError(
            f"{step!r} is not an LLM call of the run; {say_nearest(step, ids, 'LLM call')}"
        )
    index = ids.index(step)
    if run.import_meta is not None:
        return _imported(run, step, index, options)
    return _recorded(run, step, index)


# ------------------------------------------------------------------ imported traces, transcripts


def _imported(run: Run, step: str, index: int, options: ImportOptions | None) -> CallResult:
    from agentbisect.importers import read_call

    meta = run.import_meta
    assert meta is not None
    src = meta.sources.get(step)
    span_id = src.spanId if src is not None and isinstance(src.spanId, str) else None
    lo = run.loaded
    if span_id is None or lo.shape not in ("otel", "transcript"):
        raise no_content(
            step,
            "this recording was converted from a trace and keeps each call's sources, not its "
            "message list (run on the trace itself)",
        )
    trace = meta.traceId if isinstance(meta.traceId, str) else None
    content = read_call(lo.file, lo.shape, span_id, options, trace)
    if not content.captured:
        raise no_content(step, "the trace holds no message content for it (capture was off)")
    messages: list[dict[str, Any]] = []
    if content.system:
        messages.append({"role": "system", "content": "\n\n".join(content.system)})
    for m in content.inputs:
        messages.extend(openai_messages(m))
    model = content.model or _start_model(run, step)
    request: dict[str, Any] = {"model": model, "messages": messages}
    if content.tools:
        request["tools"] = [_tool_def(t) for t in content.tools]
    request.update(content.params)
    outs = [m for o in content.outputs for m in openai_messages(o)]
    response = outs[0] if outs else {"role": "assistant", "content": None}
    origin = f"transcript message {span_id[1:]}" if lo.shape == "transcript" else f"span {span_id}"
    result = CallResult(
        file=lo.file, step=step, llm_index=index, origin=origin, request=request, response=response
    )
    _imported_hints(run, step, result)
    return result


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def openai_messages(m: Any) -> list[dict[str, Any]]:
    """One message (the importers' ``Message``: role, parts, name) as the chat-completions API
    takes it (a tool message per tool result)."""
    role = m.role.lower() if m.role.lower() in _ROLES else "assistant"  # a history's agents
    if role == "tool":
        return [
            {"role": "tool", "tool_call_id": p.id, "content": p.text}
            for p in m.parts
            if p.kind == "tool_result"
        ]
    # (a result with no call id was inline text of the message: DSPy's ReAct observations)
    text = "\n".join(
        p.text for p in m.parts if p.kind == "text" or (p.kind == "tool_result" and not p.id)
    )
    out: dict[str, Any] = {"role": role}
    if m.name:
        out["name"] = m.name
    calls = [p for p in m.parts if p.kind == "tool_call"]
    if role == "assistant":
        out["content"] = text if text or not calls else None
        if calls:
            out["tool_calls"] = [
                {
                    "id": p.id,
                    "type": "function",
                    "function": {"name": p.name, "arguments": p.arguments},
                }
                for p in calls
            ]
    else:
        out["content"] = text
    return [out]


def _tool_def(t: Any) -> Any:
    if isinstance(t, dict) and "type" not in t and "name" in t:
        return {"type": "function", "function": t}
    return t


def _start_model(run: Run, step: str) -> str:
    for e in run.of_type("llm.start"):
        if getattr(e, "runtimeStageId", None) == step:
            model = getattr(e, "model", None)
            return model if isinstance(model, str) else ""
    return ""


def _imported_hints(run: Run, step: str, result: CallResult) -> None:
    """What the specs of this run's suspects lack: a document's text, and which assistant message
    of the request each earlier LLM call's output became."""
    meta = run.import_meta
    assert meta is not None
    log = run.commit_log
    last = len(log) - 1
    for src in meta.sources.values():
        if src.kind == "retrieval" and isinstance(src.documents, list):
            for doc in src.documents:
                text = log.value_at(last, f"doc:{doc}", copy=False)
                if isinstance(text, str) and text:
                    result.hints[hint_key("injection", doc)] = {"text": text}
    # an earlier call's output: by the ids of the tool calls it asked for, else by its text
    asked_by: dict[str, str] = {}
    for tool_step, src in meta.sources.items():
        if src.kind == "tool" and isinstance(src.toolCallId, str) and src.toolCallId:
            for key in run.reads_of.get(tool_step, []):
                if key.startswith("out:"):
                    asked_by[src.toolCallId] = key[4:]
    by_text: dict[str, str] = {}
    for s in run.llm_call_ids:
        if s == step:
            break
        out = log.value_at(last, f"out:{s}", copy=False)
        if isinstance(out, str) and out.strip():
            by_text.setdefault(out.strip(), s)
    for i, m in enumerate(result.request["messages"]):
        if m.get("role") != "assistant":
            continue
        producer = next(
            (asked_by[c["id"]] for c in m.get("tool_calls", []) if c.get("id") in asked_by), None
        )
        if producer is None:
            shown = [m.get("content") or ""] + [
                f"{c['function']['name']}({c['function']['arguments']})"
                for c in m.get("tool_calls", [])
            ]
            producer = by_text.get("\n".join(x for x in shown if x).strip())
        if producer is not None:
            result.hints.setdefault(hint_key("stage", producer), {"messageIndex": i})


# ------------------------------------------------------------------ agentfootprint recordings


def _recorded(run: Run, step: str, index: int) -> CallResult:
    log = run.commit_log
    start = next(
        (e for e in run.of_type("llm.start") if getattr(e, "runtimeStageId", None) == step), None
    )
    bundles = log.step_bundles.get(step)
    if bundles:
        before = bundles[0] - 1
    else:
        at = getattr(start, "commitIdxBefore", None)
        before = at - 1 if isinstance(at, int) else -1
    history = log.value_at(before, "history") if before >= 0 else ABSENT
    if not isinstance(history, list) or not history:
        why = (
            "the recording is lean (no content)"
            if run.loaded.mode == "lean"
            else "the recording holds no conversation history as it began"
        )
        raise no_content(step, why)
    messages: list[dict[str, Any]] = []
    system = log.value_at(before, "systemPromptInjections")
    hints: dict[str, dict[str, Any]] = {}
    if isinstance(system, list):
        parts = [
            i["rawContent"]
            for i in system
            if isinstance(i, dict) and isinstance(i.get("rawContent"), str)
        ]
        if parts:
            messages.append({"role": "system", "content": "\n\n".join(parts)})
    for key in ("systemPromptInjections", "messagesInjections"):
        injected = log.value_at(before, key, copy=False)
        for i in injected if isinstance(injected, list) else []:
            text = i.get("rawContent") if isinstance(i, dict) else None
            if isinstance(text, str) and text and isinstance(i.get("sourceId"), str):
                kind = "memory" if i.get("source") == "memory" else "injection"
                hints.setdefault(hint_key(kind, i["sourceId"]), {"text": text})
    # Injections into the messages slot that are not the conversation itself (a retrieved
    # document, a fact, a memory): messages of their role (system when none), after the system
    # prompt — the conversation is the history.
    extra = log.value_at(before, "messagesInjections", copy=False)
    for i in extra if isinstance(extra, list) else []:
        text = i.get("rawContent") if isinstance(i, dict) else None
        if isinstance(text, str) and text and i.get("source") not in _CONVERSATION:
            role = i.get("asRole") if i.get("asRole") in ("system", "user") else "system"
            messages.append({"role": role, "content": text})
    conversation = [_history_message(h) for h in history if isinstance(h, dict)]
    messages += _paired(conversation, [e for e in run.of_type("tool.start")])
    model = getattr(start, "model", None)
    request: dict[str, Any] = {
        "model": model if isinstance(model, str) else "",
        "messages": messages,
    }
    tools = log.value_at(before, "toolsInjections", copy=False)
    if isinstance(tools, list) and tools:
        defs = []
        for t in tools:
            if isinstance(t, dict) and isinstance(t.get("sourceId"), str):
                desc = t.get("rawContent")
                fn: dict[str, Any] = {"name": t["sourceId"]}
                if isinstance(desc, str):
                    fn["description"] = desc.removeprefix(t["sourceId"] + ": ")
                defs.append({"type": "function", "function": fn})
        if defs:
            request["tools"] = defs
    end = next(
        (e for e in run.of_type("llm.end") if getattr(e, "runtimeStageId", None) == step), None
    )
    content = getattr(end, "content", None)
    response: dict[str, Any] = {
        "role": "assistant",
        "content": content if isinstance(content, str) else None,
    }
    if bundles:
        calls = log.value_at(bundles[-1], "llmLatestToolCalls", copy=False)
        if isinstance(calls, list) and calls:
            response["tool_calls"] = [_tool_call(c) for c in calls if isinstance(c, dict)]
    return CallResult(
        file=run.loaded.file,
        step=step,
        llm_index=index,
        origin="the recording's commit log",
        request=request,
        response=response,
        hints=hints,
    )


# the messagesInjections sources that are the conversation (already in ``history``)
_CONVERSATION = frozenset({"user", "assistant", "tool-result", "tool", "history"})


def _paired(messages: list[dict[str, Any]], starts: list[Any]) -> list[dict[str, Any]]:
    """The conversation with every tool result answering a tool call, as the API requires.

    A history may keep tool results without the assistant message that asked for them (or
    without their call id): each such result is paired with the next tool call the run's
    ``tool.start`` events record, asked by an assistant message placed before it."""
    asked = {c["id"] for m in messages for c in m.get("tool_calls", [])}
    free = [e for e in starts if getattr(e, "toolCallId", None) not in asked]
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "tool" and m.get("tool_call_id") not in asked and free:
            e = free.pop(0)
            call_id = str(getattr(e, "toolCallId", "") or f"call-{len(asked)}")
            args = getattr(e, "args", None)
            call = {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": str(getattr(e, "toolName", "") or ""),
                    "arguments": bytes(args).decode("utf-8") if isinstance(args, Raw) else "{}",
                },
            }
            prev = out[-1] if out else None
            if prev is not None and prev["role"] == "assistant" and prev.get("_made"):
                prev["tool_calls"].append(call)
            else:
                out.append(
                    {"role": "assistant", "content": None, "tool_calls": [call], "_made": True}
                )
            asked.add(call_id)
            m = {**m, "tool_call_id": call_id}
        out.append(m)
    for m in out:
        m.pop("_made", None)
    return out


def _tool_call(c: dict[str, Any]) -> dict[str, Any]:
    args = c.get("args", c.get("arguments", {}))
    return {
        "id": str(c.get("id", "")),
        "type": "function",
        "function": {
            "name": str(c.get("name", "")),
            "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
        },
    }


def _history_message(h: dict[str, Any]) -> dict[str, Any]:
    role = h.get("role") if isinstance(h.get("role"), str) else "user"
    content = h.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if role == "tool":
        return {"role": "tool", "tool_call_id": str(h.get("toolCallId", "")), "content": text}
    out: dict[str, Any] = {"role": role, "content": text}
    calls = h.get("toolCalls")
    if role == "assistant" and isinstance(calls, list) and calls:
        out["tool_calls"] = [_tool_call(c) for c in calls if isinstance(c, dict)]
        out["content"] = text or None
    return out
