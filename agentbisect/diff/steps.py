"""Each run as ``afp diff`` compares it: a timeline of steps (the run's input, agent steps,
injections and retrievals, LLM calls, tool calls), each with the context sources it adds for the
calls after it, in the one run model's terms (its domain events, and for a trace or transcript
the importer's source map) — so a recording, a GenAI trace, an OpenInference trace and a chat
transcript of the same agent give comparable timelines.

A step's ``signature`` is what alignment compares: the operation and, for a tool call, the tool
and its arguments (ids and times masked); never a step id or a timestamp.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct, field

from agentbisect.bisect.pipeline.source_kind import (
    DOCUMENT,
    LLM_OUTPUT,
    SYSTEM_PROMPT,
    TOOL_RESULT,
    USER_MESSAGE,
    imported_kind,
    injection_kind,
)
from agentbisect.core.errors import InputError
from agentbisect.diff.normalize import canonical, masked
from agentbisect.model.boundary.calls import value_text
from agentbisect.model.run import Run
from agentbisect.schema.events import (
    ContextInjected,
    LlmEnd,
    LlmStart,
    RunEntry,
    SubflowEntry,
    ToolEnd,
    ToolStart,
)

# the operations of a step, in the words of the JSON output
INPUT, AGENT, INJECTION, RETRIEVAL, LLM, TOOL = (
    "input",
    "agent",
    "injection",
    "retrieval",
    "llm",
    "tool",
)
# the keys of a run's input payload that hold the user's message (an agentfootprint run.entry)
_INPUT_KEYS = ("message", "input", "userMessage", "question", "prompt", "query", "content")


class Source(Struct, kw_only=True):
    """One context source a step adds: a tool result, a document, a system-prompt part, an LLM
    output, a user message."""

    kind: str  # one of source_kind.SOURCE_KINDS
    step: str  # the id of the step that produced it, in its own run
    name: str = ""  # the tool, the document or injection id, the role
    text: str
    llm_index: int | None = None
    position: int = 0  # its place among the sources of its step
    owner: int = 0  # the index of its step in the timeline
    key: str = ""  # what is compared (``normalize.masked``), set when it is added


class Step(Struct, kw_only=True):
    op: str
    index: int  # its place in the timeline
    step: str  # the step's id in its run (runtimeStageId)
    signature: tuple[str, ...]
    llm_index: int | None = None
    inputs: str = ""  # a tool call's arguments (canonical)
    output: str = ""  # an LLM call's answer; a tool's result
    asked: list[tuple[str, str]] = field(default_factory=list)  # an LLM call's tool calls

    @property
    def shown(self) -> str:
        """The output as shown: an LLM call's answer and the tool calls it asked for."""
        lines = [self.output] if self.output else []
        lines += [f"→ {name}({args})" for name, args in self.asked]
        return "\n".join(lines)

    sources: list[Source] = field(default_factory=list)

    def add(self, kind: str, name: str, text: str) -> None:
        if text.strip():
            self.sources.append(
                Source(
                    kind=kind,
                    step=self.step,
                    name=name,
                    text=text,
                    llm_index=self.llm_index,
                    position=len(self.sources),
                    owner=self.index,
                    key=masked(text),
                )
            )


class Timeline(Struct):
    file: str
    shape: str
    steps: list[Step]

    @property
    def content(self) -> bool:
        return any(s.sources or s.output for s in self.steps)


def _user_messages(run: Run, payload: Any) -> list[str]:
    """The run's input: the user messages of a trace's source map, else the text of an
    agentfootprint run's input payload."""
    meta = run.import_meta
    if meta is not None:
        return [
            s.text
            for s in meta.sources.values()
            if s.kind == "message" and s.role == "user" and isinstance(s.text, str)
        ]
    if isinstance(payload, Raw):
        try:
            payload = msgspec.json.decode(payload)
        except msgspec.DecodeError:
            return []
    if isinstance(payload, str):
        return [payload]
    if isinstance(payload, dict):
        return [payload[k] for k in _INPUT_KEYS if isinstance(payload.get(k), str)]
    return []


