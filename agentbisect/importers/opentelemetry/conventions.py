"""What a span means: the GenAI semantic conventions (current and older forms) and OpenInference,
read into LLM calls, tool calls, retrievals and agent/chain spans.

Where the content lives differs by convention and version, and this module is the one place that
knows all of them:

- current GenAI: ``gen_ai.input.messages`` / ``gen_ai.output.messages`` / ``gen_ai.system_instructions``
  (JSON strings on spans, structured values on the ``gen_ai.client.inference.operation.details``
  event or log record), messages in the "parts" form;
- older GenAI: one event or log record per message (``gen_ai.user.message``, ``gen_ai.choice`` …)
  with OpenAI-style bodies, ``gen_ai.content.prompt``/``completion`` events, and the indexed
  ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` attributes;
- OpenInference: ``openinference.span.kind`` and ``llm.input_messages.N.message.*`` etc.

Everything becomes ``Message`` lists of ``Part``s, so the synthesis of a recording never looks at a
convention again. Problems (unparsable JSON inside an attribute) are reported, never raised.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import Struct

from agentbisect.importers.opentelemetry.spans import MAX_NS, NO_ITEMS, LogRecord, Span
from agentbisect.importers.opentelemetry.stringified import retyped
from agentbisect.importers.texts import REDACTED, as_text, decorated_call, text_of

# (call_llm: mozilla-ai's any-agent, for every framework it wraps)
LLM_OPERATIONS = frozenset(
    {"chat", "text_completion", "generate_content", "completion", "call_llm"}
)
AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent"})
# (handoff: OpenLLMetry's OpenAI Agents spans — the transfer is a function the model called, and
# OpenInference's instrumentation of the same SDK makes it a TOOL span)
TOOL_OPERATIONS = frozenset({"execute_tool", "handoff"})
# The current conventions (semantic-conventions-genai): a workflow groups agents and a plan span
# holds the call that writes the plan — boundaries, like an agent; a memory search hands records
# to the model — a retrieval. The other memory operations (create/update/upsert/delete, store
# lifecycle) write, and stay under spans-ignored. Strands Agents groups each model request and the
# tool calls it asked for in an ``execute_event_loop_cycle`` span: a boundary too.
CHAIN_OPERATIONS = frozenset({"invoke_workflow", "plan", "execute_event_loop_cycle"})
# (vector_db_retrieve: OpenLLMetry's LangChain retriever spans)
RETRIEVAL_OPERATIONS = frozenset({"retrieval", "retrieve", "search_memory", "vector_db_retrieve"})
# Content kept outside the trace by util-genai's upload completion hook: a reference (a URI) in
# place of each of these attributes. afp never fetches it.
REFERENCE_KEYS = (
    "gen_ai.input.messages_ref",
    "gen_ai.output.messages_ref",
    "gen_ai.system_instructions_ref",
    "gen_ai.tool.definitions_ref",
)
# The Vercel AI SDK's own spans (``experimental_telemetry``), by ``ai.operationId``: one
# ``….doGenerate`` / ``….doStream`` span per model request, ``ai.toolCall`` per tool call, the
# ``ai.generateText`` (…) span around them.
AI_SDK_ROLES = {
    "ai.generateText.doGenerate": "llm",
    "ai.streamText.doStream": "llm",
    "ai.generateObject.doGenerate": "llm",
    "ai.streamObject.doStream": "llm",
    "ai.toolCall": "tool",
    "ai.generateText": "agent",
    "ai.streamText": "agent",
    "ai.generateObject": "agent",
    "ai.streamObject": "agent",
    "ai.embed": "embedding",
    "ai.embedMany": "embedding",
    "ai.embed.doEmbed": "embedding",
    "ai.embedMany.doEmbed": "embedding",
}
# OpenLLMetry's decorators (``@workflow``, ``@task``, ``@agent``, ``@tool``): the span kind, and
# the call's arguments and return value as JSON in ``traceloop.entity.input`` / ``.output``.
TRACELOOP_KINDS = {"tool": "tool", "agent": "agent", "workflow": "chain", "task": "chain"}
_TL_INPUT, _TL_OUTPUT = "traceloop.entity.input", "traceloop.entity.output"

OI_KINDS = {
    "LLM": "llm",
    "TOOL": "tool",
    "RETRIEVER": "retrieval",
    "AGENT": "agent",
    "CHAIN": "chain",
    "EMBEDDING": "embedding",
    "RERANKER": "other",
    "GUARDRAIL": "other",
    "EVALUATOR": "other",
}
# MLflow tracing (``mlflow.<flavor>.autolog()``, ``@mlflow.trace(span_type=...)``): the kind in
# ``mlflow.spanType``, a function's arguments and return value (for a chat call the request and
# the response) in ``mlflow.spanInputs`` / ``mlflow.spanOutputs``; every value JSON-encoded.
MLFLOW_KINDS = {
    "LLM": "llm",
    "CHAT_MODEL": "llm",
    "TOOL": "tool",
    "RETRIEVER": "retrieval",
    "AGENT": "agent",
    "CHAIN": "chain",
    "EMBEDDING": "embedding",
}
_MLFLOW_TYPE, _MLFLOW_IN, _MLFLOW_OUT = "mlflow.spanType", "mlflow.spanInputs", "mlflow.spanOutputs"
# Haystack's own tracer (``opentelemetry-haystack``'s ``OpenTelemetryTracer``): spans named by what
# they run, content as tags with HAYSTACK_CONTENT_TRACING_ENABLED — an agent step's reply as
# ``{"replies": [ChatMessage.to_dict()]}`` (usage and model in its ``meta``), its request as
# Python text (not read), a tool's arguments and result as text. A component's span is a boundary
# when the component is an agent; any other component is under spans-ignored by its type.
HAYSTACK_SPANS = {
    "haystack.agent.step.llm": "llm",
    "haystack.agent.step.tool": "tool",
    "haystack.agent.run": "agent",
    "haystack.agent.step": "chain",
    "haystack.pipeline.run": "chain",
}
_HS_TYPE = "haystack.component.type"
_HS_REQUEST, _HS_REPLY = "haystack.agent.step.llm.input", "haystack.agent.step.llm.output"
_HS_AGENT_OUT = "haystack.agent.output"
# LiteLLM's callback makes a raw_gen_ai_request span per request, the provider's raw request and
# response as Python text (``llm.openai.messages`` …): not read — the request is its
# litellm_request parent's, or, where the callback wrote that onto an app's own span (it does so
# under any active span, each request over the last), it is lost; said under spans-ignored.
_LITELLM_RAW = "raw_gen_ai_request"
# OpenLIT's ``@openlit.trace`` decorator marks any function alike (its return value as plain text
# in gen_ai.output.messages, its arguments as Python text in function.kwargs): which are tools is
# not said, so none is read as one; said under spans-ignored.

_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
DETAILS_EVENT = "gen_ai.client.inference.operation.details"

# The span events and log records afp reads, on an LLM call's span (nowhere else).
_READ_RECORDS = frozenset(
    {
        DETAILS_EVENT,
        "gen_ai.choice",
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
        *_MESSAGE_EVENTS,
    }
)


# The records a span is read into are msgspec Structs, not dataclasses: a long trace makes
# hundreds of thousands of them (a window of messages per call), and a Struct is built in C,
# three times faster.


class Part(Struct):
    kind: str  # text | tool_call | tool_result
    text: str = ""
    id: str = ""
    name: str = ""
    arguments: str = ""


class Message(Struct):
    role: str
    parts: list[Part] = []
    name: str = ""
    # ``text()`` once worked out: a call's window repeats each message, and the synthesis asks
    # for its text several times per call (a message is not changed once read).
    _text: str | None = None

    def text(self) -> str:
        """Everything a reader of this message sees, as one string (used for matching)."""
        if self._text is None:
            self._text = "\n".join(
                [
                    f"{p.name}({p.arguments})" if p.kind == "tool_call" else p.text
                    for p in self.parts
                ]
            )
        return self._text

    def tool_call_ids(self) -> list[str]:
        return [p.id for p in self.parts if p.kind == "tool_call" and p.id]


class LLMCall(Struct):
    model: str = ""
    provider: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    system: list[str] = []  # gen_ai.system_instructions parts
    inputs: list[Message] = []
    outputs: list[Message] = []
    finish_reason: str = ""
    content_source: str = ""  # where the content came from; "" when none was captured
    content_read: bool = False  # read_llm_content has run (transcripts build calls read)

    @property
    def captured(self) -> bool:
        return bool(self.content_source)


class ToolCall(Struct):
    name: str = ""
    call_id: str = ""
    arguments: str = ""
    result: str | None = None


def answered_call(result: Part, asked: Part | None, name: str = "tool") -> ToolCall:
    """The tool call a ``tool_result`` part of the conversation answers, when no tool span of
    its own says so: its name and arguments from the ``tool_call`` part an assistant message
    asked for (``asked``, found by the caller: by tool-call id, or by position where the
    messages carry none), its result the part's text. The one rule by which both a transcript
    and a trace of the model client alone make tool steps from chat messages. Without a request
    the tool is the result's own ``name`` (an OpenAI ``function`` message's), else ``name``."""
    if asked is None:
        return ToolCall(name=result.name or name, call_id=result.id, result=result.text)
    return ToolCall(
        name=asked.name or result.name or name,
        call_id=result.id or asked.id,
        arguments=asked.arguments,
        result=result.text,
    )


class Document(Struct):
    id: str
    content: str | None
    score: float | None


class Retrieval(Struct):
    query: str = ""
    documents: list[Document] = []


class Boundary(Struct):
    kind: str  # Agent | Chain
    name: str
    input: str | None = None
    output: str | None = None


Operation = LLMCall | ToolCall | Retrieval | Boundary | None


class Reading(Struct):
    """A span read through the conventions: its operation and what could not be read."""

    op: Operation
    role: str  # llm | tool | retrieval | agent | chain | embedding | other
    convention: str  # genai | openinference | none
    problems: list[tuple[str, str]] = []


# --------------------------------------------------------------------------- value helpers


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


# OpenInference's OPENINFERENCE_HIDE_* settings leave this marker where the value was.


def _shown(value: Any) -> Any:
    """``None`` for a hidden (redacted) value, else the value."""
    return None if value == REDACTED else value


class BadContent(Exception):
    pass


def _json_value(value: Any) -> Any:
    """A JSON attribute that may be stored as a string or already structured."""
    if isinstance(value, str):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError as exc:
            raise BadContent(f"not valid JSON ({exc})") from None
    return value


def indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """Collect ``prefix.N.rest`` attributes into one dict of ``rest`` keys per N, in N order.

    Gaps in N are kept out (a list of the present indices in order); keys whose N is not a
    decimal number are ignored.
    """
    dot = prefix + "."
    groups: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(dot):
            continue
        rest = key[len(dot) :]
        num, sep, tail = rest.partition(".")
        if not sep or not num.isdigit() or not tail:
            continue
        groups.setdefault(int(num), {})[tail] = value
    return [groups[i] for i in sorted(groups)]


# --------------------------------------------------------------------------- messages


def _tool_call_part(obj: dict[str, Any]) -> Part:
    fn = obj.get("function")
    if isinstance(fn, dict):
        name, args = fn.get("name"), fn.get("arguments")
    else:
        name, args = obj.get("name"), obj.get("arguments")
    # (positional: a message window is read on every call, and keywords cost more)
    return Part("tool_call", "", text_of(obj.get("id")), text_of(name), as_text(args))


_TOOL_CALL_ITEMS = frozenset({"tool-call", "tool_use"})
_TOOL_RESULT_ITEMS = frozenset({"tool-result", "tool_result"})
_CALL_ITEMS = _TOOL_CALL_ITEMS | _TOOL_RESULT_ITEMS


_TEXT_BLOCK_KEYS = ({"text"}, {"type", "text"})


def _blocks_text(value: Any) -> str | None:
    """The text of a list of content blocks — Anthropic's and MCP's ``{type: "text", text}``,
    Bedrock Converse's ``{text}`` / ``{json}`` (Strands) — or of its JSON; None for any other
    value. Blocks given as JSON text must be bare blocks (no other keys): a tool's result that
    is a JSON array of records with a ``text`` field stays the JSON it was."""
    strict = isinstance(value, str)
    if strict:
        if not value.startswith("[{") or ('"text"' not in value and '"json"' not in value):
            return None
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return None
    if not isinstance(value, list) or not value:
        return None
    out = []
    for b in value:
        if not isinstance(b, dict):
            return None
        if "text" in b and (not strict or b.keys() in _TEXT_BLOCK_KEYS):
            out.append(text_of(b["text"]))
        elif b.keys() == {"json"}:
            out.append(as_text(b["json"]))
        else:
            return None
    return "\n".join(out)


def _item_text(value: Any) -> str:
    """A tool result item's content: the AI SDK's ``{type, value}`` output, a list of text blocks,
    or the value itself."""
    if isinstance(value, dict) and "value" in value and "type" in value:
        value = value["value"]
    text = _blocks_text(value) if isinstance(value, list) else None
    return as_text(value) if text is None else text


# Bedrock Converse's content blocks (Strands Agents' messages): each block is an object keyed by
# its kind. Only a list whose every block has one of these keys is read as blocks.
_CONVERSE_KEYS = frozenset(
    {
        "text",
        "toolUse",
        "toolResult",
        "json",
        "image",
        "document",
        "video",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "citationsContent",
    }
)


def _converse_blocks(value: Any) -> list[dict[str, Any]] | None:
    """``value`` (or its JSON) as Converse content blocks, when it is a list of them with a tool
    use or result or text among them; None otherwise."""
    if isinstance(value, str):
        if not value.startswith("[{"):
            return None
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return None
    if not isinstance(value, list) or not value:
        return None
    for b in value:
        if not isinstance(b, dict) or len(b) != 1 or next(iter(b)) not in _CONVERSE_KEYS:
            return None
    return value


def _converse_part(block: dict[str, Any]) -> Part | None:
    """One Converse block as a part: ``toolUse`` a call, ``toolResult`` a result (its call id
    is ``toolUseId``), ``text`` / ``json`` text; media and cache markers are no text (None)."""
    kind, body = next(iter(block.items()))
    if kind == "text":
        return Part("text", text_of(body))
    if kind == "json":
        return Part("text", as_text(body))
    if not isinstance(body, dict):
        return None
    if kind == "toolUse":
        return Part(
            "tool_call",
            "",
            text_of(body.get("toolUseId")),
            text_of(body.get("name")),
            as_text(body.get("input")),
        )
    if kind == "toolResult":
        return Part("tool_result", _item_text(body.get("content")), text_of(body.get("toolUseId")))
    return None


def _typed_part(c: dict[str, Any]) -> Part:
    """One typed content item as a part: a tool call, a tool result (with its call id), or text."""
    kind = c.get("type")
    if kind in _TOOL_RESULT_ITEMS or (kind is None and "toolCallId" in c and "output" in c):
        out = c.get("output", c.get("result", c.get("content")))
        return Part(
            "tool_result", _item_text(out), text_of(c.get("toolCallId") or c.get("tool_use_id"))
        )
    if kind in _TOOL_CALL_ITEMS or (kind is None and "toolCallId" in c):
        return Part(
            "tool_call",
            "",
            text_of(c.get("toolCallId") or c.get("id")),
            text_of(c.get("toolName") or c.get("name")),
            as_text(c.get("input", c.get("args"))),
        )
    return Part("text", text_of(c.get("text", c.get("content", ""))))


def _gemini_part(p: dict[str, Any]) -> Part:
    """A part of Gemini's ``Content`` (google-genai, Google ADK): ``text``, ``function_call``
    ``{id, name, args}`` or ``function_response`` ``{id, name, response}`` (or camelCase)."""
    call = p.get("function_call", p.get("functionCall"))
    if isinstance(call, dict):
        return Part(
            "tool_call",
            "",
            text_of(call.get("id")),
            text_of(call.get("name")),
            as_text(call.get("args")),
        )
    resp = p.get("function_response", p.get("functionResponse"))
    if isinstance(resp, dict):
        return Part("tool_result", as_text(resp.get("response")), text_of(resp.get("id")))
    return Part("text", text_of(p.get("text", p.get("content", ""))))


# DSPy's ChatAdapter writes a module's inputs into one user message, each field under its marker
# ("[[ ## question ## ]]"); ReAct's trajectory among them holds each tool's result as a field
# "observation_N", and the message ends with the adapter's request for the output fields.
_DSPY_OBSERVATION = re.compile(r"^\[\[ ## observation_\d+ ## \]\]\n", re.MULTILINE)
_DSPY_FIELD = re.compile(
    r"\n\n\[\[ ## \w+ ## \]\]\n|\n\nRespond with the corresponding output fields"
)


def _text_parts(text: str) -> list[Part]:
    """A message's text as parts: one text part, or — a DSPy ChatAdapter message carrying a
    ReAct trajectory — its tool results (each observation field) as tool results (no call id:
    inline) among the text, so that each is tied to its tool span as any other result is. The
    parts joined by newlines (``Message.text``) are the text again: each cut is at a newline."""
    if "[[ ## observation_" not in text:
        return [Part("text", text)]
    parts: list[Part] = []
    at = 0
    for m in _DSPY_OBSERVATION.finditer(text):
        if m.start() < at:
            continue
        end = _DSPY_FIELD.search(text, m.end())
        stop = end.start() if end else len(text)
        parts.append(Part("text", text[at : m.end() - 1]))
        parts.append(Part("tool_result", text[m.end() : stop]))
        at = stop + 1  # (past the newline the join puts back)
    if not parts:
        return [Part("text", text)]
    if at <= len(text):
        parts.append(Part("text", text[at:]))
    return parts


# Haystack's ChatMessage.to_dict content items: {"text"}, {"tool_call": {tool_name, arguments,
# id}}, {"tool_call_result": {result, origin: the call, error}} (reasoning, images: no text).
_HS_ITEMS = frozenset({"tool_call", "tool_call_result"})


def _haystack_part(c: dict[str, Any]) -> Part:
    call = c.get("tool_call")
    if isinstance(call, dict):
        return Part(
            "tool_call",
            "",
            text_of(call.get("id")),
            text_of(call.get("tool_name")),
            as_text(call.get("arguments")),
        )
    result = c.get("tool_call_result")
    if isinstance(result, dict):
        origin = result.get("origin")
        call_id = origin.get("id") if isinstance(origin, dict) else None
        return Part("tool_result", as_text(result.get("result")), text_of(call_id))
    return Part("text", text_of(c.get("text", "")))


def message_from(obj: Any, role: str = "") -> Message:
    """One message in any of the forms the conventions use (parts form, OpenAI form, event body)."""
    if not isinstance(obj, dict):
        return Message(role or "user", [Part("text", as_text(obj))])
    if isinstance(obj.get("message"), dict):  # gen_ai.choice body
        inner = dict(obj["message"])
        inner.setdefault("role", role or "assistant")
        return message_from(inner, role or "assistant")
    if isinstance(obj.get("message"), list) and "content" not in obj:
        # (Strands' gen_ai.choice: the reply's content blocks are the message)
        return message_from({"role": role or "assistant", "content": obj["message"]})
    role = text_of(obj.get("role")) or role or "user"
    if role == "model":  # (Gemini's name for the assistant)
        role = "assistant"
    parts = obj.get("parts")
    if isinstance(parts, list):
        read: list[Part] = []
        add = read.append
        for p in parts:
            if not isinstance(p, dict):
                add(Part("text", as_text(p)))
                continue
            kind = p.get("type")
            if kind is None:
                add(_gemini_part(p))
            elif kind == "tool_call":
                add(_tool_call_part(p))
            elif kind == "tool_call_response":
                resp = p.get("response", p.get("result"))
                add(Part("tool_result", _item_text(resp), text_of(p.get("id"))))
            else:
                add(Part("text", text_of(p.get("content", p.get("text", "")))))
        # LiteLLM's OTel callback writes parts beside the OpenAI form's message-level keys: a
        # reply's calls in ``tool_calls`` (its parts empty), a tool message's result as a text
        # part with the call's ``tool_call_id`` on the message
        calls = obj.get("tool_calls")
        if isinstance(calls, list):
            read.extend(_tool_call_part(c) for c in calls if isinstance(c, dict))
        call_id = obj.get("tool_call_id")
        if role == "tool" and call_id and read and all(p.kind == "text" for p in read):
            read = [Part("tool_result", "\n".join(p.text for p in read), text_of(call_id))]
        return Message(role, read, text_of(obj.get("name")))
    msg = Message(role, name=text_of(obj.get("name")))
    content = obj.get("content")
    blocks = _converse_blocks(content)
    if blocks is not None:
        parts = [p for p in map(_converse_part, blocks) if p is not None]
        if any(p.kind != "text" for p in parts):
            msg.parts = parts
            return msg
        # (text only: the message's text, read below as any other — a tool message's result)
        content = "\n".join(p.text for p in parts)
    call_id = text_of(obj.get("tool_call_id") or (obj.get("id") if role == "tool" else ""))
    if isinstance(content, list) and any(
        isinstance(c, dict) and _HS_ITEMS & c.keys() for c in content
    ):
        msg.parts = [_haystack_part(c) for c in content if isinstance(c, dict)]
        return msg
    if isinstance(content, list) and any(
        isinstance(c, dict) and c.get("type") in _CALL_ITEMS for c in content
    ):
        # typed items: the AI SDK's (tool-call, tool-result) or Anthropic's (tool_use,
        # tool_result) — each call and result its own part, with its id
        for c in content:
            msg.parts.append(_typed_part(c) if isinstance(c, dict) else Part("text", as_text(c)))
        calls = obj.get("tool_calls")
        if isinstance(calls, list):
            msg.parts.extend(_tool_call_part(c) for c in calls if isinstance(c, dict))
        return msg
    if isinstance(content, list):
        text = "\n".join(
            text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict) else as_text(c)
            for c in content
        )
    else:
        text = as_text(content)
    if role == "tool":
        msg.parts.append(Part("tool_result", text, id=call_id))
    elif text or content is not None:
        msg.parts.extend(_text_parts(text))
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        msg.parts.extend(_tool_call_part(c) for c in calls if isinstance(c, dict))
    return msg


# A call's messages are its whole history so far: each message of a long run is read again by
# every later call. Messages are kept by their JSON text (a message is not changed once read),
# so each distinct one is parsed once. The table is emptied when it holds more than
# ``_SEEN_MAX`` messages or ``_SEEN_BYTES`` of their JSON, and when a trace has been read
# (``forget_messages``): what afp keeps stays bounded, and a library caller keeps nothing.
_MESSAGE_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])
_SEEN: dict[bytes, Message] = {}
_SEEN_MAX = 4096
_SEEN_BYTES = 8 << 20
_seen_bytes = 0


def forget_messages() -> None:
    """Let go of the messages kept while a trace was read."""
    global _seen_bytes
    _SEEN.clear()
    _seen_bytes = 0


def _message_array(value: str) -> list[Message] | None:
    """A JSON array of messages, each message parsed once per distinct text; None when the
    value is not a JSON array (its error, if any, is the generic decoder's to say)."""
    try:
        raws = _MESSAGE_ARRAY.decode(value)
    except msgspec.ValidationError:
        return None
    except msgspec.DecodeError as exc:
        raise BadContent(f"not valid JSON ({exc})") from None
    global _seen_bytes
    seen = _SEEN
    out = []
    for raw in raws:
        key = bytes(raw)
        msg = seen.get(key)
        if msg is None:
            if len(seen) >= _SEEN_MAX or _seen_bytes > _SEEN_BYTES:
                forget_messages()
            msg = seen[key] = message_from(msgspec.json.decode(key))
            _seen_bytes += len(key)
        out.append(msg)
    return out


def messages_from(value: Any) -> list[Message]:
    if isinstance(value, str):
        read = _message_array(value)
        if read is not None:
            return read
    value = _json_value(value)
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if not isinstance(value, list):
        raise BadContent("expected a JSON array of messages")
    return [message_from(m) for m in value]


# smolagents' own message roles (its memory, as OpenInference records it): a step's tool calls
# as text, "Calling tools:\n[...]", and their results, "Observation:\n…" — sent to the model as
# assistant and user messages. A result is read as a tool result (its text without the prefix:
# what the tool returned), so it is tied to its tool span by content.
_SMOLAGENTS_ROLES = {"tool-call": "assistant", "tool-response": "tool"}
_OBSERVATION = "Observation:\n"


def _indexed_messages(attrs: dict[str, Any], prefix: str, oi: bool) -> list[Message]:
    out = []
    for g in indexed(attrs, prefix):
        if oi:
            g = {k.removeprefix("message."): v for k, v in g.items()}
        role = text_of(g.get("role")) or "user"
        content = g.get("content")
        if content is None:
            pieces = [
                text_of(c.get("message_content.text", c.get("text", "")))
                for c in indexed(g, "contents")
            ]
            content = "\n".join(p for p in pieces if p) if pieces else None
        if role in _SMOLAGENTS_ROLES:
            if role == "tool-response" and isinstance(content, str):
                content = content.removeprefix(_OBSERVATION)
            role = _SMOLAGENTS_ROLES[role]
        msg = Message(role, name=text_of(g.get("name")))
        call_id = text_of(g.get("tool_call_id"))
        if role == "tool" and (content is not None or call_id):
            msg.parts.append(Part("tool_result", text_of(content), id=call_id))
        elif content is not None:
            msg.parts.extend(_text_parts(text_of(content)))
        if "function_call.name" in g:  # (OpenAI's legacy single call: LiteLLM's callback)
            msg.parts.append(
                Part(
                    "tool_call",
                    name=text_of(g["function_call.name"]),
                    arguments=as_text(g.get("function_call.arguments")),
                )
            )
        for c in indexed(g, "tool_calls"):
            c = {k.removeprefix("tool_call."): v for k, v in c.items()}
            msg.parts.append(
                Part(
                    "tool_call",
                    id=text_of(c.get("id")),
                    name=text_of(c.get("function.name", c.get("name"))),
                    arguments=as_text(c.get("function.arguments", c.get("arguments"))),
                )
            )
        out.append(msg)
    return out


def _system_parts(value: Any) -> list[str]:
    value = _json_value(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise BadContent("expected an array of instruction parts")
    return [
        text_of(p.get("content", p.get("text", ""))) if isinstance(p, dict) else as_text(p)
        for p in value
    ]


# --------------------------------------------------------------------------- per operation


EVENT_TIME = "malformed-event-time"


def _file_order_times(times: list[int], lo: int, hi: int) -> tuple[list[int], int]:
    """The times with each one outside ``lo..hi`` (missing, unparsable, out of range, or
    outside its span) replaced by the last good time before it (0 if none), so a stable sort
    keeps it where it stood in the file; and how many were replaced."""
    out: list[int] = []
    bad = last = 0
    for t in times:
        if lo <= t <= hi:
            last = t
        else:
            bad += 1
        out.append(last)
    return out, bad


def _record_name(r: LogRecord) -> str:
    """A log record's event name (the field, or the older ``event.name`` attribute)."""
    return r.event_name or text_of(r.attributes.get("event.name"))


def _content_records(span: Span, reading: Reading) -> list[tuple[str, Any, dict[str, Any]]]:
    """(event name, body, attributes) of the span's events and joined log records, in time order.

    A record whose time is missing, unparsable, out of range or outside the span's own time
    range keeps its place in the file (it sorts with the record before it) rather than moving
    to the front as if at time 0 (or wherever its wrong time puts it); the span then gets a
    ``malformed-event-time`` problem, since the order of its messages is a guess."""
    if not span.events and not span.logs:
        return []  # (most spans of a long trace: content on the span itself)
    # (a span's events and the records of its call are written while it runs, so a time
    # outside its range is not a time of this call; a span without a range checks none)
    lo, hi = (1, MAX_NS) if span.bad_time else (span.start_ns, span.end_ns)
    recs: list[tuple[int, str, Any, dict[str, Any]]] = []
    # (only the records read as content: an evaluation of the call, written after it ended, is
    # no message of it and its time says nothing of their order — records-ignored counts it)
    events = [e for e in span.events if e.name in _READ_RECORDS]
    times, bad_events = _file_order_times([e.time_ns for e in events], lo, hi)
    for t, e in zip(times, events, strict=True):
        recs.append((t, e.name, None, e.attributes))
    logs = [(_record_name(r), r) for r in span.logs]
    logs = [(n, r) for n, r in logs if n in _READ_RECORDS]
    times, bad_logs = _file_order_times([r.time_ns for _, r in logs], lo, hi)
    for t, (name, r) in zip(times, logs, strict=True):
        recs.append((t, name, r.body, r.attributes))
    if bad_events or bad_logs:
        what = [f"{bad_events} span event(s)"] if bad_events else []
        what += [f"{bad_logs} log record(s)"] if bad_logs else []
        reading.problems.append(
            (EVENT_TIME, f"{span.name!r} ({span.span_id}): {' and '.join(what)}")
        )
    recs.sort(key=lambda r: r[0])
    return [(n, b, a) for _, n, b, a in recs]


def _mlflow_value(a: dict[str, Any], key: str) -> Any:
    """An MLflow attribute's value: its JSON decoded (the text itself when it is no JSON)."""
    value = a.get(key)
    if isinstance(value, str):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return value


def _mlflow_reply(value: Any) -> list[Message]:
    """A chat span's ``mlflow.spanOutputs``: the client's response (OpenAI's ``choices``, a
    message with a role such as Anthropic's) or text."""
    if isinstance(value, dict) and isinstance(value.get("choices"), list):
        return [
            message_from(c["message"], "assistant")
            for c in value["choices"]
            if isinstance(c, dict) and isinstance(c.get("message"), dict)
        ]
    if isinstance(value, dict) and "role" in value:
        return [message_from(value, "assistant")]
    if isinstance(value, str):
        return [Message("assistant", [Part("text", value)])]
    return []


def _haystack_replies(value: Any) -> list[dict[str, Any]]:
    """An agent step's ``{"replies": [...]}`` (ChatMessage dicts); [] when it holds none."""
    data = _json_value(value)
    replies = data.get("replies") if isinstance(data, dict) else None
    return [r for r in replies if isinstance(r, dict)] if isinstance(replies, list) else []


def _haystack_meta(value: Any) -> dict[str, Any]:
    """The first reply's ``meta`` (model, finish reason, usage); {} when unreadable (the
    reply's reading reports it)."""
    try:
        replies = _haystack_replies(value)
    except BadContent:
        return {}
    meta = replies[0].get("meta") if replies else None
    return meta if isinstance(meta, dict) else {}


def haystack_requests(spans: list[Span]) -> int:
    """Give each Haystack agent step's LLM span — whose request Haystack writes as Python text —
    the messages it sent, as ``gen_ai.input.messages``: the agent's conversation (its run span's
    ``haystack.agent.output``, JSON) up to that step's reply; the k-th step (in start order) sent
    every message before the k-th reply. A step whose own reply is not that message gets none.
    Returns how many were given."""
    runs = {
        s.span_id: s
        for s in spans
        if s.name == "haystack.agent.run" and _HS_AGENT_OUT in s.attributes
    }
    if not runs:
        return 0
    by_id = {s.span_id: s for s in spans}
    steps: dict[str, list[Span]] = {}
    for s in spans:
        if s.name != "haystack.agent.step.llm" or "gen_ai.input.messages" in s.attributes:
            continue
        up = by_id.get(s.parent_id or "")
        for _ in range(4):  # (step.llm < step < run; a wrapper or two between is allowed)
            if up is None or up.span_id in runs:
                break
            up = by_id.get(up.parent_id or "")
        if up is not None and up.span_id in runs:
            steps.setdefault(up.span_id, []).append(s)
    given = 0
    for run_id, llm_spans in steps.items():
        try:
            data = _json_value(runs[run_id].attributes[_HS_AGENT_OUT])
        except BadContent:
            continue
        msgs = data.get("messages") if isinstance(data, dict) else None
        if not isinstance(msgs, list):
            continue
        replies = [
            i for i, m in enumerate(msgs) if isinstance(m, dict) and m.get("role") == "assistant"
        ]
        for k, s in enumerate(sorted(llm_spans, key=lambda x: x.start_ns)):
            if k >= len(replies):
                break
            try:
                own = _haystack_replies(s.attributes.get(_HS_REPLY, "{}"))
            except BadContent:
                own = []
            if own and own[0].get("content") != msgs[replies[k]].get("content"):
                continue
            # (a new dict: spans may share one empty attribute dict)
            s.attributes = {**s.attributes, "gen_ai.input.messages": json.dumps(msgs[: replies[k]])}
            given += 1
    return given


def _llm(span: Span, reading: Reading) -> LLMCall:
    a = span.attributes
    call = LLMCall(
        model=text_of(
            a.get("gen_ai.response.model")
            or a.get("gen_ai.request.model")
            or a.get("llm.model_name")
            or a.get("ai.response.model")
            or a.get("ai.model.id")
        ),
        provider=text_of(
            a.get("gen_ai.provider.name")
            or a.get("gen_ai.system")
            or a.get("llm.provider")
            or a.get("llm.system")
            or a.get("ai.model.provider")
        ),
    )
    for key_in, key_out in (
        ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"),
        ("gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens"),
        ("llm.token_count.prompt", "llm.token_count.completion"),
        ("ai.usage.inputTokens", "ai.usage.outputTokens"),
        ("ai.usage.promptTokens", "ai.usage.completionTokens"),
    ):
        for key in (key_in, key_out):
            if key in a and _int(a[key]) is None:
                reading.problems.append(
                    (
                        "malformed-attribute",
                        f"span {span.name!r} ({span.span_id}): {key} is not a token count "
                        f"({a[key]!r}); counted as 0",
                    )
                )
        if call.input_tokens is None:
            call.input_tokens = _int(a.get(key_in))
        if call.output_tokens is None:
            call.output_tokens = _int(a.get(key_out))
    if call.input_tokens is None and call.output_tokens is None and _LF_RESPONSE in a:
        # (Logfire before it wrote gen_ai.usage.*: the response's own usage)
        with contextlib.suppress(BadContent):
            data = _json_value(a[_LF_RESPONSE])
            usage = data.get("usage") if isinstance(data, dict) else None
            if isinstance(usage, dict):
                call.input_tokens = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
                call.output_tokens = _int(
                    usage.get("completion_tokens", usage.get("output_tokens"))
                )
    if call.input_tokens is None and call.output_tokens is None and _HS_REPLY in a:
        meta = _haystack_meta(a[_HS_REPLY])
        usage = meta.get("usage")
        if isinstance(usage, dict):
            call.input_tokens = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
            call.output_tokens = _int(usage.get("completion_tokens", usage.get("output_tokens")))
        call.model = call.model or text_of(meta.get("model"))
        call.finish_reason = text_of(meta.get("finish_reason"))
    if call.input_tokens is None and call.output_tokens is None and _MLFLOW_TYPE in a:
        usage = _mlflow_value(a, "mlflow.chat.tokenUsage")
        if isinstance(usage, dict):
            call.input_tokens = _int(usage.get("input_tokens"))
            call.output_tokens = _int(usage.get("output_tokens"))
        call.model = call.model or text_of(_mlflow_value(a, "mlflow.llm.model"))
    reasons = a.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):  # (LiteLLM's callback writes the array as its JSON text)
        reasons = retyped("gen_ai.response.finish_reasons", reasons)
    if isinstance(reasons, list) and reasons:
        call.finish_reason = text_of(reasons[0])
    elif isinstance(reasons, str):
        call.finish_reason = reasons

    return call


_CONTENT_KEYS = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.output",
    "genai.output",
    "ai.prompt.messages",
    "ai.response.text",
    "ai.response.toolCalls",
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "request_data",
    "response_data",
    "events",
    _MLFLOW_IN,
    _MLFLOW_OUT,
    _HS_REQUEST,
    _HS_REPLY,
)
# Logfire's LLM spans in its first semantic-conventions version (``instrument_openai(version=1)``,
# its only form before 2025): the request's JSON body and the response as JSON attributes.
_LF_REQUEST, _LF_RESPONSE = "request_data", "response_data"


