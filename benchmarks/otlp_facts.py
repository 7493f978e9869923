"""The child programs of ``otlp_floor.py``: the cheapest Python that reads an OTLP/JSON Lines trace.

    python benchmarks/otlp_facts.py raw FILE     # (b) find every span, skip every value
    python benchmarks/otlp_facts.py facts FILE   # (c) the facts ``afp aggregate --json`` shows
    python benchmarks/otlp_facts.py facts-inputs FILE   # (c') (c) + each call's input read

Both run as whole processes and import nothing but msgspec and the standard library (start-up
is part of what they cost), and read the file the same way (one ``mmap``, each line decoded
from a view of it, no copy).

- ``raw``: one typed decode per line that finds every span (ids, parent, name, times, status and
  each attribute's key) and keeps every attribute value as ``msgspec.Raw`` (a view, never
  parsed). Prints the span count.
- ``facts``: what the aggregate's output needs from this trace (GenAI semantic conventions, as
  ``otlp_gen.py`` writes them): per LLM span the model, the usage tokens, the finish reason and
  the names of the tools its output messages asked for; per tool span its name; the boundary
  tree (agent spans, nested by parent links, with their own rollups); the whole-run sums; LLM
  calls numbered in span start order (what ``--at-llm`` counts). The input messages, system
  instructions, tool arguments and results are never parsed. Writes the facts as one JSON
  document to stdout.
- ``facts-inputs``: ``facts`` plus each LLM span's input messages and system instructions
  decoded (roles, part types and ids: what splitting a call's input into its sources reads;
  afp's commit count and ``inCommitLog`` depend on that). It counts the parts; it does not
  apply afp's source rules.

How ``facts`` is made fast (each step measured in instructions with callgrind): attributes are a
msgspec tagged union on ``key``, so the key is matched in C (no key string made, no hash) and
the values it reads are typed in the one decode while every other value is skipped; a line
holding a key outside the known lists takes the general path (values as ``Raw``, picked by a
dict per key, decoded one by one), so any trace gives the same facts; times are read as
integers in C (``strict=False``); the cyclic collector is off and no Struct is tracked by it.

What ``facts`` leaves out of ``afp aggregate --json`` (so it is a floor, not a rival): the
synthesized commit log (each call's input split into its sources, which needs the input
messages decoded), the domain events, boundary index and step strip, and the honesty checks
(duplicate ids, parent cycles, malformed attributes, several traces).
"""

from __future__ import annotations

import gc
import mmap
import sys
from collections.abc import Iterator
from operator import attrgetter
from typing import Any, ClassVar, Union

import msgspec
from msgspec import Raw, Struct

# gc=False: none of these can hold a cycle, so the cyclic collector need not track them.


class Attr(Struct, gc=False):
    key: str
    value: Raw  # never parsed here


class Status(Struct, gc=False):
    code: int | str | None = None


class Span(Struct, gc=False):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    startTimeUnixNano: str | int = 0
    endTimeUnixNano: str | int = 0
    attributes: list[Attr] = []
    status: Status | None = None


class ScopeSpans(Struct, gc=False):
    spans: list[Span] = []


class ResourceSpans(Struct, gc=False):
    scopeSpans: list[ScopeSpans] = []


class Request(Struct, gc=False):
    resourceSpans: list[ResourceSpans] = []


# ---------------------------------------------------------------- (c): only what it reads


class StrValue(Struct, gc=False):
    stringValue: str | None = None


class IntValue(Struct, gc=False):
    intValue: int | None = None


class ArrayValue(Struct, gc=False):
    values: list[StrValue] = []


class ArrayOf(Struct, gc=False):
    arrayValue: ArrayValue | None = None


class Tagged(Struct, tag_field="key", gc=False):
    """An attribute whose class is picked by its key."""

    slot: ClassVar[int]  # where facts() files it


OP, REQ_MODEL, RESP_MODEL, T_IN, T_OUT, FINISH, OUT_MSGS, NAME, INPUT, SYSTEM, UNREAD = range(11)


def _tagged(key: str, slot: int, value: Any = None) -> type[Tagged]:
    cls = msgspec.defstruct(
        key, [] if value is None else [("value", value)], bases=(Tagged,), tag=key, gc=False
    )
    cls.slot = slot
    if value is None:
        cls.value = None  # type: ignore[attr-defined]  # (a class attribute: not decoded)
    return cls