def timeline(run: Run) -> Timeline:
    """The steps of ``run`` in the order its events happened."""
    meta = run.import_meta
    events = run.events
    has_system_slot = any(
        isinstance(e, ContextInjected) and e.slot == "system-prompt" for e in events
    )
    steps: list[Step] = []
    tools: dict[str, Step] = {}  # open tool calls by call id (else step id)
    llm_by_id: dict[str, Step] = {}
    last_llm: Step | None = None
    llm_count = 0
    entered = False
    for ev in events:
        rid = ev.runtimeStageId if isinstance(ev.runtimeStageId, str) else ""
        if isinstance(ev, RunEntry) and not entered:
            entered = True
            step = Step(op=INPUT, index=len(steps), step=rid, signature=(INPUT,))
            for text in _user_messages(run, ev.payload):
                step.add(USER_MESSAGE, "user", text)
            steps.append(step)
        elif isinstance(ev, SubflowEntry):
            if ev.isAgentInternal is True or isinstance(ev.slotKind, str):
                continue  # the agent's own plumbing and the prompt slots are not steps
            name = ev.subflowName if isinstance(ev.subflowName, str) else ""
            steps.append(Step(op=AGENT, index=len(steps), step=rid, signature=(AGENT, name)))
        elif isinstance(ev, ContextInjected):
            # a retriever's step is its own source in a trace's source map; an injection shares
            # its call's step id there, so its kind is its flavor's
            src = meta.sources.get(rid) if meta is not None else None
            by_map = src is not None and src.kind == "retrieval"
            kind = imported_kind(src) if by_map and src else injection_kind(ev.source)
            if ev.slot == "system-prompt" and kind == DOCUMENT:
                kind = SYSTEM_PROMPT
            prev = steps[-1] if steps else None
            op = RETRIEVAL if kind == DOCUMENT else INJECTION
            if prev is None or prev.op not in (INJECTION, RETRIEVAL) or prev.step != rid:
                prev = Step(op=op, index=len(steps), step=rid, signature=(op,))
                steps.append(prev)
            sid = ev.sourceId if isinstance(ev.sourceId, str) else ""
            prev.add(kind, sid, value_text(ev.contentSummary))
        elif isinstance(ev, LlmStart):
            if rid in llm_by_id:
                continue
            step = Step(op=LLM, index=len(steps), step=rid, signature=(LLM,), llm_index=llm_count)
            llm_count += 1
            llm_by_id[rid] = step
            if not has_system_slot and isinstance(ev.systemPromptText, str):
                for i, part in enumerate(ev.systemPromptText.split("\n\n")):
                    step.add(SYSTEM_PROMPT, f"system.p{i + 1}", part)
            steps.append(step)
            last_llm = step
        elif isinstance(ev, LlmEnd):
            step_or_none = llm_by_id.get(rid)
            if step_or_none is None:
                continue
            text = value_text(ev.content)
            step_or_none.output = text
            step_or_none.add(LLM_OUTPUT, "assistant", text)
        elif isinstance(ev, ToolStart):
            if not ev.dispatched:
                continue
            name = ev.toolName if isinstance(ev.toolName, str) else ""
            args = canonical(value_text(ev.args))
            step = Step(
                op=TOOL,
                index=len(steps),
                step=rid,
                signature=(TOOL, name, masked(args)),
                inputs=args,
            )
            steps.append(step)
            tools[rid] = step
            if isinstance(ev.toolCallId, str):
                tools[ev.toolCallId] = step
            if last_llm is not None:
                last_llm.asked.append((name, args))
        elif isinstance(ev, ToolEnd):
            call_id = ev.toolCallId if isinstance(ev.toolCallId, str) else None
            done = tools.pop(call_id, None) if call_id is not None else None
            done = tools.pop(rid, done)
            if done is None or done.output:
                continue
            text = value_text(ev.result)
            if ev.error is not UNSET and ev.error not in (None, False):
                text = text or f"error: {value_text(ev.error) if ev.error is not True else 'error'}"
            done.output = text
            done.add(TOOL_RESULT, done.signature[1], text)
    if meta is None:
        _recorded_system_prompts(run, steps)
    lo = run.loaded
    return Timeline(lo.file, lo.shape_name, steps)


def _recorded_system_prompts(run: Run, steps: list[Step]) -> None:
    """What an agentfootprint recording's events do not carry, from each LLM call's request as
    ``analyses.call`` rebuilds it: the base prompt (committed, never injected as an event) as
    system-prompt parts, and the whole text of an injection whose event keeps a summary. A
    recording that holds no content stops this at its first call."""
    from agentbisect.analyses.call import llm_call
    from agentbisect.core.errors import UsageError

    seen = {s.key for st in steps for s in st.sources if s.kind == SYSTEM_PROMPT}
    injected = [s for st in steps if st.op in (INJECTION, RETRIEVAL) for s in st.sources]
    for st in steps:
        if st.op != LLM:
            continue
        try:
            messages = llm_call(run, st.step).request.get("messages") or []
        except (UsageError, InputError):
            return
        parts = [
            p
            for m in messages
            if m.get("role") == "system" and isinstance(m.get("content"), str)
            for p in m["content"].split("\n\n")
        ]
        for src in injected:
            short = src.text.rstrip(" .,;:…")
            whole = next((p for p in parts if p != src.text and p.startswith(short)), None)
            if short and whole is not None:
                src.text, src.key = whole, masked(whole)
        seen.update(s.key for s in injected)
        first = messages[0] if messages else {}
        if first.get("role") != "system" or not isinstance(first.get("content"), str):
            continue
        for i, part in enumerate(first["content"].split("\n\n")):
            key = masked(part)
            if part.strip() and key not in seen:
                seen.add(key)
                st.add(SYSTEM_PROMPT, f"system.p{i + 1}", part)


def require_content(tl: Timeline) -> None:
    """Refuse a run with nothing to compare (a lean recording, a trace captured without content)."""
    if not any(st.op == LLM for st in tl.steps):
        raise InputError(tl.file, "a run with LLM calls to compare (found none)")
    if not tl.content:
        raise InputError(
            tl.file,
            "a run with content (prompts, outputs, tool results) to compare; this one holds its "
            "structure only (a lean recording, or a trace captured without message content)",
        )


__all__ = [
    "AGENT",
    "INJECTION",
    "INPUT",
    "LLM",
    "RETRIEVAL",
    "TOOL",
    "Source",
    "Step",
    "Timeline",
    "require_content",
    "timeline",
]