# Logfire's OpenAI Agents spans (``logfire.instrument_openai_agents()``), known by their message
# templates: a function call (``name``, ``input``, ``output``), a handoff (``from_agent`` /
# ``to_agent``), an agent run (``name``); a Chat Completions generation keeps its messages in
# ``input`` / ``output`` (its ``request_data`` is the two joined, for Logfire's UI).
_LF_TEMPLATE = "logfire.msg_template"
_LF_ROLES = {
    "Function: {name}": "tool",
    "Handoff: {from_agent} → {to_agent}": "tool",
    "Agent run: {name!r}": "agent",
}
_LF_GENERATION = "Chat completion with {gen_ai.request.model!r}"


def _logfire_role(a: dict[str, Any]) -> str | None:
    """The role of a Logfire OpenAI Agents span by its template (turns and tasks are chains)."""
    template = a.get(_LF_TEMPLATE)
    if not isinstance(template, str):
        return None
    if template in _LF_ROLES:
        return _LF_ROLES[template]
    return "chain" if template.startswith(("Turn {turn} for agent ", "Task: ")) else None


def _logfire_events(value: Any) -> tuple[list[Message], list[Message]]:
    """Logfire's ``events`` attribute (a call to the Responses API): the messages as per-message
    event bodies (``{"event.name": "gen_ai.user.message", …}``), the reply last — the trailing
    assistant messages (Logfire marks each output item an assistant message) and any
    ``gen_ai.choice``."""
    events = _json_value(value)
    if not isinstance(events, list):
        raise BadContent("expected a JSON array of events")
    msgs: list[tuple[str, Message]] = []
    for e in events:
        if not isinstance(e, dict):
            continue
        name = text_of(e.get("event.name"))
        role = "assistant" if name == "gen_ai.choice" else _MESSAGE_EVENTS.get(name, "")
        msgs.append((name, message_from(_body(e), role)))
    cut = len(msgs)
    while cut and msgs[cut - 1][1].role == "assistant":
        cut -= 1
    return [m for _, m in msgs[:cut]], [m for _, m in msgs[cut:]]