READ = {
    "gen_ai.operation.name": _tagged("gen_ai.operation.name", OP, StrValue),
    "gen_ai.request.model": _tagged("gen_ai.request.model", REQ_MODEL, StrValue),
    "gen_ai.response.model": _tagged("gen_ai.response.model", RESP_MODEL, StrValue),
    "gen_ai.usage.input_tokens": _tagged("gen_ai.usage.input_tokens", T_IN, IntValue),
    "gen_ai.usage.output_tokens": _tagged("gen_ai.usage.output_tokens", T_OUT, IntValue),
    "gen_ai.response.finish_reasons": _tagged("gen_ai.response.finish_reasons", FINISH, ArrayOf),
    "gen_ai.output.messages": _tagged("gen_ai.output.messages", OUT_MSGS, StrValue),
    "gen_ai.tool.name": _tagged("gen_ai.tool.name", NAME, StrValue),
    "gen_ai.agent.name": _tagged("gen_ai.agent.name", NAME, StrValue),
}
# Keys whose value is not read: listed so that the one decode can skip them.
UNREAD_KEYS = [
    "gen_ai.input.messages",
    "gen_ai.system_instructions",
    "gen_ai.provider.name",
    "gen_ai.system",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.tool.type",
    "gen_ai.tool.description",
    "gen_ai.response.id",
    "gen_ai.request.temperature",
    "gen_ai.request.max_tokens",
    "gen_ai.request.top_p",
    "gen_ai.conversation.id",
    "gen_ai.agent.id",
    "gen_ai.agent.description",
    "server.address",
    "server.port",
    "error.type",
]
# facts-inputs reads these two as well (the rest of the list is the same)
INPUT_KEYS = {
    "gen_ai.input.messages": _tagged("gen_ai.input.messages", INPUT, StrValue),
    "gen_ai.system_instructions": _tagged("gen_ai.system_instructions", SYSTEM, StrValue),
}


def _request_type(read: dict[str, type[Tagged]], name: str) -> type[Struct]:
    """The export request with attributes as a union of the ``read`` classes and the unread
    keys' (skipped) classes."""
    unread = [_tagged(k, UNREAD) for k in UNREAD_KEYS if k not in read]
    attribute = Union[tuple([*read.values(), *unread])]  # noqa: UP007
    span = msgspec.defstruct(
        f"{name}Span",
        [
            ("spanId", str, ""),
            ("parentSpanId", str, ""),
            ("startTimeUnixNano", int, 0),
            ("endTimeUnixNano", int, 0),
            ("attributes", list[attribute], []),  # type: ignore[valid-type]
            ("status", Status | None, None),
        ],
        gc=False,
    )
    scope = msgspec.defstruct(f"{name}Scope", [("spans", list[span], [])], gc=False)
    resource = msgspec.defstruct(f"{name}Resource", [("scopeSpans", list[scope], [])], gc=False)
    return msgspec.defstruct(f"{name}Request", [("resourceSpans", list[resource], [])], gc=False)


class AnySpan(Struct, gc=False):  # the general path: any key, values Raw
    spanId: str = ""
    parentSpanId: str = ""
    startTimeUnixNano: int = 0
    endTimeUnixNano: int = 0
    attributes: list[Attr] = []
    status: Status | None = None


class AnyScopeSpans(Struct, gc=False):
    spans: list[AnySpan] = []


class AnyResourceSpans(Struct, gc=False):
    scopeSpans: list[AnyScopeSpans] = []


class AnyRequest(Struct, gc=False):
    resourceSpans: list[AnyResourceSpans] = []


class Part(Struct, gc=False):
    type: str = ""
    name: str | None = None


class OutMessage(Struct, gc=False):
    parts: list[Part] = []
    finish_reason: str | None = None


class InPart(Struct, gc=False):
    type: str = ""
    id: str | None = None


class InMessage(Struct, gc=False):
    role: str = ""
    parts: list[InPart] = []


