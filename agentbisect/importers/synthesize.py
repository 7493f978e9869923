"""Turn one trace (spans read through the conventions) into a canonical recording.

The recording is what ``afp record`` would write for an agentfootprint run, so every command
reads it without special cases:

- the root span is the run, agent and chain spans are subflow boundaries (nesting from parent
  links), LLM spans ``llm.start``/``llm.end``, tool spans ``tool.start``/``tool.end``, retrieved
  documents ``context.injected`` events;
- the commit axis is the span start order (a span that contains others commits when it ends);
  it is synthesized, and a flag says so;
- every input source of an LLM call is a step of its own in the commit log, written under its own
  key, and the LLM step reads those keys (``stageReads``): system-instruction parts (classified as
  injections), user messages (run input: untracked ``args``), earlier assistant outputs (the LLM
  step that produced them), tool results (the tool step, by tool-call id) and retrieved documents
  (the retriever step). A tool step reads the LLM output that asked for it. So the backward slice
  runs answer ← tool result ← the call that asked for it ← the user message;
- a tool call an LLM output asked for that no tool span answers (only the model client was
  instrumented) is a tool step rebuilt from the messages when a later call's input carries its
  result (``_rebuild``): placed between the asking call's end and the reading call's start, with
  no duration or error, and flagged ``tool-steps-from-messages``.

Matching is by id where the trace has one and by identical content where it does not; the
``import`` extension key of the recording lists every edge matched by content or by position only
(an edge it does not list was matched by id, or is the input itself), next to the source map the
rerun specs are made from.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
from msgspec import Struct

from agentbisect.core.encoded import JsonArray, JsonObject
from agentbisect.core.js import ABSENT
from agentbisect.importers.opentelemetry.conventions import (
    EVENT_TIME,
    Boundary,
    LLMCall,
    Message,
    Part,
    Reading,
    Retrieval,
    ToolCall,
    answered_call,
    forget_messages,
    read_llm_content,
    read_span,
)
from agentbisect.importers.opentelemetry.spans import (
    END_UNKNOWN,
    ENDS_BEFORE_START,
    NO_ITEMS,
    START_UNKNOWN,
    Span,
)
from agentbisect.importers.texts import CAPTURE_HINT, MIN_DOC_CHARS, clean, split_paragraphs
from agentbisect.model.boundary.recorder import Mode
from agentbisect.model.record import DEFAULT_MAX_EVENTS, RunRecording
from agentbisect.schema.recording import (
    T_CONTEXT_INJECTED,
    T_LLM_END,
    T_LLM_START,
    T_TOOL_END,
    T_TOOL_START,
)

IMPORT_KEY = "import"
TOOL_STEPS_FROM_MESSAGES = "tool-steps-from-messages"
ROW_ID = "boundary-1"  # the recorder row of every imported recording


# weakref: tests/test_otel_import.py holds each node weakly to check it is freed once handled
class Node(Struct, weakref=True):
    span: Span
    reading: Reading
    children: list[Node] = []
    index: int = 0  # start order
    step_id: str = ""
    # Reachable from a root (``build_tree``: the spans on a parent cycle are not). A mark on the
    # node, not a set of a million span ids: that set was the memory peak of a long trace.
    reached: bool = False


@dataclass
class Synthesis:
    recording: dict[str, Any]
    flags: list[tuple[str, str]]
    llm_steps: list[str]
    tool_steps: list[str]
    counts: dict[str, int]
    rec: RunRecording

    def plain(self) -> dict[str, Any]:
        """The recording as plain JSON values (its long parts are kept as JSON while built)."""
        value: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self.recording))
        return value

    def document(self) -> dict[str, Any]:
        """What ``afp record`` writes: the recording, or the envelope when the event cap dropped
        typed events (only it carries the drop counts); the ``import`` key at the top."""
        if self.rec.dropped_events == 0:
            return self.recording
        meta = self.recording.pop(IMPORT_KEY)
        env = self.rec.to_envelope(run_id=meta.get("traceId") or None)
        self.recording[IMPORT_KEY] = meta
        env[IMPORT_KEY] = meta
        return env


class _Builder:
    def __init__(
        self,
        root: Node,
        flags: list[tuple[str, str]],
        detail: Mode = "full",
        max_events: object = DEFAULT_MAX_EVENTS,
        step_numbers: dict[str, int] | None = None,
        span_call_ids: frozenset[str] = frozenset(),
    ) -> None:
        self.root = root
        self.flags = flags
        self.step_numbers = step_numbers or {}  # span id -> the number its step id takes
        # (ABSENT while a boundary span's own time is unknown: its event then has no ts)
        self._now: list[Any] = [root.span.start_ns // 1_000_000]
        # Imported values are strings and our own small records: no raw vectors to summarise.
        self.rec = RunRecording(
            # The clock reads a list, not the builder: no reference cycle, so the whole model
            # is freed the moment the recording is encoded (it is large for long traces).
            clock=_Clock(self._now),
            # One name, not the process's next recorder number: the same trace then gives the
            # same recording (and ``boundaryRowId``) however many were imported before it.
            recorder_id=ROW_ID,
            keep_embeddings=True,
            detail=detail,
            max_events=max_events,
            encode_commits=True,  # the log of a long trace: bytes, not dicts
            encode_events=True,  # and so are its domain events
        )
        # What the recording's execution tree and import metadata say, kept as their JSON: a
        # long trace has 100,000s of steps, sources and reads. A step's reads and source are
        # gathered in the pending dicts below while its span is handled, and written out by
        # ``_flush`` once no later span can add to them (after each LLM call's inputs and each
        # tool call). Until then a repeated step id merges, as one dict would have.
        self.reads: dict[str, dict[str, None]] = {}  # step id -> keys read, in order
        self.sources: dict[str, dict[str, Any]] = {}
        self.tree = JsonArray(
            b'{"name":' + msgspec.json.encode(root.span.name) + b',"children":', b"}"
        )
        self.source_json = JsonObject()
        self.matches = JsonArray()
        self.tool_keys: dict[str, str] = {}  # tool step -> the key its result is written under
        self.llm_steps: list[str] = []
        self.tool_steps: list[str] = []
        # what later readers can match against
        self.last_llm: str | None = None  # the step of the latest LLM output
        self.tool_by_id: dict[str, str] = {}
        self.tool_by_text: dict[str, str] = {}
        # The same results by JSON value: None until a JSON result is first not found by its
        # text (most traces match every result by id or text: no decoding, nothing kept).
        self.tool_by_json: dict[str, str] | None = None
        self.tool_asked: dict[str, str] = {}  # tool step -> llm step it read
        self.asked_tools: dict[str, list[str]] = {}  # llm step -> tool steps that read it
        self.llm_by_call_id: dict[str, str] = {}
        self.tool_calls_by_step: dict[str, list[Part]] = {}  # llm step -> the calls it asked
        # (llm step, tool-call id) -> the call's index among the step's: the request a tool
        # span or a result of that id answers, found without scanning the step's calls
        self.index_by_id: dict[tuple[str, str], int] = {}
        self.problems: list[tuple[int, list[tuple[str, str]]]] = []  # (span index, problems)
        self.spans = 0
        self.adopted_ids: set[str] = set()  # tool-call ids taken from the asking LLM's output
        self.tool_askers: dict[str, tuple[str | None, str]] = {}  # open tool step -> (asker, by)
        self.llm_by_text: dict[str, str] = {}
        self.llm_by_tool_name: dict[str, str] = {}
        self.system_parts: dict[str, str] = {}  # text -> step id
        self.part_ids: dict[str, str] = {}  # part id -> text
        self.messages: dict[tuple[int, str, str], str] = {}  # (index, role, text) -> step id
        self.docs: list[dict[str, Any]] = []  # {id, content, step, consumed}
        self.by_content = 0
        self.by_structure = 0
        self.uncaptured_llm = 0
        self.no_output_llm = 0  # calls whose input was captured and whose output was not
        self.no_usage_llm = 0  # calls with no token count
        self.spanless_results: set[str] = set()  # tool results (ids or texts) no tool span gave
        # Tool steps rebuilt from the chat messages (no tool span answered the call), and those
        # of them paired with their request by position only (the messages carry no ids).
        self.rebuilt_steps: set[str] = set()
        self.rebuilt_by_position: set[str] = set()
        self.llm_end_ns: dict[str, tuple[int, int]] = {}  # llm step -> (end ns, bad_time bits)
        # The requests (LLM step, index among its tool calls) a tool step answers, a span's or
        # a rebuilt one: a request a tool span answered is never rebuilt, whatever its ids.
        self.claimed: set[tuple[str, int]] = set()
        self.span_call_ids = span_call_ids  # the call ids of the trace's tool spans, all of them
        self.unnamed_spans: dict[str, int] = {}  # LLM step -> its tool spans of no request's name
        self.spare_by_name: dict[str, int] = {}  # tool name -> its spans that claimed no request
        # The LLM step whose output the assistant message last read in a call's input is, and
        # how many tool results followed it: a result without a tool-call id answers the
        # request at its position.
        self.open_asker: str | None = None
        self.open_position = 0
        self.path: list[str] = []
        # The path as stamped on events: one list per subflow level, replaced (never changed)
        # when the path changes, so the events of one level share it.
        self.stamped_path: list[str] = []
        # Each event's offset from the run's start (None when the run's start is unknown).
        self.run_ms: int | None = (
            None if root.span.bad_time & START_UNKNOWN else root.span.start_ns // 1_000_000
        )
        self.pending: list[tuple[Node, Retrieval]] = []
        self.doc_parts: set[str] = set()  # input parts that are retrieved documents
        self.paragraphs: dict[str, tuple[str, ...]] = {}  # system text -> its parts

    # ------------------------------------------------------------------ plumbing

    @property
    def now(self) -> Any:
        return self._now[0]

    @now.setter
    def now(self, ms: Any) -> None:
        self._now[0] = ms

    def _meta(self, node: Node, end: bool = False) -> dict[str, Any]:
        span = node.span
        ms = _end_ms(span) if end else _start_ms(span)
        meta: dict[str, Any]
        # An unknown time: no ts, so no latency is derived from a stand-in 0.
        if ms is ABSENT:
            meta = {}
        elif self.run_ms is None:  # (no offset from an unknown start)
            meta = {"wallClockMs": ms}
        else:
            meta = {"wallClockMs": ms, "runOffsetMs": ms - self.run_ms}
        meta["runtimeStageId"] = node.step_id
        meta["subflowPath"] = self.stamped_path
        meta["traceId"] = span.trace_id
        meta["spanId"] = span.span_id
        return meta

    def _emit(self, type_: str, payload: dict[str, Any], node: Node, end: bool = False) -> None:
        """One typed event of ``node``, stamped at its start (or ``end``)."""
        self.rec.emit({"type": type_, "payload": payload, "meta": self._meta(node, end)})

    def _commit(
        self,
        step: str,
        stage: str,
        stage_id: str,
        values: dict[str, Any],
        untracked: bool = False,
        register: bool = True,
    ) -> None:
        bundle: dict[str, Any] = {
            "stage": stage,
            "stageId": stage_id,
            "runtimeStageId": step,
            "trace": [{"path": k, "verb": "set"} for k in values],
            "redactedPaths": [],
            # A value we do not have is left out: it folds to absent, so no text is invented.
            "overwrite": {k: v for k, v in values.items() if v is not _NONE},
            "updates": {},
        }
        if untracked:
            bundle["untrackedSources"] = ["args"]
        self.rec.commit(bundle)
        if register:  # (an LLM step was entered in the tree when its inputs were read)
            self.reads.setdefault(step, {})

    def _flush(self) -> None:
        """Write out the pending steps' reads and sources: no later span adds to them."""
        for step, keys in self.reads.items():
            self.tree.append({"runtimeStageId": step, "name": step, "stageReads": keys})
        self.reads = {}
        for step, source in self.sources.items():
            self.source_json.add(step, source)
        self.sources = {}

    def _read(self, reader: str, key: str, source: str, by: str) -> None:
        keys = self.reads.setdefault(reader, {})
        if key not in keys:
            keys[key] = None
            if by in ("content", "structure"):
                # Only the weaker links are listed: an id match (or the input itself) is the
                # default, and long traces have hundreds of thousands of reads.
                self.matches.append({"reader": reader, "source": source, "by": by})
                if by == "content":
                    self.by_content += 1
                else:
                    self.by_structure += 1

    # ------------------------------------------------------------------ walk

    def build(self) -> None:
        root = self.root
        # An unknown time is ABSENT: the run/subflow event then has no ts, and no boundary
        # duration is made from the stand-in 0.
        self.now = _start_ms(root.span)
        payload: dict[str, Any] = {"name": root.span.name, "traceId": root.span.trace_id}
        if isinstance(root.reading.op, Boundary) and root.reading.op.input is not None:
            payload["input"] = root.reading.op.input
        self.rec.on_run_start({"payload": payload})
        # Each span is let go once handled: a long trace's spans, readings and nodes were as
        # large as its whole recording, all alive at the end of the walk (the memory peak).
        index = 0
        numbers = self.step_numbers
        for node, entering in _walk(root):
            if entering:
                # Steps are numbered in start order (pre-order), as each is entered (or as the
                # importer numbers them: a history's positions).
                node.index = index
                number = numbers.get(node.span.span_id, index) if numbers else index
                node.step_id = f"{step_label(node.reading, node.span)}#{number}"
                index += 1
                self._enter(node, node is root)
                continue
            self._exit(node, node is root)
            self.spans += 1
            if node.reading.problems:  # (known only now: content is read during the walk)
                self.problems.append((node.index, node.reading.problems))
            if node is not root:
                span = node.span
                span.attributes = _RELEASED
                if span.events:
                    span.events = []
                if span.logs:
                    span.logs = []
        self._flush()

    def _enter(self, node: Node, is_root: bool) -> None:
        span = node.span
        self.now = _start_ms(span)
        role = node.reading.role
        op = node.reading.op
        if role in ("agent", "chain") and not is_root and isinstance(op, Boundary):
            self.path.append(node.step_id)
            self.stamped_path = list(self.path)
            event: dict[str, Any] = {
                "name": op.name,
                "subflowId": "/".join(self.path),
                "description": f"{op.kind}: {op.name}",
                "traversalContext": {"runtimeStageId": node.step_id},
            }
            if op.input is not None:
                event["mappedInput"] = op.input
            self.rec.on_subflow_entry(event)
        elif role == "llm" and isinstance(op, LLMCall):
            self._llm_start(node, op)
        elif role == "tool" and isinstance(op, ToolCall):
            self._tool_start(node, op)

    def _exit(self, node: Node, is_root: bool) -> None:
        span = node.span
        self.now = _end_ms(span)
        role = node.reading.role
        op = node.reading.op
        failed = span.status == "ERROR"
        if is_root:
            self._close_call(node, role, op)
            self._flush_retrievals([])
            if failed:
                self.rec.on_run_failed(
                    {"structuredError": {"message": span.status_message or "span status ERROR"}}
                )
            else:
                out = op.output if isinstance(op, Boundary) else None
                self.rec.on_run_end(
                    {"payload": {"output": out}} if out is not None else {"payload": {}}
                )
            return
        if role in ("agent", "chain") and isinstance(op, Boundary):
            event: dict[str, Any] = {
                "name": op.name,
                "subflowId": "/".join(self.path),
                "traversalContext": {"runtimeStageId": node.step_id},
            }
            if failed:
                event["outputState"] = {"error": span.status_message or "span status ERROR"}
            elif op.output is not None:
                event["outputState"] = op.output
            self.rec.on_subflow_exit(event)
            self.path.pop()
            self.stamped_path = list(self.path)
        else:
            self._close_call(node, role, op)

    def _close_call(self, node: Node, role: str, op: object) -> None:
        """Close an LLM call, a tool call or a retrieval (root or not: the same events)."""
        if role == "llm" and isinstance(op, LLMCall):
            self._llm_end(node, op)
        elif role == "tool" and isinstance(op, ToolCall):
            self._tool_end(node, op)
        elif role == "retrieval" and isinstance(op, Retrieval):
            self._retrieval(node, op)

    # ------------------------------------------------------------------ LLM calls

    def _llm_start(self, node: Node, call: LLMCall) -> None:
        step = node.step_id
        self.llm_steps.append(step)
        read_llm_content(node.span, node.reading)
        self._sources(node, call)
        self._flush()
        system_text = "\n\n".join(
            call.system + [m.text() for m in call.inputs if m.role in ("system", "developer")]
        )
        payload: dict[str, Any] = {
            "iteration": len(self.llm_steps),
            "provider": call.provider,
            "model": call.model,
            "systemPromptChars": len(system_text),
            "messagesCount": len(call.inputs),
            "toolsCount": 0,
        }
        if system_text:
            payload["systemPromptText"] = system_text
        call.inputs = []  # read into sources: let the parsed history go (long traces)
        call.system = []
        self._emit(T_LLM_START, payload, node)

    def _llm_end(self, node: Node, call: LLMCall) -> None:
        step = node.step_id
        text = "\n".join(m.text() for m in call.outputs)
        calls = [p for m in call.outputs for p in m.parts if p.kind == "tool_call"]
        self._commit(
            step,
            node.span.name,
            _stage_id(step),
            {f"out:{step}": text if call.captured else _NONE},
            register=False,
        )
        self.last_llm = step
        self.llm_end_ns[step] = (node.span.end_ns, node.span.bad_time)
        if call.captured and not call.outputs:
            self.no_output_llm += 1
        if call.input_tokens is None and call.output_tokens is None:
            self.no_usage_llm += 1
        if calls:
            self.tool_calls_by_step[step] = calls
        for i, p in enumerate(calls):
            if p.id:
                self.llm_by_call_id[p.id] = step
                self.index_by_id.setdefault((step, p.id), i)
            self.llm_by_tool_name[p.name] = step
        if text.strip():
            self.llm_by_text[text.strip()] = step
        self.sources[step] = {
            "kind": "llm",
            "spanId": node.span.span_id,
            "llmIndex": len(self.llm_steps) - 1,
        }
        payload: dict[str, Any] = {
            "iteration": len(self.llm_steps),
            "content": "\n".join(p.text for m in call.outputs for p in m.parts if p.kind == "text"),
            "toolCallCount": len(calls),
            "stopReason": "error"
            if node.span.status == "ERROR"
            else (call.finish_reason or ("tool_calls" if calls else "stop")),
        }
        if not node.span.bad_time:  # (an unknown start or end: an unknown duration)
            payload["durationMs"] = _duration_ms(node.span)
        if call.input_tokens is not None or call.output_tokens is not None:
            payload["usage"] = {"input": call.input_tokens or 0, "output": call.output_tokens or 0}
        self._emit(T_LLM_END, payload, node, end=True)

    def _sources(self, node: Node, call: LLMCall) -> None:
        """Commit every not-yet-seen input source of this call and record what the call reads."""
        step = node.step_id
        self.reads.setdefault(step, {})
        self.open_asker = None
        if not call.captured:
            self._flush_retrievals([])
            self.uncaptured_llm += 1
            self._structural_reads(step)
            return
        # (text, message index and role, or None for gen_ai.system_instructions)
        system_texts: list[tuple[str, tuple[int, str] | None]] = [(t, None) for t in call.system]
        for i, msg in enumerate(call.inputs):
            if msg.role in ("system", "developer"):
                system_texts.append((msg.text(), (i, msg.role)))
        parts = [(p, where) for text, where in system_texts for p in self._paragraphs(text)]
        if self.pending:  # (most calls have no retrieval waiting: skip re-reading every message)
            lines = [
                ln
                for m in call.inputs
                if m.role not in ("system", "developer")
                for ln in m.text().splitlines()
            ]
            self.doc_parts |= self._flush_retrievals([p for p, _ in parts] + lines)
        for ordinal, (part, where) in enumerate(parts, start=1):
            if part not in self.doc_parts:
                self._system_part(step, part, ordinal, node, where)
        # (documents may come in gen_ai.system_instructions as well as in a message: OpenLLMetry's
        # LangChain spans put every system message there)
        all_text = "\n".join([*call.system, *(m.text() for m in call.inputs)]) if self.docs else ""
        for i, msg in enumerate(call.inputs):
            if msg.role in ("system", "developer"):
                continue
            if msg.role == "assistant":
                self._assistant_message(step, i, msg, node)
            elif msg.role == "tool":
                self._tool_message(step, i, msg, node)
            elif any(p.kind == "tool_result" for p in msg.parts):
                # Tool results in another role's message (pydantic-ai sends them as role user,
                # as the conventions' parts form allows): each result is its tool's, the rest
                # of the message is what its role says.
                self._tool_message(step, i, msg, node)
                rest = [p for p in msg.parts if p.kind != "tool_result"]
                if any(p.text.strip() for p in rest):
                    self._plain_message(
                        step,
                        i,
                        Message(msg.role, rest, msg.name),
                        node,
                        producer="run-input" if msg.role == "user" else "not-in-trace",
                    )
            else:
                self._plain_message(
                    step,
                    i,
                    msg,
                    node,
                    producer="run-input" if msg.role == "user" else "not-in-trace",
                )
        # A document leaves the candidates once a call no longer carries it (it left the window).
        keep = []
        for doc in self.docs:
            content = doc["content"]
            if content and content in all_text:
                self._read(step, f"doc:{doc['id']}", doc["step"], doc["by"])
                doc["consumed"] = True
                keep.append(doc)
            elif not content and not doc["consumed"]:
                self._read(step, f"doc:{doc['id']}", doc["step"], "structure")
                doc["consumed"] = True
            elif not doc["consumed"]:
                keep.append(doc)
        self.docs = keep

    def _paragraphs(self, text: str) -> tuple[str, ...]:
        """``split_paragraphs``, once per distinct text: every call of a run repeats its system
        instructions."""
        found = self.paragraphs.get(text)
        if found is None:
            found = self.paragraphs[text] = tuple(split_paragraphs(text))
        return found

    def _structural_reads(self, step: str) -> None:
        """No content: the call reads the previous call's output and the tools and documents since."""
        if self.last_llm is not None:
            prev = self.last_llm
            self._read(step, f"out:{prev}", prev, "structure")
        if self.last_llm is not None:
            for tool in self.asked_tools.get(self.last_llm, []):
                self._read(step, self.tool_keys[tool], tool, "structure")
        for doc in self.docs:
            if not doc["consumed"]:
                self._read(step, f"doc:{doc['id']}", doc["step"], "structure")
                doc["consumed"] = True
        self.docs = []

    def _system_part(
        self, reader: str, text: str, ordinal: int, node: Node, where: tuple[int, str] | None
    ) -> None:
        step = self.system_parts.get(text)
        if step is None:
            part_id = f"system-instructions.p{ordinal}"
            n = 1
            while part_id in self.part_ids:
                n += 1
                part_id = f"system-instructions.p{ordinal}.v{n}"
            self.part_ids[part_id] = text
            step = f"{part_id}#{node.index}"
            self.system_parts[text] = step
            self._commit(
                step,
                "SystemInstruction",
                part_id,
                {
                    f"in:{step}": text,
                    "systemPromptInjections": [
                        {"source": "instructions", "sourceId": part_id, "rawContent": text}
                    ],
                },
            )
            source: dict[str, Any] = {"kind": "system-instruction", "partId": part_id, "text": text}
            if where is not None:
                source["messageIndex"], source["role"] = where
            self.sources[step] = source
            self._emit(
                T_CONTEXT_INJECTED,
                {
                    "contentSummary": text[:200],
                    "slot": "system-prompt",
                    "source": "instructions",
                    "sourceId": part_id,
                    "reason": "system-instruction part (imported)",
                },
                node,
            )
        self._read(reader, f"in:{step}", step, "input")

    def _plain_message(
        self, reader: str, index: int, msg: Message, node: Node, producer: str
    ) -> None:
        text = msg.text()
        key = (index, msg.role, text)
        step = self.messages.get(key)
        if step is None:
            step = f"message:{clean(msg.role)}.{index}#{node.index}"
            self.messages[key] = step
            self._commit(
                step,
                f"{msg.role.capitalize()}Message",
                f"message:{clean(msg.role)}.{index}",
                {f"in:{step}": text},
                untracked=True,
            )
            self.sources[step] = {
                "kind": "message",
                "messageIndex": index,
                "role": msg.role,
                "producer": producer,
                "text": text,
            }
        self._read(reader, f"in:{step}", step, "input")

    def _assistant_message(self, reader: str, index: int, msg: Message, node: Node) -> None:
        for call_id in msg.tool_call_ids():
            llm = self.llm_by_call_id.get(call_id)
            if llm is not None:
                self._read(reader, f"out:{llm}", llm, "id")
                self.open_asker, self.open_position = llm, 0
                return
        text = msg.text().strip()
        llm = self.llm_by_text.get(text) if text else None
        if llm is not None:
            self._read(reader, f"out:{llm}", llm, "content")
            self.open_asker, self.open_position = llm, 0
            return
        self.open_asker = None
        self._plain_message(reader, index, msg, node, producer="not-in-trace")

    def _tool_by_json(self, text: str) -> str | None:
        """The tool whose result is the same JSON value as ``text`` (another encoder's spacing
        or key order), None when there is none."""
        key = _json_key(text)
        if key is None:
            return None
        if self.tool_by_json is None:  # (from now on each result is keyed as it is read)
            self.tool_by_json = {}
            for result, step in self.tool_by_text.items():
                self._json_result(result, step)
        return self.tool_by_json.get(key)

    def _json_result(self, result: str, step: str) -> None:
        same = _json_key(result)
        if same is not None and self.tool_by_json is not None:
            self.tool_by_json[same] = step  # (the latest, as by text)

    def _tool_message(self, reader: str, index: int, msg: Message, node: Node) -> None:
        for part in msg.parts:
            if part.kind != "tool_result":
                continue
            position = self.open_position
            self.open_position += 1
            tool = self.tool_by_id.get(part.id) if part.id else None
            if tool is not None:
                by = "content" if part.id in self.adopted_ids else "id"
                self._read(reader, self.tool_keys[tool], tool, by)
                continue
            tool = self.tool_by_text.get(part.text.strip())
            if tool is None:
                tool = self._tool_by_json(part.text)
            if tool is not None and part.text.strip():
                self._read(reader, self.tool_keys[tool], tool, "content")
                continue
            tool = self._rebuild(part, position, node)
            if tool is not None:
                by = "structure" if tool in self.rebuilt_by_position else "id"
                self._read(reader, self.tool_keys[tool], tool, by)
                continue
            self.spanless_results.add(part.id or part.text)
            self._plain_message(
                reader, index, Message("tool", [part]), node, producer="not-in-trace"
            )

    def _span_claims(self, llm: str, op: ToolCall) -> None:
        """A tool span answers one request of the call that asked for it, which is then never
        rebuilt: the request of its tool-call id, else an open one of its name (of its
        arguments first). A span that finds none answers a request nobody can name — another
        call of its name (its asker, found by name, was a guess: a nested agent asked for the
        same tool later) or, of no request's name, one of its asker's (a handoff span answers
        transfer_to_…): it is counted, and the first result that would be rebuilt for such a
        request is taken as its instead (``_rebuild``) — by then every span that names its
        request has claimed it, whatever order the spans came in."""
        asked = self.tool_calls_by_step.get(llm, ())
        if op.call_id:
            mine = self.index_by_id.get((llm, op.call_id))
            if mine is not None and (llm, mine) not in self.claimed:
                self.claimed.add((llm, mine))
                return
            if mine is not None:  # (taken already: the id was adopted from a mistaken asker)
                self.spare_by_name[op.name] = self.spare_by_name.get(op.name, 0) + 1
                return
        named = self._open_of_name(llm, op.name)
        same = [i for i in named if _same_arguments(asked[i].arguments, op.arguments)]
        pick = same or named
        if pick:
            self.claimed.add((llm, pick[0]))
        elif any(p.name == op.name for p in asked):
            self.spare_by_name[op.name] = self.spare_by_name.get(op.name, 0) + 1
        elif any((llm, i) not in self.claimed for i in range(len(asked))):
            self.unnamed_spans[llm] = self.unnamed_spans.get(llm, 0) + 1

    def _open_of_name(self, llm: str, name: str) -> list[int]:
        """The requests of ``llm``'s output for tool ``name`` that no tool step answers yet, in
        the order it asked for them."""
        asked = self.tool_calls_by_step.get(llm, ())
        return [i for i, p in enumerate(asked) if p.name == name and (llm, i) not in self.claimed]

    def _rebuild(self, part: Part, position: int, reader: Node) -> str | None:
        """A tool step for a tool result no tool span gave, when an LLM output of the trace
        asked for the call it answers (``answered_call``): by tool-call id, or — the messages
        carrying no ids — by position, the request at the result's place after the assistant
        message before it (``open_asker``). None when there is no such request, or a tool span
        answered it (``claimed``): the result then stays a message, as before. Its
        time is unknown: it sits between the asking call's end and this call's start, with no
        duration and no error of its own."""
        if part.id in self.span_call_ids:  # (a tool span answers it, later in the walk)
            return None
        asker = self.llm_by_call_id.get(part.id) if part.id else self.open_asker
        if asker is None:
            return None
        asked = self.tool_calls_by_step[asker]
        index: int | None
        if part.id:
            index = self.index_by_id[(asker, part.id)]
        elif position < len(asked):
            # The request at the result's position; if a tool span took it (a span without an
            # id claims the first open request of its name), the next open one of that name.
            index = position
            if (asker, index) in self.claimed:
                index = next(iter(self._open_of_name(asker, asked[position].name)), None)
        else:
            index = None
        if index is None or (asker, index) in self.claimed:
            return None  # (a tool span answered it, without the message's id: ADK's)
        self.claimed.add((asker, index))
        name = asked[index].name
        if self.spare_by_name.get(name):  # (a span of its name answered it, asker mistaken)
            self.spare_by_name[name] -= 1
            return None
        if self.unnamed_spans.get(asker):  # (a span of another name answered it: a handoff)
            self.unnamed_spans[asker] -= 1
            return None
        op = answered_call(part, asked[index])
        end_ns, end_bad = self.llm_end_ns[asker]
        bad = START_UNKNOWN if end_bad & (END_UNKNOWN | ENDS_BEFORE_START) else 0
        if reader.span.bad_time & START_UNKNOWN:
            bad |= END_UNKNOWN
        start_ns, stop_ns = end_ns, reader.span.start_ns
        if not bad and stop_ns < start_ns:  # (the next call began before the asker ended)
            bad = ENDS_BEFORE_START
        span = Span(
            trace_id=reader.span.trace_id,
            span_id="",
            parent_id=None,
            name=f"execute_tool {op.name}",
            kind="INTERNAL",
            start_ns=start_ns,
            end_ns=stop_ns,
            status="UNSET",
            status_message="",
            attributes=_RELEASED,
            bad_time=bad,
        )
        node = Node(span, Reading(op, "tool", "messages"), NO_ITEMS, index=reader.index)
        step = f"{step_label(node.reading, span)}#{reader.index}"
        n = 1
        while step in self.rebuilt_steps:
            n += 1
            step = f"{step_label(node.reading, span)}#{reader.index}.{n}"
        node.step_id = step
        self.rebuilt_steps.add(step)
        if not part.id:
            self.rebuilt_by_position.add(step)
        was = self.now
        self.now = _start_ms(span)
        self._tool_start(node, op, (asker, "id" if part.id else "structure"))
        self.now = _end_ms(span)
        self._tool_end(node, op, rebuilt=True)
        self.now = was
        return step

    # ------------------------------------------------------------------ tools and retrieval

    def _tool_start(
        self, node: Node, op: ToolCall, asker: tuple[str | None, str] | None = None
    ) -> None:
        """Find the LLM call that asked for this tool (``asker`` when already known), adopt its
        tool-call id when the span carries none, and emit ``tool.start`` — after the adoption, so
        start and end name the same call."""
        asked, by = asker if asker is not None else self._asker(op)
        self.tool_askers[node.step_id] = (asked, by)
        if not op.call_id and asked is not None:
            # No id on the span: take the id of the call that asked for this tool by name (the
            # first one not yet claimed, by an ended tool or one still running), so the rerun
            # spec can still name the tool call.
            for p in self.tool_calls_by_step.get(asked, []):
                if (
                    p.name == op.name
                    and p.id
                    and p.id not in self.tool_by_id
                    and p.id not in self.adopted_ids
                ):
                    op.call_id = p.id
                    self.adopted_ids.add(p.id)
                    break
        self._emit(
            T_TOOL_START,
            {"toolName": op.name, "toolCallId": op.call_id or node.step_id, "args": op.arguments},
            node,
        )

    def _tool_end(self, node: Node, op: ToolCall, rebuilt: bool = False) -> None:
        """Commit a tool step and emit ``tool.end``; a step ``rebuilt`` from the messages has no
        span (no span id, duration or error of its own) and is written out with the call that
        read it (``_flush`` then, not now: that call's reads are still being gathered)."""
        step = node.step_id
        self.tool_steps.append(step)
        found = self.tool_askers.pop(step, None)
        asked, by = found if found is not None else self._asker(op)
        key = f"tool:{op.call_id or step}"
        if asked is not None:
            self._read(step, f"out:{asked}", asked, by)
            self.tool_asked[step] = asked
            self.asked_tools.setdefault(asked, []).append(step)
            if not rebuilt:  # (a rebuilt step claimed its request when it was found)
                self._span_claims(asked, op)
        last: dict[str, Any] = {"toolName": op.name}
        if op.result is not None:
            last["result"] = op.result
        self._commit(
            step,
            node.span.name,
            _stage_id(step),
            {key: op.result if op.result is not None else _NONE, "lastToolResult": last},
        )
        source: dict[str, Any] = {
            "kind": "tool",
            "toolName": op.name,
            "toolCallId": op.call_id,
            "callIdFrom": "llm-output"
            if op.call_id in self.adopted_ids
            else ("tool-message" if rebuilt else "span" if op.call_id else "none"),
        }
        if not rebuilt:  # a rebuilt step has no span; the key stays last, as it always was
            source["spanId"] = node.span.span_id
        source["key"] = key
        self.sources[step] = source
        self.tool_keys[step] = key
        if op.call_id:
            self.tool_by_id.setdefault(op.call_id, step)
        if op.result:
            self.tool_by_text[op.result.strip()] = step
            if self.tool_by_json is not None:
                self._json_result(op.result, step)
        payload: dict[str, Any] = {
            "toolCallId": op.call_id or step,
        }
        if not node.span.bad_time and not rebuilt:  # (an unknown start or end: unknown duration)
            payload["durationMs"] = _duration_ms(node.span)
        if op.result is not None:
            payload["result"] = op.result
        if node.span.status == "ERROR":
            payload["error"] = node.span.status_message or "span status ERROR"
        self._emit(T_TOOL_END, payload, node, end=True)
        if not rebuilt:
            self._flush()

    def _asker(self, op: ToolCall) -> tuple[str | None, str]:
        if op.call_id and op.call_id in self.llm_by_call_id:
            return self.llm_by_call_id[op.call_id], "id"
        if op.name in self.llm_by_tool_name:
            return self.llm_by_tool_name[op.name], "content"
        if self.last_llm is not None:
            return self.last_llm, "structure"
        return None, "structure"

    def _retrieval(self, node: Node, op: Retrieval) -> None:
        """Documents are committed when the next LLM call starts (or the run ends): a document
        exported without its text often shows up, under its id, inside that call's input."""
        self.pending.append((node, op))

    def _flush_retrievals(self, inputs: list[str]) -> set[str]:
        """Commit pending retrievals; return the input parts that turned out to be documents."""
        owned: set[str] = set()
        pending, self.pending = self.pending, []
        for node, op in pending:
            step = node.step_id
            values: dict[str, Any] = {}
            records = []
            for rank, doc in enumerate(op.documents):
                content, by = doc.content, "content"
                if content is None:
                    for part in inputs:
                        if doc.id in part:
                            content, by = part, "id"
                            owned.add(part)
                            break
                elif len(content) >= MIN_DOC_CHARS:
                    # The part that quotes the document is the document, not an instruction.
                    owned.update(part for part in inputs if content in part)
                values[f"doc:{doc.id}"] = content if content is not None else _NONE
                rec: dict[str, Any] = {"source": "rag", "sourceId": doc.id}
                if content is not None:
                    rec["rawContent"] = content
                records.append(rec)
                if content is not None:
                    owned.add(content)
                self.docs.append(
                    {"id": doc.id, "content": content, "step": step, "consumed": False, "by": by}
                )
                payload: dict[str, Any] = {
                    "slot": "messages",
                    "source": "rag",
                    "sourceId": doc.id,
                    "reason": f"retrieved by {node.span.name}",
                    "rankPosition": rank,
                }
                if content:
                    payload["contentSummary"] = content[:200]
                if doc.score is not None:
                    payload["retrievalScore"] = doc.score
                self._emit(T_CONTEXT_INJECTED, payload, node, end=True)
            values["messagesInjections"] = records
            self._commit(step, node.span.name, _stage_id(step), values)
            self.sources[step] = {
                "kind": "retrieval",
                "spanId": node.span.span_id,
                "query": op.query,
                "documents": [d.id for d in op.documents],
            }
        return owned