def _logfire_reply(value: Any) -> list[Message]:
    """Logfire's ``response_data``: ``{"message": {...}, "usage"}`` for a chat completion, or
    ``{"combined_chunk_content", "chunk_count"}`` for a stream it read to the end."""
    data = _json_value(value)
    if not isinstance(data, dict):
        raise BadContent("expected a JSON object")
    if isinstance(data.get("message"), dict):
        return [message_from(data["message"], "assistant")]
    if isinstance(data.get("combined_chunk_content"), str):
        return [Message("assistant", [Part("text", data["combined_chunk_content"])])]
    return []


# Google ADK's own spans before its GenAI-conventions schema (1.x; ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN
# =1 since): a call_llm span with the request and response as JSON (Gemini's Content form).
_ADK_REQUEST, _ADK_RESPONSE = "gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response"


def _adk_content(a: dict[str, Any], call: LLMCall, bad: Callable[[str, BadContent], None]) -> None:
    """Read a legacy ADK call's ``llm_request`` (``contents``, ``config.system_instruction``) and
    ``llm_response`` (``content``) into ``call``."""
    try:
        request = _json_value(a[_ADK_REQUEST])
        if not isinstance(request, dict):
            raise BadContent("expected a JSON object")
        contents = request.get("contents")
        if isinstance(contents, list) and contents:
            call.inputs = [message_from(m) for m in contents]
            call.content_source = call.content_source or "span attributes"
        config = request.get("config")
        system = config.get("system_instruction") if isinstance(config, dict) else None
        if system and not call.system:
            # (a plain string, or a Content: never JSON text)
            call.system = [
                message_from(system).text() if isinstance(system, dict) else text_of(system)
            ]
    except BadContent as exc:
        bad(_ADK_REQUEST, exc)
    try:
        response = _json_value(a.get(_ADK_RESPONSE, "{}"))
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict) and not call.outputs:
            call.outputs = [message_from(content, "assistant")]
    except BadContent as exc:
        bad(_ADK_RESPONSE, exc)