class LlmFacts(Struct, gc=False):
    span: str
    parent: str
    start: int
    end: int
    model: str | None
    tokensIn: int | None
    tokensOut: int | None
    finish: str | None
    tools: list[str]
    failed: bool
    sources: int | None = None  # facts-inputs: message parts + system-instruction parts read


class ToolFacts(Struct, gc=False):
    span: str
    parent: str
    start: int
    name: str | None
    failed: bool


class Boundary(Struct, gc=False):
    span: str
    parent: str | None
    name: str | None
    start: int
    end: int
    llmCalls: int = 0
    toolCalls: int = 0
    tokensIn: int = 0
    tokensOut: int = 0


class Facts(Struct, gc=False):
    spans: int
    run: Boundary
    boundaries: list[Boundary]
    llmCalls: list[LlmFacts]
    toolCalls: list[ToolFacts]


REQUEST = msgspec.json.Decoder(Request)
READ_INPUTS = {**READ, **INPUT_KEYS}
# strict=False: "123" -> 123 in C (times, token counts)
FACT_REQUEST = {
    False: msgspec.json.Decoder(_request_type(READ, "Fact"), strict=False),
    True: msgspec.json.Decoder(_request_type(READ_INPUTS, "Input"), strict=False),
}
ANY_REQUEST = msgspec.json.Decoder(AnyRequest, strict=False)
VALUE_OF = {
    cls: msgspec.json.Decoder(cls.__annotations__["value"], strict=False).decode
    for cls in READ_INPUTS.values()
}
OUT = msgspec.json.Decoder(list[OutMessage]).decode
INPUTS = msgspec.json.Decoder(list[InMessage]).decode
SYSTEM_PARTS = msgspec.json.Decoder(list[InPart]).decode