def _start_ms(span: Span) -> Any:
    """The span's start in ms, or ABSENT when it is unknown (its event then has no ts)."""
    return ABSENT if span.bad_time & START_UNKNOWN else span.start_ns // 1_000_000


def _end_ms(span: Span) -> Any:
    """The span's end in ms, or ABSENT when it is unknown (or before its start: either may be
    the wrong one, and the start keeps the span's place)."""
    return ABSENT if span.bad_time & (END_UNKNOWN | ENDS_BEFORE_START) else span.end_ns // 1_000_000


def _duration_ms(span: Span) -> int:
    """The span's duration in ms (of a span with both times known)."""
    return max(0, (span.end_ns - span.start_ns) // 1_000_000)


_WHICH = {
    START_UNKNOWN: "start",
    END_UNKNOWN: "end",
    START_UNKNOWN | END_UNKNOWN: "start and end",
    ENDS_BEFORE_START: "ends before it starts",
}


class _Clock:
    """The recorder's clock: the current span time in ms, read from a shared cell."""

    __slots__ = ("cell",)

    def __init__(self, cell: list[Any]) -> None:
        self.cell = cell

    def __call__(self) -> Any:
        return self.cell[0]


# What a handled span's attributes become: one empty mapping shared by every released span
# (nothing reads them again), not 100,000 new ones.
_RELEASED: dict[str, Any] = {}


class _NoneType:
    __slots__ = ()


_NONE: Any = _NoneType()


def _stage_id(step: str) -> str:
    return step.rpartition("#")[0] or step


def _walk(root: Node) -> Iterator[tuple[Node, bool]]:
    """Pre/post-order over the span tree with an explicit stack (traces can be deep). Each node
    is unlinked from its parent once entered, so that a node nothing else holds is freed as soon
    as it has been left."""
    stack: list[tuple[Node, bool]] = [(root, True)]
    while stack:
        node, entering = stack.pop()
        yield node, entering
        if entering:
            stack.append((node, False))
            children = node.children
            if children:
                stack.extend([(c, True) for c in reversed(children)])
                node.children = NO_ITEMS
        del node  # (the generator's frame must not hold the node it last yielded)


def _reach(root: Node) -> None:
    """Mark ``root``'s tree as reached (an explicit stack: traces can be deep)."""
    stack = [root]
    while stack:
        node = stack.pop()
        node.reached = True
        stack.extend(node.children)


def step_label(reading: Reading, span: Span) -> str:
    """The readable stage part of a step id (``chat``, ``execute_tool:get_refund_policy``)."""
    a = span.attributes
    op = reading.op
    if reading.role == "llm":
        name = a.get("gen_ai.operation.name")
        return clean(name if isinstance(name, str) and name else span.name)
    if reading.role == "tool" and isinstance(op, ToolCall):
        return f"execute_tool:{clean(op.name)}"
    if reading.role == "agent" and isinstance(op, Boundary) and op.name:
        return f"invoke_agent:{clean(op.name)}"
    if reading.role == "chain" and isinstance(op, Boundary):
        kind = a.get("gen_ai.operation.name")
        if kind == "plan":
            agent = a.get("gen_ai.agent.name")
            return f"plan:{clean(agent)}" if isinstance(agent, str) and agent else "plan"
        if kind == "invoke_workflow":
            return f"invoke_workflow:{clean(op.name)}"
        return f"chain:{clean(op.name)}"
    if reading.role == "retrieval" and a.get("gen_ai.operation.name") == "search_memory":
        store = a.get("gen_ai.memory.store.id")
        return (
            f"search_memory:{clean(store)}" if isinstance(store, str) and store else "search_memory"
        )
    if reading.role == "retrieval":
        source = a.get("gen_ai.data_source.id")
        name = (
            source if isinstance(source, str) and source else span.name.removeprefix("retrieval ")
        )
        return "retrieval" if name in ("retrieval", "retrieve") else f"retrieval:{clean(name)}"
    return clean(span.name)


_SORTED = msgspec.json.Encoder(order="sorted")


def _json_key(text: str) -> str | None:
    """A JSON object or array's canonical text (keys sorted, no spaces), so that a tool result
    logged by one library's encoder matches the same value sent by another's; None for other
    text."""
    t = text.strip()
    if not t or t[0] not in "{[":
        return None
    try:
        return _SORTED.encode(msgspec.json.decode(t)).decode()
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None


def _same_arguments(a: str, b: str) -> bool:
    """Whether two tool-call argument texts are the same value (JSON compared as values)."""
    return (_json_key(a) or a.strip()) == (_json_key(b) or b.strip())


def _llm_below(node: Node) -> list[Node]:
    """The LLM spans in ``node``'s subtree (not ``node`` itself)."""
    found: list[Node] = []
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.reading.role == "llm":
            found.append(n)
        stack.extend(n.children)
    return found


def _one_request(by_id: dict[str, Node], flags: list[tuple[str, str]]) -> None:
    """An LLM span with exactly one LLM span inside it is one request seen by two layers (a
    framework's span around its client's: Google ADK's call_llm around generate_content, a
    LangChain model span around the OpenAI client's): read once, else every call and token is
    counted twice. The span that captured content is kept as the call (the inner one when both
    did: it is what was sent), missing token counts and model taken from the other; the other
    stays in the tree as a plain span."""
    merged: list[str] = []
    # (pairs found on the spans as read, before any is merged: the result does not depend on
    # the order of the spans in the file)
    pairs = []
    for outer in by_id.values():
        if outer.reading.role != "llm" or not outer.children:
            continue
        inner_list = _llm_below(outer)
        if len(inner_list) == 1 and not _llm_below(inner_list[0]):
            pairs.append((outer, inner_list[0]))
    for outer, inner in pairs:
        a, b = outer.reading.op, inner.reading.op
        if not isinstance(a, LLMCall) or not isinstance(b, LLMCall):
            continue
        read_llm_content(outer.span, outer.reading)
        read_llm_content(inner.span, inner.reading)
        keep, drop = (outer, inner) if a.captured and not b.captured else (inner, outer)
        k, d = keep.reading.op, drop.reading.op
        assert isinstance(k, LLMCall) and isinstance(d, LLMCall)
        if k.input_tokens is None and k.output_tokens is None:
            k.input_tokens, k.output_tokens = d.input_tokens, d.output_tokens
        k.model = k.model or d.model
        k.provider = k.provider or d.provider
        k.finish_reason = k.finish_reason or d.finish_reason
        drop.reading = Reading(None, "other", drop.reading.convention)
        merged.append(f"{drop.span.name!r} ({drop.span.span_id})")
    if merged:
        flags.append(
            (
                "nested-llm-spans",
                f"{len(merged)} LLM span(s) held exactly one other LLM span and were read with it "
                f"as one request, counted once: {', '.join(merged[:3])}"
                + (", …" if len(merged) > 3 else ""),
            )
        )


def build_tree(
    spans: list[Span],
    flags: list[tuple[str, str]],
    name: str,
    readings: dict[str, Reading] | None = None,
    span_call_ids: set[str] | None = None,
) -> Node:
    """The span tree of one trace: duplicates, missing parents, cycles and time-range escapes are
    kept with a flag; several roots hang under a synthesized run node. ``span_call_ids``, when
    given, receives the tool-call ids of the tool spans (a result one of them answers is never
    rebuilt from the messages, wherever that span sits in the walk)."""
    by_id: dict[str, Node] = {}
    dups = 0
    for s in spans:
        if s.span_id in by_id:
            dups += 1
            continue
        reading = readings.get(s.span_id) if readings is not None else None
        if reading is None:
            reading = read_span(s)
        if span_call_ids is not None and isinstance(reading.op, ToolCall) and reading.op.call_id:
            span_call_ids.add(reading.op.call_id)
        # (a leaf's children: the shared empty list, 56 bytes of every leaf span saved)
        by_id[s.span_id] = Node(s, reading, NO_ITEMS)
    if dups:
        flags.append(
            (
                "duplicate-span-ids",
                f"{dups} span(s) repeat an earlier span id; the first of each was kept",
            )
        )
    roots: list[Node] = []
    orphans: list[str] = []
    for node in by_id.values():
        pid = node.span.parent_id
        if pid is None:
            roots.append(node)
        elif pid not in by_id:
            orphans.append(f"{node.span.name!r} ({node.span.span_id})")
            roots.append(node)
        else:
            up = by_id[pid]
            if not up.children:
                up.children = []
            up.children.append(node)
    if orphans:
        flags.append(
            (
                "orphan-spans",
                f"{len(orphans)} span(s) name a parent not in the trace, kept at the top: "
                + ", ".join(orphans[:3]),
            )
        )
    # Spans on a parent cycle are unreachable from any root: cut each cycle at one span.
    for r in roots:
        _reach(r)
    cut = []
    for node in by_id.values():
        if node.reached:
            continue
        parent = by_id.get(node.span.parent_id) if node.span.parent_id is not None else None
        if parent is not None and node in parent.children:
            parent.children.remove(node)
        roots.append(node)
        cut.append(f"{node.span.name!r} ({node.span.span_id})")
        _reach(node)
    if cut:
        flags.append(("parent-cycle", f"parent links form a cycle; cut at {', '.join(cut[:3])}"))
    outside = 0
    for node in by_id.values():
        node.children.sort(key=lambda c: (c.span.start_ns, c.span.end_ns))
        if node.span.bad_time:
            continue  # (no range to escape)
        for c in node.children:
            if c.span.bad_time:
                continue  # (its own flag says so: an unknown time is not outside the range)
            if c.span.start_ns < node.span.start_ns or c.span.end_ns > node.span.end_ns:
                outside += 1
    if outside:
        flags.append(
            (
                "span-outside-parent",
                f"{outside} span(s) start or end outside their parent's time range; nesting kept from the parent links",
            )
        )
    _one_request(by_id, flags)
    untimed = [n.span for n in by_id.values() if n.span.bad_time]
    if untimed:
        named = ", ".join(f"{s.name!r} ({s.span_id}) {_WHICH[s.bad_time]}" for s in untimed[:3])
        flags.append(
            (
                "malformed-span-time",
                f"{len(untimed)} span(s) have a missing, unparsable or out-of-range start/end "
                f"time, or end before they start: {named}{', …' if len(untimed) > 3 else ''}; "
                "kept, an unknown time ordered as if at time 0 — their LLM latencies, tool "
                "durations and agent, chain or run durations are left out (unknown)",
            )
        )
    unknown = sum(1 for n in by_id.values() if n.span.kind == "UNSPECIFIED")
    if unknown:
        flags.append(
            (
                "unknown-span-kind",
                f"{unknown} span(s) have an unspecified or unknown span kind; read by their attributes",
            )
        )
    roots.sort(key=lambda r: (r.span.start_ns, r.span.end_ns))
    if len(roots) == 1:
        return roots[0]
    first = roots[0].span
    # (one root's unknown time makes the whole run's start or end unknown, not 0)
    bad = 0
    for r in roots:
        bad |= r.span.bad_time
    synthetic = Span(
        trace_id=first.trace_id,
        span_id="",
        parent_id=None,
        name=f"trace {first.trace_id}",
        kind="INTERNAL",
        start_ns=min(r.span.start_ns for r in roots),
        end_ns=max(r.span.end_ns for r in roots),
        status="UNSET",
        status_message="",
        attributes={},
        bad_time=bad,
    )
    return Node(synthetic, Reading(None, "other", "none"), children=roots)


def synthesize(
    spans: list[Span],
    flags: list[tuple[str, str]],
    name: str,
    readings: dict[str, Reading] | None = None,
    axis_note: str = "",
    detail: Mode = "full",
    max_events: object = DEFAULT_MAX_EVENTS,
    step_numbers: dict[str, int] | None = None,
) -> Synthesis:
    """One trace's spans → recording (``{snapshot, events, import}``) with its flags.

    ``readings`` replaces the convention reading of the spans it names (transcripts build their
    calls directly); ``axis_note`` replaces the note of the synthesized-commit-axis flag;
    ``step_numbers`` gives the spans it names the number after ``#`` in their step ids (a
    history's position; unique among steps of one label), others are numbered in walk order.
    """
    call_ids: set[str] = set()
    root = build_tree(spans, flags, name, readings, call_ids)
    b = _Builder(root, flags, detail, max_events, step_numbers or {}, frozenset(call_ids))
    try:
        b.build()
    finally:
        forget_messages()  # (the chat history each call resent, kept while it was read)
    untimed: list[str] = []  # (the spans whose content records have an unknown time)
    for _, problems in sorted(b.problems, key=lambda p: p[0]):  # in span start order
        for problem in problems:
            if problem[0] == EVENT_TIME:
                untimed.append(problem[1])
            else:
                flags.append(problem)
    if untimed:
        flags.append(
            (
                EVENT_TIME,
                f"{len(untimed)} LLM span(s) hold span events or log records with a missing, "
                "unparsable or out-of-range time, or one outside the span's own time range: "
                f"{', '.join(untimed[:3])}"
                f"{', …' if len(untimed) > 3 else ''}; their content is kept, placed after the "
                "record before it in the file — the order of those messages is a guess",
            )
        )
    recording = b.rec.to_recording()
    snap = recording["snapshot"]
    snap["runId"] = root.span.trace_id
    # A flat tree: one child per step, so reads are found without deep nesting.
    snap["executionTree"] = b.tree.raw()
    counts = {
        "spans": b.spans - (1 if not root.span.span_id else 0),
        "llmCalls": len(b.llm_steps),
        "toolCalls": len(b.tool_steps),
        "llmCallsWithoutContent": b.uncaptured_llm,
        "matchedByContent": b.by_content,
        "matchedByStructure": b.by_structure,
    }
    if b.rebuilt_steps:  # (only then: the counts of every other trace stay as they were)
        counts["toolCallsFromMessages"] = len(b.rebuilt_steps)
    out_flags = list(flags)
    out_flags.append(
        (
            "synthesized-commit-axis",
            axis_note
            or "the commit axis is the span start order (a span that contains others commits when it ends), synthesized by the importer: the trace has no commits of its own",
        )
    )
    if b.uncaptured_llm:
        out_flags.append(
            (
                "content-not-captured",
                f"{b.uncaptured_llm} of {len(b.llm_steps)} LLM call(s) carry no message content; counts are exact but bisect ranks by structure only — {CAPTURE_HINT}",
            )
        )
    if b.no_usage_llm and "no-token-usage" not in dict(flags):
        out_flags.append(
            (
                "no-token-usage",
                f"{b.no_usage_llm} of {len(b.llm_steps)} LLM call(s) carry no token counts: they count as 0 in the totals, not measured",
            )
        )
    if b.rebuilt_steps:
        by_position = len(b.rebuilt_by_position)
        out_flags.append(
            (
                TOOL_STEPS_FROM_MESSAGES,
                f"{len(b.rebuilt_steps)} tool call(s) asked for by an LLM output had no tool span "
                "(the instrumentation traced the model calls, not the tools): each was rebuilt "
                "from the chat messages — name and arguments from the request, result from the "
                "later call's input"
                + (
                    f", {by_position} of them paired with their request by position (the "
                    "messages carry no tool-call ids)"
                    if by_position
                    else ", paired by tool-call id"
                )
                + " — and placed between the asking call's end and the next call's start: no "
                "duration, status or error of their own",
            )
        )
    if b.spanless_results:
        out_flags.append(
            (
                "tool-results-without-spans",
                f"{len(b.spanless_results)} tool result(s) fed back to the model match no tool span of the trace and were not rebuilt as tool steps (no LLM output of the trace asked for the call, or a tool span answered it without recording this result): they are suspects as the messages that carried them, and toolCalls does not count them",
            )
        )
    if b.no_output_llm:
        out_flags.append(
            (
                "output-not-captured",
                f"{b.no_output_llm} of {len(b.llm_steps)} LLM call(s) carry their input messages but not their output (the reply and the tool calls it asked for): the instrumentation did not record it, so bisect has no answer there to compare with its sources",
            )
        )
    if b.by_content:
        out_flags.append(
            (
                "matched-by-content",
                f"{b.by_content} input source(s) were linked to the span that produced them by identical content (the trace has no id for them)",
            )
        )
    if b.by_structure:
        out_flags.append(
            (
                "matched-by-structure",
                f"{b.by_structure} input source(s) were linked by position only (no id and no content to match)",
            )
        )
    recording[IMPORT_KEY] = {
        "sources": b.source_json.raw(),
        "matches": b.matches.raw(),
        "llmCallIds": b.llm_steps,
        "flags": [{"flag": f, "note": n} for f, n in out_flags],
        "counts": counts,
    }
    return Synthesis(recording, out_flags, b.llm_steps, b.tool_steps, counts, b.rec)