def read_llm_content(span: Span, reading: Reading) -> None:
    """Read an LLM span's message content into its ``LLMCall`` (once; on demand, so that a long
    trace never holds every call's parsed history at the same time). The raw content attributes,
    events and log records are released afterwards."""
    call = reading.op
    if not isinstance(call, LLMCall) or call.content_read:
        return
    call.content_read = True
    a = span.attributes

    def bad(key: str, exc: BadContent) -> None:
        reading.problems.append(
            (
                "malformed-attribute",
                f"span {span.name!r} ({span.span_id}): {key}: {exc}; content ignored",
            )
        )

    def structured(src: dict[str, Any], origin: str) -> None:
        for key, target in (
            ("gen_ai.input.messages", "inputs"),
            ("gen_ai.output.messages", "outputs"),
        ):
            if key in src and not getattr(call, target):
                try:
                    setattr(call, target, messages_from(src[key]))
                    call.content_source = call.content_source or origin
                except BadContent as exc:
                    bad(key, exc)
        if "gen_ai.system_instructions" in src and not call.system:
            try:
                call.system = _system_parts(src["gen_ai.system_instructions"])
                call.content_source = call.content_source or origin
            except BadContent as exc:
                bad("gen_ai.system_instructions", exc)

    structured(a, "span attributes")
    records = _content_records(span, reading)
    per_message_in: list[Message] = []
    per_message_out: list[Message] = []
    for name, body, attrs in records:
        if name == DETAILS_EVENT:
            structured(attrs, "operation-details event")
            if isinstance(body, dict):
                structured(body, "operation-details event")
        elif name in _MESSAGE_EVENTS:
            src = body if body is not None else attrs
            per_message_in.append(message_from(_body(src), _MESSAGE_EVENTS[name]))
        elif name == "gen_ai.choice":
            src = body if body is not None else attrs
            per_message_out.append(message_from(_body(src), "assistant"))
        elif name in ("gen_ai.content.prompt", "gen_ai.content.completion"):
            key = "gen_ai.prompt" if name.endswith("prompt") else "gen_ai.completion"
            if key in attrs:
                try:
                    msgs = messages_from(attrs[key])
                except BadContent as exc:
                    bad(key, exc)
                    continue
                (per_message_in if key == "gen_ai.prompt" else per_message_out).extend(msgs)
    if not call.inputs and per_message_in:
        call.inputs = per_message_in
        call.content_source = call.content_source or "per-message events"
    if not call.outputs and per_message_out:
        call.outputs = per_message_out
        call.content_source = call.content_source or "per-message events"
    if not call.inputs:
        call.inputs = _indexed_messages(a, "gen_ai.prompt", oi=False) or _indexed_messages(
            a, "llm.input_messages", oi=True
        )
        if call.inputs:
            call.content_source = call.content_source or "indexed attributes"
    if not any(m.parts for m in call.outputs):
        # (nothing, or a reply of no parts: LiteLLM's callback leaves a tool-calling reply's
        # gen_ai.output.messages empty and writes its call as gen_ai.completion.0.function_call)
        outputs = _indexed_messages(a, "gen_ai.completion", oi=False) or _indexed_messages(
            a, "llm.output_messages", oi=True
        )
        if outputs or not call.outputs:
            call.outputs = outputs
        if outputs:
            call.content_source = call.content_source or "indexed attributes"
        for m in call.outputs:
            if m.role == "user":  # indexed completions often omit the role
                m.role = "assistant"
    if not call.finish_reason:
        for g in indexed(a, "gen_ai.completion"):
            if g.get("finish_reason"):
                call.finish_reason = text_of(g["finish_reason"])
                break
    empty = len([m for m in call.inputs if not m.parts])  # (no generator: every call runs it)
    if empty:
        # (OpenInference's Haystack instrumentation writes a tool-calling reply's and a tool
        # result's message as its role alone)
        reading.problems.append(
            (
                "messages-without-content",
                f"span {span.name!r} ({span.span_id}): {empty} of its {len(call.inputs)} input "
                "message(s) hold a role and nothing else: the instrumentation did not record "
                "their content, so no tool call or result is read from them",
            )
        )
    if not call.inputs and _ADK_REQUEST in a:
        _adk_content(a, call, bad)
    if not call.inputs and "events" in a and a.get("gen_ai.system") == "openai":
        try:
            call.inputs, outputs = _logfire_events(a["events"])
            call.outputs = call.outputs or outputs
            call.content_source = call.content_source or "span attributes"
        except BadContent as exc:
            bad("events", exc)
    if not call.inputs and a.get(_LF_TEMPLATE) == _LF_GENERATION and "input" in a:
        try:
            call.inputs = messages_from(a["input"])
            call.outputs = call.outputs or messages_from(a.get("output") or "[]")
            call.content_source = call.content_source or "span attributes"
        except BadContent as exc:
            bad("input", exc)
    if not call.outputs and _HS_REPLY in a:
        try:
            call.outputs = [message_from(r, "assistant") for r in _haystack_replies(a[_HS_REPLY])]
        except BadContent as exc:
            bad(_HS_REPLY, exc)
    if not call.inputs and _HS_REQUEST in a:
        bad(_HS_REQUEST, BadContent("Haystack writes the request as Python text, not JSON"))
    if not call.inputs and _MLFLOW_IN in a:
        request = _mlflow_value(a, _MLFLOW_IN)
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            call.inputs = [message_from(m) for m in request["messages"]]
            call.outputs = call.outputs or _mlflow_reply(_mlflow_value(a, _MLFLOW_OUT))
            call.content_source = call.content_source or "span attributes"
    if not call.inputs and _LF_REQUEST in a:
        try:
            call.inputs = messages_from(a[_LF_REQUEST])
            call.content_source = call.content_source or "span attributes"
        except BadContent as exc:
            bad(_LF_REQUEST, exc)
    if not call.outputs and _LF_RESPONSE in a:
        try:
            call.outputs = _logfire_reply(a[_LF_RESPONSE])
        except BadContent as exc:
            bad(_LF_RESPONSE, exc)
    if not call.inputs and "ai.prompt.messages" in a:
        try:
            call.inputs = messages_from(a["ai.prompt.messages"])
            call.content_source = call.content_source or "span attributes"
        except BadContent as exc:
            bad("ai.prompt.messages", exc)
    if not call.outputs and ("ai.response.text" in a or "ai.response.toolCalls" in a):
        try:
            call.outputs = [_ai_sdk_reply(a)]
        except BadContent as exc:
            bad("ai.response.toolCalls", exc)
    if not call.outputs:
        # Not content_source: any-agent gives the messages of a trace's first call only, so a
        # call with a reply and no messages reads what came before it as an uncaptured call does.
        call.outputs = _any_agent_output(a)
    for key in _CONTENT_KEYS:
        a.pop(key, None)
    span.events = []
    span.logs = []