def lines(path: str) -> Iterator[memoryview]:
    """Each non-blank line of the file, as a view of one mmap (no copy). The map is left to
    the process's end: decoded values may still be views of it."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        if not size:
            return
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mm)
    start = 0
    while start < size:
        end = mm.find(b"\n", start)
        end = size if end < 0 else end
        if end - start > 64 or mm[start:end].strip():
            yield view[start:end]
        start = end + 1


def count_spans(path: str) -> int:
    """(b): every span found (each attribute value a Raw view)."""
    n = 0
    decode = REQUEST.decode
    for line in lines(path):
        for rs in decode(line).resourceSpans:
            for ss in rs.scopeSpans:
                n += len(ss.spans)
    return n


def _general(line: memoryview, read: dict[str, type[Tagged]]) -> Any:
    """A line with a key the union does not list, read as the union would have read it."""
    req = ANY_REQUEST.decode(line)
    for rs in req.resourceSpans:
        for ss in rs.scopeSpans:
            for sp in ss.spans:
                attrs: list[Any] = []
                for a in sp.attributes:
                    cls = read.get(a.key)
                    if cls is not None:
                        attrs.append(cls(value=VALUE_OF[cls](a.value)))  # type: ignore[call-arg]
                sp.attributes = attrs  # type: ignore[assignment]
    return req


def fact_requests(path: str, inputs: bool) -> Iterator[Any]:
    decode = FACT_REQUEST[inputs].decode
    read = READ_INPUTS if inputs else READ
    for line in lines(path):
        try:
            yield decode(line)
        except msgspec.ValidationError:
            yield _general(line, read)


def facts(path: str, inputs: bool = False) -> Facts:
    llm: list[LlmFacts] = []
    tools: list[ToolFacts] = []
    agents: list[Boundary] = []
    # Parent links of the spans that are not calls (agents, chains): a call keeps its own
    # parent, so the 100,000 call spans add no entry.
    parent_of: dict[str, str] = {}
    n = 0
    for req in fact_requests(path, inputs):
        for rs in req.resourceSpans:
            for ss in rs.scopeSpans:
                for sp in ss.spans:
                    n += 1
                    vals: list[Any] = [None] * 11
                    for a in sp.attributes:
                        vals[a.slot] = a.value
                    op = vals[OP]
                    op = op.stringValue if op is not None else None
                    if op != "chat" and op != "execute_tool" and sp.parentSpanId:
                        parent_of[sp.spanId] = sp.parentSpanId
                    if op is None:
                        continue
                    status = sp.status
                    failed = status is not None and status.code in (2, "STATUS_CODE_ERROR")
                    if op == "chat":
                        asked = []
                        finish = None
                        out = vals[OUT_MSGS]
                        if out is not None and out.stringValue is not None:
                            for msg in OUT(out.stringValue):
                                for part in msg.parts:
                                    if part.type == "tool_call" and part.name is not None:
                                        asked.append(part.name)
                        model = vals[RESP_MODEL] or vals[REQ_MODEL]
                        fin = vals[FINISH]
                        if fin is not None and fin.arrayValue and fin.arrayValue.values:
                            finish = fin.arrayValue.values[0].stringValue
                        t_in, t_out = vals[T_IN], vals[T_OUT]
                        sources = None
                        if inputs:  # what splitting the call's input into sources reads
                            sources = 0
                            msgs, system = vals[INPUT], vals[SYSTEM]
                            if msgs is not None and msgs.stringValue is not None:
                                for m in INPUTS(msgs.stringValue):
                                    sources += len(m.parts)
                            if system is not None and system.stringValue is not None:
                                sources += len(SYSTEM_PARTS(system.stringValue))
                        llm.append(
                            LlmFacts(
                                sp.spanId,
                                sp.parentSpanId,
                                sp.startTimeUnixNano,
                                sp.endTimeUnixNano,
                                model.stringValue if model is not None else None,
                                t_in.intValue if t_in is not None else None,
                                t_out.intValue if t_out is not None else None,
                                finish,
                                asked,
                                failed,
                                sources,
                            )
                        )
                    elif op == "execute_tool":
                        name = vals[NAME]
                        tools.append(
                            ToolFacts(
                                sp.spanId,
                                sp.parentSpanId,
                                sp.startTimeUnixNano,
                                name.stringValue if name is not None else None,
                                failed,
                            )
                        )
                    elif op == "invoke_agent":
                        name = vals[NAME]
                        agents.append(
                            Boundary(
                                sp.spanId,
                                sp.parentSpanId or None,
                                name.stringValue if name is not None else None,
                                sp.startTimeUnixNano,
                                sp.endTimeUnixNano,
                            )
                        )
    # Start order: the commit axis afp synthesizes, and what --at-llm counts.
    by_start = attrgetter("start")
    llm.sort(key=by_start)
    tools.sort(key=by_start)
    agents.sort(key=by_start)
    first = min((b.start for b in agents), default=min((c.start for c in llm), default=0))
    last = max((b.end for b in agents), default=max((c.end for c in llm), default=0))
    run = Boundary("", None, "Run", first, last)
    by_span = {b.span: b for b in agents}
    owner_of: dict[str, Boundary | None] = {}  # direct parent -> nearest agent span above

    def owner(parent: str) -> Boundary | None:
        if parent in owner_of:  # one dict hit for nearly every call
            return owner_of[parent]
        p: str | None = parent or None
        found, hops = None, 0
        while p is not None and found is None and hops < 64:
            found = by_span.get(p)
            p, hops = parent_of.get(p), hops + 1
        owner_of[parent] = found
        return found

    run.llmCalls, run.toolCalls = len(llm), len(tools)
    run.tokensIn = sum(c.tokensIn or 0 for c in llm)
    run.tokensOut = sum(c.tokensOut or 0 for c in llm)
    if agents:  # (nested agents count toward the nearest one only: this trace has one)
        for c in llm:
            b = owner(c.parent)
            if b is not None:
                b.llmCalls += 1
                b.tokensIn += c.tokensIn or 0
                b.tokensOut += c.tokensOut or 0
        for t in tools:
            b = owner(t.parent)
            if b is not None:
                b.toolCalls += 1
    return Facts(n, run, agents, llm, tools)


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "raw":
        sys.stdout.write(f"{count_spans(path)}\n")
    elif mode in ("facts", "facts-inputs"):
        gc.disable()  # (every object it keeps is acyclic; see gc=False above)
        got = facts(path, inputs=mode == "facts-inputs")
        sys.stdout.buffer.write(msgspec.json.encode(got) + b"\n")
    else:
        raise SystemExit(f"unknown mode {mode!r} (raw, facts or facts-inputs)")


if __name__ == "__main__":
    main()