def _ai_sdk_reply(a: dict[str, Any]) -> Message:
    """The Vercel AI SDK's reply: ``ai.response.text`` and the ``ai.response.toolCalls`` asked for
    (``[{toolCallId, toolName, input}]``, ``args`` before v5)."""
    reply = Message("assistant")
    text = text_of(_shown(a.get("ai.response.text")))
    if text:
        reply.parts.append(Part("text", text))
    calls = _json_value(a.get("ai.response.toolCalls", "[]"))
    if not isinstance(calls, list):
        raise BadContent("expected a JSON array of tool calls")
    reply.parts.extend(_typed_part(c) for c in calls if isinstance(c, dict))
    return reply


# any-agent (mozilla-ai) writes a call's reply, and a tool's result, as one attribute typed by its
# companion: "text", or "json" (for a call, the tool calls it asked for: [{name, arguments}]).
# Releases before 0.20 spelled the prefix "genai".
_ANY_AGENT_OUTPUT = (("gen_ai.output", "gen_ai.output.type"), ("genai.output", "genai.output.type"))


def _any_agent_value(a: dict[str, Any]) -> tuple[Any, bool] | None:
    """The output attribute's value and whether it is typed JSON; None when there is none."""
    for key, type_key in _ANY_AGENT_OUTPUT:
        if key in a:
            value = _shown(a[key])
            if a.get(type_key) == "json" and isinstance(value, str):
                with contextlib.suppress(BadContent):
                    return _json_value(value), True
            return value, False
    return None


def _any_agent_output(a: dict[str, Any]) -> list[Message]:
    found = _any_agent_value(a)
    if found is None or found[0] is None:
        return []
    value, is_json = found
    if is_json and isinstance(value, list) and all(isinstance(c, dict) for c in value):
        # [{"tool.name", "tool.args"}] (0.20 on), [{"name", "arguments"}] before
        return [
            Message(
                "assistant",
                [
                    Part(
                        "tool_call",
                        name=text_of(c.get("tool.name", c.get("name"))),
                        arguments=as_text(c.get("tool.args", c.get("arguments"))),
                    )
                    for c in value
                ],
            )
        ]
    return [Message("assistant", [Part("text", as_text(value))])]


def logged_tool_results(span: Span) -> dict[str, str]:
    """Tool results an LLM span's log records and events carry in its input messages, by tool
    call id. Where content is captured as events only, the tool's own span holds none and these
    are its one copy; they are read with the readers of the call's content (problems are left
    for that reading to report)."""
    found: dict[str, str] = {}
    for name, body, attrs in _content_records(span, Reading(None, "llm", "genai")):
        msgs: list[Message] = []
        try:
            if name == DETAILS_EVENT:
                for src in (attrs, body if isinstance(body, dict) else {}):
                    if "gen_ai.input.messages" in src:
                        msgs += messages_from(src["gen_ai.input.messages"])
            elif _MESSAGE_EVENTS.get(name) == "tool":
                msgs.append(message_from(_body(body if body is not None else attrs), "tool"))
        except BadContent:
            continue
        for m in msgs:
            for p in m.parts:
                if p.kind == "tool_result" and p.id and p.text:
                    found.setdefault(p.id, p.text)
    return found


def lacks_result(span: Span) -> bool:
    """A GenAI tool span with a call id and no result under any name afp reads."""
    a = span.attributes
    return (
        a.get("gen_ai.operation.name") == "execute_tool"
        and _first(a, _TOOL_RESULTS) is None
        and isinstance(a.get("gen_ai.tool.call.id"), str)
        and bool(a["gen_ai.tool.call.id"])
    )


def sent_tool_results(span: Span) -> dict[str, str]:
    """Tool results an LLM span's own ``gen_ai.input.messages`` attribute carries, by tool call
    id: where a framework's tool spans record no result (AutoGen's), the call that received it
    holds the one copy. Unreadable content gives none (its reading reports it)."""
    value = span.attributes.get("gen_ai.input.messages")
    if value is None:
        return {}
    try:
        msgs = messages_from(value)
    except BadContent:
        return {}
    return {
        p.id: p.text for m in msgs for p in m.parts if p.kind == "tool_result" and p.id and p.text
    }


# (Semantic Kernel logs each message as its JSON text: the record's body is that string)
_BODY_KEYS = frozenset({"role", "content", "message", "tool_calls"})


def _body(src: Any) -> Any:
    """An event body or attribute set; content may be nested as a JSON string, and a body may be
    the JSON text of the message itself."""
    if isinstance(src, str) and src[:1] == "{":
        with contextlib.suppress(ValueError):
            decoded = json.loads(src)
            if isinstance(decoded, dict) and _BODY_KEYS & decoded.keys():
                src = decoded
    if isinstance(src, dict):
        out = {
            k: v for k, v in src.items() if not k.startswith("gen_ai.system") and k != "event.name"
        }
        for key in ("message", "tool_calls"):
            if isinstance(out.get(key), str):
                with contextlib.suppress(ValueError):
                    out[key] = json.loads(out[key])
        return out
    return src


_TOOL_ARGUMENTS = (
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.args",
    "tool_arguments",
    "input.value",
    _TL_INPUT,
    "ai.toolCall.args",
    "gcp.vertex.agent.tool_call_args",
    _MLFLOW_IN,
    "haystack.agent.step.tool.input",
)
_TOOL_RESULTS = (
    "gen_ai.tool.call.result",
    "output.value",
    "tool_response",
    _TL_OUTPUT,
    "ai.toolCall.result",
    "gcp.vertex.agent.tool_response",
    _MLFLOW_OUT,
    "haystack.agent.step.tool.output",
)


def _first(attrs: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` the span carries (None: none of them)."""
    for key in keys:
        if key in attrs:
            return attrs[key]
    return None


# Strands' default (older-conventions) tool span: no content attributes, the call's arguments in
# a ``gen_ai.tool.message`` event (``content``) and its result in a ``gen_ai.choice`` event
# (``message``: content blocks).
_TOOL_RECORDS = frozenset({"gen_ai.tool.message", "gen_ai.choice"})


def _tool_events(span: Span, call: ToolCall) -> None:
    """Read a tool span's own ``gen_ai.tool.message`` / ``gen_ai.choice`` events into ``call``."""
    for e in span.events:
        if e.name == "gen_ai.tool.message" and not call.arguments:
            call.arguments = as_text(_shown(e.attributes.get("content")))
            call.call_id = call.call_id or text_of(e.attributes.get("id"))
        elif e.name == "gen_ai.choice" and call.result is None:
            value = _shown(e.attributes.get("message"))
            if value is not None:
                text = _blocks_text(value)
                call.result = as_text(value) if text is None else text


def _logfire_tool(a: dict[str, Any]) -> ToolCall:
    """A Logfire OpenAI Agents function or handoff span as a tool call."""
    if a.get(_LF_TEMPLATE) == "Function: {name}":
        output = a.get("output")
        return ToolCall(
            name=text_of(a.get("name")),
            arguments=as_text(a.get("input")),
            result=None if output is None else as_text(output),
        )
    # (the handoff's result as the SDK gives it back to the model: {"assistant": TO_AGENT})
    to = text_of(a.get("to_agent"))
    return ToolCall(
        name=f"transfer_to_{to}" if to else "handoff",
        arguments=text_of(a.get("from_agent")),
        result=as_text({"assistant": to}) if to else None,
    )


def _tool(span: Span) -> ToolCall:
    a = span.attributes
    if a.get(_LF_TEMPLATE) in _LF_ROLES:
        return _logfire_tool(a)
    name = text_of(
        a.get("gen_ai.tool.name")
        or a.get("tool.name")
        or a.get("traceloop.entity.name")
        or a.get("ai.toolCall.name")
        or a.get("haystack.tool.name")
    )
    if not name:
        name = span.name.removeprefix("execute_tool").strip() or span.name
        # (OpenInference's DSPy spans name a tool by its Tool.__call__: "lookup_order.__call__")
        name = name.removesuffix(".__call__") or name
    call = ToolCall(
        name=name,
        call_id=text_of(
            a.get("gen_ai.tool.call.id")
            or a.get("tool_call.id")
            or a.get("tool.call.id")
            or a.get("ai.toolCall.id")
        ),
        # (OpenInference's tool.parameters is the tool's JSON schema, not what this call passed:
        # input.value is; any-agent writes gen_ai.tool.args; pydantic-ai's instrumentation
        # formats 2-4 write tool_arguments and tool_response)
        arguments=as_text(decorated_call(_shown(_first(a, _TOOL_ARGUMENTS)))),
    )
    if call.arguments.startswith('{"input_str"'):
        # (OpenLLMetry's LangChain tool spans: the callback's record — {input_str, inputs, tags,
        # metadata, kwargs: {tool_call_id}}; the call's arguments are its inputs)
        with contextlib.suppress(BadContent):
            record = _json_value(call.arguments)
            if isinstance(record, dict) and isinstance(record.get("inputs"), dict):
                call.arguments = as_text(record["inputs"])
                kwargs = record.get("kwargs")
                if isinstance(kwargs, dict) and isinstance(kwargs.get("tool_call_id"), str):
                    call.call_id = call.call_id or kwargs["tool_call_id"]
    result = _json_text(_shown(_first(a, _TOOL_RESULTS)))
    if result is None:
        found = _any_agent_value(a)
        result = None if found is None else found[0]
    if not call.arguments and result is None and span.events:
        _tool_events(span, call)
        result = call.result
    if result is not None:
        text = _blocks_text(result) if isinstance(result, str) else None
        text = as_text(result) if text is None else text
        parsed: Any = None
        if isinstance(result, str) and result[:1] == "{":
            try:
                parsed = json.loads(result)
            except ValueError:
                parsed = None
        if isinstance(parsed, dict):  # a framework's ToolMessage dump carries the call id
            # (LangChain: dumpd's {"kwargs": …}, message_to_dict's {"type": "tool", "data": …}
            # — what OpenInference's LangChain tracer writes — or the bare fields)
            if isinstance(parsed.get("output"), dict):
                # (OpenLLMetry's LangChain tool spans: {"output": the ToolMessage, "kwargs": …})
                parsed = parsed["output"]
            wrapped = parsed.get("kwargs", parsed.get("data"))
            inner: dict[str, Any] = wrapped if isinstance(wrapped, dict) else parsed
            if isinstance(inner.get("tool_call_id"), str) and "content" in inner:
                call.call_id = call.call_id or inner["tool_call_id"]
                text = as_text(inner["content"])
            elif "tool_name" in parsed and isinstance(parsed.get("blocks"), list):
                # (LlamaIndex's ToolOutput: the model is sent its blocks' text)
                blocks = _blocks_text(parsed["blocks"])
                text = blocks if blocks is not None else as_text(parsed.get("raw_output"))
        call.result = text
    return call


def _metadata(value: Any) -> dict[str, Any]:
    """A document's metadata (a JSON string in OpenInference); {} when absent or unreadable."""
    if isinstance(value, str):
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return {}
    return value if isinstance(value, dict) else {}


def _page_documents(docs: Any, span_id: str) -> list[Document]:
    """LangChain-style documents (``{page_content, metadata, id?}``; MLflow's ``Document``): the id
    from ``id`` or the metadata's ``doc_uri`` / ``source`` / ``id``, the score from the metadata."""
    out: list[Document] = []
    for i, d in enumerate(docs if isinstance(docs, list) else []):
        if not isinstance(d, dict):
            continue
        found = d.get("metadata")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        content = d.get("page_content", d.get("content"))
        doc_id = d.get("id") or next(
            (meta[k] for k in ("doc_uri", "source", "id") if isinstance(meta.get(k), str | int)),
            "",
        )
        score = meta.get("score")
        out.append(
            Document(
                id=text_of(doc_id) or f"{span_id}.doc{i}",
                content=content if isinstance(content, str) else None,
                score=float(score)
                if isinstance(score, int | float) and not isinstance(score, bool)
                else None,
            )
        )
    return out


def _retrieval(span: Span, reading: Reading) -> Retrieval:
    a = span.attributes
    r = Retrieval(
        query=text_of(
            a.get("gen_ai.retrieval.query.text")
            or a.get("gen_ai.memory.query.text")
            or a.get("input.value")
        )
    )
    for i, g in enumerate(indexed(a, "retrieval.documents")):
        g = {k.removeprefix("document."): v for k, v in g.items()}
        score = g.get("score")
        meta = _metadata(g.get("metadata"))
        if score is None:
            score = meta.get("score")
        doc_id = text_of(g.get("id")) or next(
            (
                text_of(meta[k])
                for k in ("id", "doc_id", "document_id", "source")
                if isinstance(meta.get(k), str | int)
            ),
            "",
        )
        r.documents.append(
            Document(
                id=doc_id or f"{span.span_id}.doc{i}",
                content=g["content"] if isinstance(g.get("content"), str) else None,
                score=float(score)
                if isinstance(score, int | float) and not isinstance(score, bool)
                else None,
            )
        )
    # (a retriever's documents as a LangChain-style list: MLflow's spanOutputs, OpenLLMetry's
    # entity output {"documents": [...]}; the query their input, alone or under "query")
    for key_in, key_out in ((_MLFLOW_IN, _MLFLOW_OUT), (_TL_INPUT, _TL_OUTPUT)):
        if r.documents or key_out not in a:
            continue
        query = _mlflow_value(a, key_in)
        if isinstance(query, dict) and isinstance(query.get("query"), str):
            query = query["query"]
        elif isinstance(query, dict) and len(query) == 1:
            query = next(iter(query.values()))
        if not r.query and query is not None:
            r.query = as_text(query)
        docs = _mlflow_value(a, key_out)
        if isinstance(docs, dict):
            docs = docs.get("documents")
        r.documents = _page_documents(docs, span.span_id)
    # (a memory search's records: [{"id"?, "content", "score"?, "metadata"?}])
    key = next((k for k in ("gen_ai.retrieval.documents", "gen_ai.memory.records") if k in a), None)
    if not r.documents and key is not None:
        try:
            docs = _json_value(a[key])
        except BadContent as exc:
            reading.problems.append(
                ("malformed-attribute", f"span {span.name!r} ({span.span_id}): {key}: {exc}")
            )
            docs = []
        for i, d in enumerate(docs if isinstance(docs, list) else []):
            if not isinstance(d, dict):
                continue
            score = d.get("score")
            content = d.get("content", d.get("text"))
            r.documents.append(
                Document(
                    id=text_of(d.get("id")) or f"{span.span_id}.doc{i}",
                    content=content if isinstance(content, str) else None,
                    score=float(score)
                    if isinstance(score, int | float) and not isinstance(score, bool)
                    else None,
                )
            )
    return r


# The reading of a span with no operation afp reads, shared by every such span: nothing is added
# to it later (problems are found only on LLM calls and retrievals), and a reading and a problem
# list each were ~130 bytes of every span of a long trace.
_PLAIN = {
    (role, convention): Reading(None, role, convention, NO_ITEMS)
    for role in ("other", "embedding")
    # (every convention _role names: an AI SDK span of an operation not in AI_SDK_ROLES is
    # "other" under "ai-sdk" — once a KeyError that stopped the whole import)
    for convention in (
        "genai",
        "openinference",
        "none",
        "traceloop",
        "ai-sdk",
        "logfire",
        "mlflow",
        "haystack",
    )
}


def unread_operation(span: Span) -> str | None:
    """The operation a span names (``gen_ai.operation.name``, an OpenInference span kind) when
    afp reads nothing of it, for the ``spans-ignored`` flag; None for the others and for spans
    that name no operation (HTTP, database and framework spans)."""
    a = span.attributes
    oi = a.get("openinference.span.kind")
    op_name = a.get("gen_ai.operation.name")
    if not isinstance(op_name, str) and isinstance(a.get("ai.operationId"), str):
        op_name = a["ai.operationId"]
    if not isinstance(op_name, str) and isinstance(a.get(_MLFLOW_TYPE), str):
        op_name = f"mlflow.spanType={a[_MLFLOW_TYPE].strip(chr(34))}"
    if not isinstance(op_name, str) and span.name.startswith("haystack."):
        kind = a.get(_HS_TYPE)
        op_name = f"haystack.component.type={kind}" if isinstance(kind, str) else span.name
    if not isinstance(op_name, str) and span.name == _LITELLM_RAW:
        op_name = span.name
    if not isinstance(op_name, str) and span.scope == "openlit" and "function.kwargs" in a:
        op_name = "@openlit.trace"
    if not isinstance(oi, str) and not isinstance(op_name, str):
        return None
    if _span_role(span)[0] not in ("other", "embedding"):
        return None
    if isinstance(oi, str) and (oi.upper() in OI_KINDS or not isinstance(op_name, str)):
        return f"openinference.span.kind={oi}"
    return str(op_name)


def referenced_content(span: Span) -> list[tuple[str, str]]:
    """(attribute, reference) of each piece of the span's content stored outside the trace."""
    a = span.attributes
    return [(k, text_of(a[k])) for k in REFERENCE_KEYS if k in a]


def unread_records(span: Span) -> list[str]:
    """The names of the span's GenAI events and log records afp does not read (an evaluation's
    ``gen_ai.evaluation.result``, an exception event, a record on a span that is not an LLM
    call), for the ``records-ignored`` flag. Names outside ``gen_ai.*`` are not GenAI content."""
    if not span.events and not span.logs:
        return []
    role = _span_role(span)[0]
    # (an LLM call reads its events and its log records; a tool span, Strands' two events)
    logs_read = _READ_RECORDS if role == "llm" else frozenset()
    events_read = _TOOL_RECORDS if role == "tool" else logs_read
    names = [n for n in (e.name for e in span.events) if n not in events_read]
    names += [n for n in map(_record_name, span.logs) if n not in logs_read]
    return [n for n in names if n.startswith("gen_ai.")]


def nothing_read_flag(spans: list[Span]) -> list[tuple[str, str]]:
    """The ``no-genai-spans`` flag of a trace none of whose spans afp reads as an operation (an
    instrumentation whose convention afp does not know, or no GenAI instrumentation at all):
    said, rather than a run of 0 calls that looks measured."""
    if not spans or any(_span_role(s)[0] != "other" for s in spans):
        return []
    names: dict[str, int] = {}
    for s in spans:
        names[s.name] = names.get(s.name, 0) + 1
    listed = ", ".join(f"{n!r} ×{c}" for n, c in sorted(names.items(), key=lambda c: -c[1])[:5])
    return [
        (
            "no-genai-spans",
            f"none of the trace's {len(spans)} span(s) follows a convention afp reads (GenAI, "
            f"OpenInference, OpenLLMetry, the AI SDK's, Logfire's, MLflow's…): no LLM call, tool "
            f"call or retrieval was found — {listed}",
        )
    ]


def ignored_flag(counts: dict[str, int], what: str) -> list[tuple[str, str]]:
    """The ``spans-ignored`` flag: ``what`` (spans, observations, runs) naming an operation afp
    does not read, counted by operation — said, never dropped in silence."""
    if not counts:
        return []
    listed = ", ".join(f"{op} ×{n}" for op, n in sorted(counts.items(), key=lambda c: -c[1]))
    return [
        (
            "spans-ignored",
            f"{sum(counts.values())} {what} name an operation afp does not read ({listed}): "
            "kept in the tree and timings, their content not used",
        )
    ]


def _json_text(value: Any) -> Any:
    """A decorator's JSON-encoded return value: a JSON string is the string it encodes."""
    if isinstance(value, str) and value.startswith('"'):
        with contextlib.suppress(BadContent):
            decoded = _json_value(value)
            if isinstance(decoded, str):
                return decoded
    return value


def _role(a: dict[str, Any]) -> tuple[str, str]:
    """A span's role (llm | tool | retrieval | agent | chain | embedding | other) and convention."""
    oi = a.get("openinference.span.kind")
    op_name = a.get("gen_ai.operation.name")
    if isinstance(oi, str) and oi.upper() in OI_KINDS:
        return OI_KINDS[oi.upper()], "openinference"
    if isinstance(op_name, str):
        convention = "genai"
        if op_name in LLM_OPERATIONS:
            role = "llm"
        elif op_name in TOOL_OPERATIONS:
            role = "tool"
        elif op_name in AGENT_OPERATIONS:
            role = "agent"
        elif op_name in CHAIN_OPERATIONS:
            role = "chain"
        elif op_name in RETRIEVAL_OPERATIONS:
            role = "retrieval"
        elif op_name == "embeddings":
            role = "embedding"
        else:
            role = "other"
        return role, convention
    if "gen_ai.system" in a and ("gen_ai.request.model" in a or "gen_ai.prompt.0.role" in a):
        return "llm", "genai"
    mlflow = a.get(_MLFLOW_TYPE)
    if isinstance(mlflow, str):
        return MLFLOW_KINDS.get(mlflow.strip('"').upper(), "other"), "mlflow"
    if _LF_REQUEST in a and "LLM" in (a.get("logfire.tags") or ()):  # (Logfire before semconv)
        return "llm", "logfire"
    lf = _logfire_role(a)
    if lf is not None:
        return lf, "logfire"
    if "gen_ai.tool.name" in a:
        return "tool", "genai"
    tl = a.get("traceloop.span.kind")
    if isinstance(tl, str) and tl in TRACELOOP_KINDS:
        return TRACELOOP_KINDS[tl], "traceloop"
    ai_op = a.get("ai.operationId")
    if isinstance(ai_op, str):
        return AI_SDK_ROLES.get(ai_op, "other"), "ai-sdk"
    return "other", "none"


# LlamaIndex's dispatcher spans every method of an LLM object, and OpenInference marks each one
# an LLM span: these methods make no request (the request is the chat / achat span beside them),
# and read as calls they were counted as calls with no content or tokens.
_LLAMA_INDEX_NO_REQUEST = ("._prepare_chat_with_tools", ".get_tool_calls_from_response")


def _span_role(span: Span) -> tuple[str, str]:
    """``_role`` of the span's attributes, less the LLM-class methods that make no request."""
    role, convention = _role(span.attributes)
    if convention == "none" and span.name.startswith("haystack."):
        role = HAYSTACK_SPANS.get(span.name, "other")
        if span.name == "haystack.component.run" and span.attributes.get(_HS_TYPE) == "Agent":
            role = "chain"  # (the agent's own haystack.agent.run span inside it is the agent)
        return role, "haystack"
    if (
        role == "llm"
        and convention == "openinference"
        and span.name.endswith(_LLAMA_INDEX_NO_REQUEST)
    ):
        return "other", convention
    return role, convention


def read_span(span: Span) -> Reading:
    """Which operation a span is, under which convention, with its content."""
    a = span.attributes
    role, convention = _span_role(span)
    if role in ("other", "embedding"):
        return _PLAIN[role, convention]
    reading = Reading(None, role, convention)
    if role == "llm":
        reading.op = _llm(span, reading)
    elif role == "tool":
        reading.op = _tool(span)
    elif role == "retrieval":
        reading.op = _retrieval(span, reading)
    elif role in ("agent", "chain"):
        if a.get("gen_ai.operation.name") == "plan":  # ("plan {agent}": the agent's plan)
            name = span.name
        else:
            name = (
                text_of(a.get("gen_ai.agent.name"))
                or text_of(a.get("gen_ai.workflow.name"))
                or text_of(a.get("ai.telemetry.functionId"))
                or (text_of(a.get("logfire.msg")) if convention == "logfire" else "")
                or span.name
            )
        if role == "agent" and name.startswith("invoke_agent "):
            name = name.removeprefix("invoke_agent ")
        name = name.removeprefix("invoke_workflow ")
        reading.op = Boundary(
            "Agent" if role == "agent" else "Chain",
            name,
            input=text_of(decorated_call(a.get("input.value", a.get(_TL_INPUT, a.get(_MLFLOW_IN)))))
            or None,
            output=text_of(_json_text(a.get("output.value", a.get(_TL_OUTPUT, a.get(_MLFLOW_OUT)))))
            or None,
        )
    return reading
