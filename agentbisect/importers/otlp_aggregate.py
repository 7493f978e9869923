"""``afp aggregate`` on an OTLP/JSON trace without synthesizing its recording: the fast path.

The full path converts a trace into a canonical recording (commit log, domain events, execution
tree: ``importers.synthesize``) and loads that as a ``Run``; for a 100,000-span trace that is
~6 s, nearly all of it building and re-reading per-event Python objects the aggregate then
reduces to a handful of counts and one row per call. Here the same result is computed straight
from a typed decode of the spans (``otlp_typed``): no recording, no domain events, no ``Run``.

It handles what it can prove it reproduces exactly, and nothing else: one trace under one root
span, the current GenAI semantic conventions with content on the spans (``gen_ai.input.messages``
/ ``output.messages`` / ``system_instructions`` in the "parts" form, or no content at all), LLM,
tool, retrieval and other spans below the root — no agent or chain span below it (those are
subflow rollups), no span events or log records, no duplicate or missing ids, well-formed
times with every child inside its parent. Each call's input is split into its sources by the
synthesizer's rules (``synthesize._Builder._sources`` and the methods it calls), replayed here
over counts and step ids only: that decides the commit count and which steps ``--at-step``
takes. Anything else — and any value the typed decode refuses — returns ``None``, and the
command takes the full path. ``tests/test_otlp_aggregate_fast.py`` holds the two equal.

``ENABLED = False`` turns it off (the differential tests compare both paths that way).
"""

from __future__ import annotations

import gc
import mmap
import os
import re
import stat
from functools import reduce
from operator import add, lt
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from agentbisect.boundary.calls import LlmCallRow
    from agentbisect.results import AggregateResult

ENABLED: bool = True

# The synthesizer's constants (``importers.synthesize``; a test holds them equal).
MIN_DOC_CHARS = 20
CAPTURE_HINT = (
    "turn content capture on: opentelemetry-instrumentation-openai-v2 "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (2.4+; 'true' for 2.3 and older, "
    "content then arrives as log records: pass them with --logs), OpenInference "
    "OPENINFERENCE_HIDE_INPUTS/OPENINFERENCE_HIDE_OUTPUTS unset (or false), OpenLLMetry "
    "TRACELOOP_TRACE_CONTENT=true"
)
AXIS_NOTE = (
    "the commit axis is the span start order (a span that contains others commits when it "
    "ends), synthesized by the importer: the trace has no commits of its own"
)
STRUCTURE_NOTE = "the recording has no structure (chart)"
SHAPE, SHAPE_NAME = "otel", "OpenTelemetry trace"  # (importers.otel's NAME and LABEL)
ROW_ID = "boundary-1"  # the recorder row the synthesizer writes (importers.synthesize)
MAX_EVENTS = 10_000  # the recorder's typed-event tail (record.DEFAULT_MAX_EVENTS)
MAX_NS = 2**63 - 1
MAX_COUNT = 2**53
REDACTED = "__REDACTED__"
_UNSAFE = re.compile(r"[\x00-\x20\x7f/#]+")
_HEX = re.compile(r"[0-9a-f]*")
_BLANK = re.compile(rb"\s*")

LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})
_ROLES = {
    **dict.fromkeys(LLM_OPERATIONS, "llm"),
    "execute_tool": "tool",
    "invoke_agent": "agent",
    "create_agent": "agent",
    "retrieval": "retrieval",
    "retrieve": "retrieval",
    "embeddings": "embedding",
}


class _Bail(Exception):
    """Something this path does not reproduce exactly: take the full path."""


def fast_result(
    file: str,
    *,
    show_all: bool = False,
    drill: str | None = None,
    trace_id: str | None = None,
    logs: list[str] | None = None,
) -> AggregateResult | None:
    """The ``afp aggregate`` result of ``file``, or ``None`` when this path does not apply."""
    if not ENABLED or file == "-" or logs or trace_id is not None:
        return None
    was_enabled = gc.isenabled()
    gc.disable()  # (hundreds of thousands of acyclic objects: see otlp_typed)
    try:
        spans = _read(file)
        if spans is None:
            return None
        return _Aggregate(file, spans[0], spans[1]).result(show_all, drill)
    except (_Bail, msgspec.DecodeError, OSError, RecursionError):
        return None
    finally:
        if was_enabled:
            gc.enable()


# ----------------------------------------------------------------- reading


def _read(file: str) -> tuple[int, list[Any]] | None:
    """(file size, every span) of an uncompressed OTLP/JSON file, or None if it is not one
    this path reads (the full path then reads it, and names any error)."""
    from agentbisect.errors import InputError
    from agentbisect.importers import otlp_typed, trace_sniff
    from agentbisect.inputbytes import GZIP_MAGIC, UTF8_BOM, check_start, input_cap

    with open(file, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not 0 < st.st_size <= input_cap():
            return None
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    size = len(mm)
    head = mm[: 1 << 16]
    if head[:2] == GZIP_MAGIC or head[:3] == UTF8_BOM:
        return None
    try:
        check_start(file, head, "a JSON recording")
    except InputError:
        return None
    if not trace_sniff.otlp(head[: trace_sniff.SNIFF_BYTES]):
        return None
    # The mapping is left to be freed with the last view of it (decoded Raw values are views).
    view = memoryview(mm)
    decode = otlp_typed.EXPORT.decode
    docs: list[Any] = []
    try:
        docs.append(decode(view))  # one document (what the full import tries first)
    except msgspec.ValidationError:
        return None
    except msgspec.DecodeError:  # JSON Lines of export requests?
        if mm.find(b"\r") >= 0:
            return None  # (the full import then splits lines its own way)
        start = 0
        blank = _BLANK.fullmatch
        while start < size:
            end = mm.find(b"\n", start)
            if end < 0:
                end = size
            if end - start > 64 or blank(mm, start, end) is None:
                docs.append(decode(view[start:end]))
            start = end + 1
    spans: list[Any] = []
    for doc in docs:
        if doc.resourceLogs or not (
            doc.afp is doc.flow is doc.typed is doc.commit is msgspec.UNSET
        ):
            return None
        for rs in doc.resourceSpans:
            for ss in rs.scopeSpans:
                spans.extend(ss.spans)
    if not spans:
        return None
    return size, spans


# ----------------------------------------------------------------- value helpers


def _as_text(value: Any) -> str:
    """``conventions.as_text``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError, OverflowError):
        return str(value)


def _str(value: Any) -> str:
    """``conventions._str``."""
    if isinstance(value, str):
        return "" if value == REDACTED else value
    return "" if value is None else _as_text(value)


def _raw_text(raw: Any) -> str:
    """``as_text`` of a value kept as raw JSON (``UNSET``: the key was absent, ``None``)."""
    if raw is msgspec.UNSET:
        return ""
    return _as_text(msgspec.json.decode(raw))


def _clean(name: str) -> str:
    """``synthesize.clean``."""
    return _UNSAFE.sub("_", name).strip() or "span"


def _paragraphs(text: str) -> tuple[str, ...]:
    """``synthesize.split_paragraphs``."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    if len(paras) > 1:
        return tuple(paras)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return tuple(lines) if len(lines) > 1 else ((text.strip(),) if text.strip() else ())


class _Msg:
    """One input or output message in the "parts" form (``conventions.Message``)."""

    __slots__ = ("_text", "parts", "role")

    def __init__(self, role: str, parts: list[tuple[str, str, str, Any]]) -> None:
        self.role = role
        # (kind, id, name, raw value): text → its text; tool_call → its raw arguments;
        # tool_result → its raw response (turned into text on first use)
        self.parts = parts
        self._text: str | None = None

    def part_text(self, i: int) -> str:
        kind, pid, name, value = self.parts[i]
        if kind == "text":
            return str(value)
        if kind == "tool_call":
            return f"{name}({_raw_text(value)})"
        text = _raw_text(value)
        self.parts[i] = (kind, pid, name, _Text(text))
        return text

    def text(self) -> str:
        if self._text is None:
            self._text = "\n".join(self.part_text(i) for i in range(len(self.parts)))
        return self._text

    def call_ids(self) -> list[str]:
        return [p[1] for p in self.parts if p[0] == "tool_call" and p[1]]


class _Text(str):
    """A tool result already turned into text (``_raw_text`` of it is itself)."""


def _message(m: Any) -> _Msg:
    """``conventions._fast_message`` for a message the typed decode accepted."""
    if m.parts is msgspec.UNSET or m.message is not msgspec.UNSET:
        raise _Bail
    parts: list[tuple[str, str, str, Any]] = []
    for p in m.parts:
        if p.function is not msgspec.UNSET:
            raise _Bail
        kind = p.type
        if kind == "tool_call":
            parts.append(("tool_call", _str(p.id), _str(p.name), p.arguments))
        elif kind == "tool_call_response":
            resp = p.result if p.response is msgspec.UNSET else p.response
            parts.append(("tool_result", _str(p.id), "", resp))
        else:
            content = p.content
            if content is msgspec.UNSET:
                content = "" if p.text is msgspec.UNSET else p.text
            parts.append(("text", "", "", _str(content)))
    return _Msg(_str(m.role) or "user", parts)


def _system_parts(value: str) -> tuple[str, ...]:
    """``conventions._system_parts`` of a JSON string."""
    parsed = msgspec.json.decode(value)
    if isinstance(parsed, str):
        return (parsed,)
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        raise _Bail  # (a malformed-attribute flag on the full path)
    return tuple(
        _str(p.get("content", p.get("text", ""))) if isinstance(p, dict) else _as_text(p)
        for p in parsed
    )


def _tool_result(result: str) -> tuple[str, str]:
    """(text, call id found in it) of a tool result (``conventions._tool``)."""
    if result[:1] != "{":
        return result, ""
    import json

    try:
        parsed = json.loads(result)
    except ValueError:
        return result, ""
    if not isinstance(parsed, dict):
        return result, ""
    kwargs = parsed.get("kwargs")
    inner: dict[str, Any] = kwargs if isinstance(kwargs, dict) else parsed
    if isinstance(inner.get("tool_call_id"), str) and "content" in inner:
        return _as_text(inner["content"]), inner["tool_call_id"]
    return result, ""


def _status_error(status: Any) -> bool:
    if status is None:
        return False
    code = status.code
    if isinstance(code, int):
        return code == 2
    return str(code).upper().removeprefix("STATUS_CODE_") == "ERROR"


# ----------------------------------------------------------------- the replay


class _Doc:
    __slots__ = ("by", "consumed", "content", "id", "step")

    def __init__(self, doc_id: str, content: str | None, step: str, by: str) -> None:
        self.id = doc_id
        self.content = content
        self.step = step
        self.consumed = False
        self.by = by


class _Aggregate:
    """The synthesizer's walk over one trace, keeping only what the aggregate shows."""

    def __init__(self, file: str, size: int, spans: list[Any]) -> None:
        self.file = file
        self.size = size
        self.spans = spans
        self.commits: list[str] = []  # the step id of each commit, in order
        self.typed = 0  # typed events emitted
        self.llm_rows: list[Any] = []
        self.calls: list[dict[str, Any]] = []
        self.tokens_in: list[int] = []
        self.tokens_out: list[int] = []
        self.llm_to_user = 0  # llm.end events asking for no tool (step-graph nodes)
        self.tools = 0
        self.by_content = 0
        self.by_structure = 0
        self.uncaptured = 0
        # the synthesizer's matching state
        self.last_llm: str | None = None
        self.llm_by_call_id: dict[str, str] = {}
        self.llm_by_tool_name: dict[str, str] = {}
        self.tool_calls_by_step: dict[str, list[tuple[str, str, str, Any]]] = {}
        self.ended_llms: list[tuple[str, list[_Msg]]] = []  # for llm_by_text, filled lazily
        self.llm_by_text: dict[str, str] = {}
        self.llm_text_done = 0
        self.tool_by_id: dict[str, str] = {}
        self.tool_results: list[tuple[str, str]] = []  # for tool_by_text, filled lazily
        self.tool_by_text: dict[str, str] = {}
        self.tool_text_done = 0
        self.tool_keys: dict[str, str] = {}
        self.asked_tools: dict[str, list[str]] = {}
        self.adopted_ids: set[str] = set()
        self.system_parts: dict[str, str] = {}
        self.part_ids: set[str] = set()
        self.messages: set[tuple[int, str, str]] = set()
        self.docs: list[_Doc] = []
        self.pending: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.doc_parts: set[str] = set()
        self.reader_keys: set[str] = set()
        # memos: the same raw message, system text and name recur in every call of a run
        self.parsed: dict[bytes, _Msg] = {}
        self.system_memo: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.cleaned: dict[str, str] = {}

    # ------------------------------------------------------------- the tree

    def result(self, show_all: bool, drill: str | None) -> AggregateResult:
        spans = self.spans
        n = len(spans)
        sids = [s.spanId for s in spans]
        pids = [s.parentSpanId for s in spans]
        tids = {s.traceId for s in spans}
        if len(tids) != 1:
            raise _Bail  # several traces: multiple-runs and a choice (full path)
        (trace_id,) = tids
        if len(trace_id) != 32 or set(map(len, sids)) != {16}:
            raise _Bail
        if not set(map(len, pids)) <= {0, 16}:
            raise _Bail
        # lowercase hex ids are what normalize_id leaves as they are
        if _HEX.fullmatch(trace_id + "".join(sids) + "".join(pids)) is None:
            raise _Bail
        zero = "0" * 16
        if zero in pids:
            pids = ["" if p == zero else p for p in pids]
        index = dict(zip(sids, range(n), strict=True))
        if len(index) != n:
            raise _Bail  # duplicate span ids
        if pids.count("") != 1:
            raise _Bail  # several roots (orphans, or a synthesized run node)
        root = pids.index("")
        if not set(pids) - {""} <= index.keys():
            raise _Bail  # a parent not in the trace
        starts = [int(s.startTimeUnixNano) for s in spans]
        ends = [int(s.endTimeUnixNano) for s in spans]
        if min(starts) <= 0 or min(ends) <= 0 or max(starts) > MAX_NS or max(ends) > MAX_NS:
            raise _Bail  # malformed-span-time
        if any(map(lt, ends, starts)):
            raise _Bail  # a span ending before it starts
        if not {s.kind for s in spans} <= {1, 2, 3, 4, 5}:
            raise _Bail  # unknown-span-kind
        if any(s.events for s in spans):
            raise _Bail  # span events (older conventions' content)
        root_sid = sids[root]
        children: dict[int, list[int]] = {}
        if pids.count(root_sid) == n - 1:
            children[root] = [i for i in range(n) if i != root]
        else:
            for i, p in enumerate(pids):
                if p:
                    children.setdefault(index[p], []).append(i)
        for parent, kids in children.items():
            kids.sort(key=ends.__getitem__)
            kids.sort(key=starts.__getitem__)  # (stable: start order, then end order)
            if min(map(starts.__getitem__, kids)) < starts[parent] or (
                max(map(ends.__getitem__, kids)) > ends[parent]
            ):
                raise _Bail  # span-outside-parent
        self.starts, self.ends = starts, ends
        walked = self.walk(root, children)
        if walked != n:
            raise _Bail  # a parent cycle (spans no root reaches)
        return self.assemble(
            trace_id, spans[root].name, n, starts[root], ends[root], show_all, drill
        )

    def assemble(
        self,
        trace_id: str,
        root_name: str,
        n: int,
        start_ns: int,
        end_ns: int,
        show_all: bool,
        drill: str | None,
    ) -> AggregateResult:
        """The result ``aggregate`` makes of the synthesized run (``Run.source``, ``Run.flags``,
        the run row, the one boundary range and its strip)."""
        from agentbisect.boundary.index import CommitRangeIndex, RunLabel
        from agentbisect.boundary.rollup import BoundaryAggregate, Tokens
        from agentbisect.boundary.strip import build_groups, build_strip
        from agentbisect.honesty import dedupe, flag
        from agentbisect.results import AggregateResult

        commits = len(self.commits)
        if not commits:
            raise _Bail  # no commit axis at all: the loader says so (full path)
        start_ms, end_ms = start_ns // 1_000_000, end_ns // 1_000_000
        index = CommitRangeIndex()
        root_label = RunLabel(
            runtimeStageId="__root__#0", subflowPath=["__root__"], depth=0, ts=start_ms
        )
        index.close(index.open(root_label, 0), commits)
        groups = build_groups(index)
        if drill is not None:  # (rare: the module it lives in is not imported otherwise)
            from agentbisect.aggregate import resolve_group_in

            drill = resolve_group_in(groups, False, drill)
        typed = self.typed
        dropped = typed - MAX_EVENTS if typed > MAX_EVENTS else 0
        n_llm = len(self.llm_rows)
        source: dict[str, Any] = {
            "file": self.file,
            "shape": SHAPE,
            "shapeName": SHAPE_NAME,
            "gzip": False,
            "bytes": self.size,
            "boundaries": "boundary-row",
            "mode": "full",
            "modeSource": "meta",
            "commitAxis": "present",
            "counts": {
                "domainEvents": typed + 2,  # (and run.entry, run.exit)
                "typedEvents": typed - dropped,
                "commits": commits,
                "ranges": 1,
                "aggregates": 0,
                "stepNodes": 1 + n_llm + self.tools + self.llm_to_user,
                "unknownTypes": 0,
                "malformed": 0,
            },
            "droppedEvents": dropped if dropped else "unknown",
            "boundaryRowId": ROW_ID,
        }
        flags = [flag("synthesized-commit-axis", AXIS_NOTE)]
        if self.uncaptured:
            flags.append(
                flag(
                    "content-not-captured",
                    f"{self.uncaptured} of {n_llm} LLM call(s) carry no message content; counts "
                    f"are exact but bisect ranks by structure only — {CAPTURE_HINT}",
                )
            )
        if self.by_content:
            flags.append(
                flag(
                    "matched-by-content",
                    f"{self.by_content} input source(s) were linked to the span that produced "
                    "them by identical content (the trace has no id for them)",
                )
            )
        if self.by_structure:
            flags.append(
                flag(
                    "matched-by-structure",
                    f"{self.by_structure} input source(s) were linked by position only (no id "
                    "and no content to match)",
                )
            )
        flags.append(flag("structure-absent", STRUCTURE_NOTE))
        if dropped:
            source["firstRetainedEventIndex"] = dropped
            source["complete"] = True
            flags.append(
                flag(
                    "events-dropped",
                    f"the event cap dropped {dropped} typed event(s); the stream starts at event "
                    f"{dropped} (boundary row unaffected)",
                )
            )
        # (the sums are the recorder's sequential float additions, as PathTotals makes them)
        tokens = Tokens(
            int(reduce(add, self.tokens_in, 0.0)), int(reduce(add, self.tokens_out, 0.0))
        )
        run_row = BoundaryAggregate(
            runtimeStageId="__root__#0",
            subflowId="__root__",
            subflowPath=["__root__"],
            label="Run",
            tokens=tokens,
            llmCalls=n_llm,
            toolCalls=self.tools,
            iterations=0,
            startedAtMs=start_ms,
            endedAtMs=end_ms,
            durationMs=end_ms - start_ms,
        )
        return AggregateResult(
            source=source,
            run_row=run_row,
            aggregates=[],
            hidden=[],
            ranges=index.all(),
            parents={},
            strip=build_strip(groups, drill),
            flags=dedupe(flags),
            llm_calls=self.llm_rows,
            localizable=set(self.commits),
            show_all=show_all,
            calls=self.calls,
            traces=[{"traceId": trace_id, "rootName": root_name, "spans": n}],
        )

    def walk(self, root: int, children: dict[int, list[int]]) -> int:
        """Pre/post-order over the tree (start order); returns the number of spans walked."""
        spans = self.spans
        role, vals = self.read(spans[root])
        if role not in ("agent", "chain", "other", "embedding"):
            raise _Bail  # a root that is itself a call
        stack: list[tuple[int, bool]] = [(c, True) for c in reversed(children.get(root, []))]
        index = 1
        steps: dict[int, tuple[str, str, list[Any], Any]] = {}
        while stack:
            node, entering = stack.pop()
            span = spans[node]
            if entering:
                role, vals = self.read(span)
                if role in ("agent", "chain"):
                    raise _Bail  # a subflow boundary: rollups of its own (full path)
                step = f"{self.label(role, vals, span)}#{index}"
                row: Any = None
                if role == "llm":
                    row = self.llm_start(step, index, vals, span)
                elif role == "tool":
                    row = self.tool_start(step, vals, span)
                steps[node] = (role, step, vals, row)
                index += 1
                stack.append((node, False))
                kids = children.get(node)
                if kids:
                    stack.extend((c, True) for c in reversed(kids))
            else:
                role, step, vals, row = steps.pop(node)
                if role == "llm":
                    self.llm_end(step, vals, span, node, row)
                elif role == "tool":
                    self.tool_end(step, vals, span, row)
                elif role == "retrieval":
                    self.pending.append((step, self.documents(vals, span)))
        self.flush_retrievals([])  # (at the root's end)
        return index

    def read(self, span: Any) -> tuple[str, list[Any]]:
        """The span's role (``conventions.read_span``) and its attribute values by slot."""
        from agentbisect.importers.otlp_typed import (
            GEN_AI_SYSTEM,
            OP,
            REQ_MODEL,
            SLOTS,
            TOOL_NAME,
        )

        vals: list[Any] = [None] * SLOTS
        for a in span.attributes:
            if a.slot < SLOTS:
                vals[a.slot] = a.value
        op = vals[OP]
        if op is not None:
            role = _ROLES.get(op.stringValue, "other")
        elif vals[GEN_AI_SYSTEM] is not None and vals[REQ_MODEL] is not None:
            role = "llm"
        elif vals[TOOL_NAME] is not None:
            role = "tool"
        else:
            role = "other"
        return role, vals

    def clean(self, name: str) -> str:
        found = self.cleaned.get(name)
        if found is None:
            found = self.cleaned[name] = _clean(name)
        return found

    def label(self, role: str, vals: list[Any], span: Any) -> str:
        """``synthesize.step_label``."""
        from agentbisect.importers.otlp_typed import DATA_SOURCE, OP

        if role == "llm":
            op = vals[OP]
            name = op.stringValue if op is not None else None
            return self.clean(name if name else span.name)
        if role == "tool":
            return f"execute_tool:{self.clean(self.tool_name(vals, span))}"
        if role == "retrieval":
            source = vals[DATA_SOURCE]
            source = source.stringValue if source is not None else None
            name = source if source else span.name.removeprefix("retrieval ")
            return (
                "retrieval"
                if name in ("retrieval", "retrieve")
                else f"retrieval:{self.clean(name)}"
            )
        return self.clean(span.name)

    # ------------------------------------------------------------- LLM calls

    def llm_start(
        self, step: str, index: int, vals: list[Any], span: Any
    ) -> tuple[LlmCallRow, dict[str, Any]]:
        """``_Builder._llm_start``: the call's rows, and its input split into sources."""
        from agentbisect.boundary.calls import LlmCallRow
        from agentbisect.importers.otlp_typed import INPUT, OUTPUT, REQ_MODEL, RESP_MODEL, SYSTEM

        model = vals[RESP_MODEL] or vals[REQ_MODEL]
        model_name = _str(model.stringValue) if model is not None else ""
        llm_row = LlmCallRow(index=len(self.llm_rows), step=step, model=model_name)
        row: dict[str, Any] = {
            "step": step,
            "type": "llm",
            "llmIndex": len(self.llm_rows),
            "model": model_name,
        }
        self.llm_rows.append(llm_row)
        self.calls.append(row)
        self.typed += 1  # llm.start
        self.reader_keys = set()
        system, inputs = vals[SYSTEM], vals[INPUT]
        if system is None and inputs is None and vals[OUTPUT] is None:
            self.flush_retrievals([])
            self.uncaptured += 1
            self.structural_reads()
            return llm_row, row
        self.sources(step, index, system, inputs)
        return llm_row, row

    def sources(self, step: str, index: int, system: Any, inputs: Any) -> None:
        """``_Builder._sources`` of a call with content."""
        msgs = self.input_messages(inputs.stringValue) if inputs is not None else []
        system_texts: list[tuple[str, tuple[int, str] | None]] = []
        if system is not None:
            texts, paragraphs = self.system(system.stringValue)
            system_texts = [(t, None) for t in texts]
        for i, m in enumerate(msgs):
            if m.role in ("system", "developer"):
                system_texts.append((m.text(), (i, m.role)))
        if system is not None and len(system_texts) == len(texts):
            parts = paragraphs  # (the common case: the memo's split)
        else:
            parts = tuple(p for text, _ in system_texts for p in self.paragraphs(text))
        if self.pending:
            lines = [
                ln
                for m in msgs
                if m.role not in ("system", "developer")
                for ln in m.text().splitlines()
            ]
            self.doc_parts |= self.flush_retrievals([*parts, *lines])
        for ordinal, part in enumerate(parts, start=1):
            if part not in self.doc_parts and part not in self.system_parts:
                self.new_system_part(part, ordinal, index)
        all_text = "\n".join(m.text() for m in msgs) if self.docs else ""
        for i, m in enumerate(msgs):
            role = m.role
            if role == "assistant":
                self.assistant_message(i, m, index)
            elif role == "tool":
                self.tool_message(i, m, index)
            elif role not in ("system", "developer"):
                self.plain(i, role, m.text(), index)
        if self.docs:
            keep = []
            for doc in self.docs:
                content = doc.content
                if content and content in all_text:
                    self.read_key(f"doc:{doc.id}", doc.by)
                    doc.consumed = True
                    keep.append(doc)
                elif not content and not doc.consumed:
                    self.read_key(f"doc:{doc.id}", "structure")
                    doc.consumed = True
                elif not doc.consumed:
                    keep.append(doc)
            self.docs = keep

    def input_messages(self, value: str) -> list[_Msg]:
        from agentbisect.importers.otlp_typed import MESSAGE, RAWS

        parsed = self.parsed
        out = []
        for raw in RAWS.decode(value):
            key = bytes(raw)
            m = parsed.get(key)
            if m is None:
                m = parsed[key] = _message(MESSAGE.decode(key))
            out.append(m)
        return out

    def system(self, value: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = self.system_memo.get(value)
        if found is None:
            texts = _system_parts(value)
            found = self.system_memo[value] = (
                texts,
                tuple(p for t in texts for p in self.paragraphs(t)),
            )
        return found

    def paragraphs(self, text: str) -> tuple[str, ...]:
        return _paragraphs(text)

    def read_key(self, key: str, by: str) -> None:
        """``_Builder._read`` for the keys whose reads can be counted (out:, tool:, doc:)."""
        keys = self.reader_keys
        if key not in keys:
            keys.add(key)
            if by == "content":
                self.by_content += 1
            elif by == "structure":
                self.by_structure += 1

    def new_system_part(self, text: str, ordinal: int, index: int) -> None:
        part_id = f"system-instructions.p{ordinal}"
        n = 1
        while part_id in self.part_ids:
            n += 1
            part_id = f"system-instructions.p{ordinal}.v{n}"
        self.part_ids.add(part_id)
        step = f"{part_id}#{index}"
        self.system_parts[text] = step
        self.commits.append(step)
        self.typed += 1  # context.injected

    def plain(self, i: int, role: str, text: str, index: int) -> None:
        key = (i, role, text)
        if key not in self.messages:
            self.messages.add(key)
            self.commits.append(f"message:{self.clean(role)}.{i}#{index}")

    def assistant_message(self, i: int, m: _Msg, index: int) -> None:
        by_id = self.llm_by_call_id
        for call_id in m.call_ids():
            llm = by_id.get(call_id)
            if llm is not None:
                self.read_key(f"out:{llm}", "id")
                return
        text = m.text().strip()
        if text:
            by_text = self.llm_by_text
            for step, outputs in self.ended_llms[self.llm_text_done :]:
                out = "\n".join(o.text() for o in outputs).strip()
                if out:
                    by_text[out] = step
            self.llm_text_done = len(self.ended_llms)
            llm = by_text.get(text)
            if llm is not None:
                self.read_key(f"out:{llm}", "content")
                return
        self.plain(i, "assistant", m.text(), index)

    def tool_message(self, i: int, m: _Msg, index: int) -> None:
        for k, (kind, pid, _, _) in enumerate(m.parts):
            if kind != "tool_result":
                continue
            tool = self.tool_by_id.get(pid) if pid else None
            if tool is not None:
                by = "content" if pid in self.adopted_ids else "id"
                self.read_key(self.tool_keys[tool], by)
                continue
            text = m.part_text(k)
            stripped = text.strip()
            if stripped:
                by_text = self.tool_by_text
                for result, step in self.tool_results[self.tool_text_done :]:
                    by_text[result.strip()] = step
                self.tool_text_done = len(self.tool_results)
                tool = by_text.get(stripped)
                if tool is not None:
                    self.read_key(self.tool_keys[tool], "content")
                    continue
            self.plain(i, "tool", text, index)

    def structural_reads(self) -> None:
        last = self.last_llm
        if last is not None:
            self.read_key(f"out:{last}", "structure")
            for tool in self.asked_tools.get(last, []):
                self.read_key(self.tool_keys[tool], "structure")
        for doc in self.docs:
            if not doc.consumed:
                self.read_key(f"doc:{doc.id}", "structure")
                doc.consumed = True
        self.docs = []

    def llm_end(
        self, step: str, vals: list[Any], span: Any, node: int, rows: tuple[Any, dict[str, Any]]
    ) -> None:
        """``_Builder._llm_end``, and the call's rows completed."""
        from agentbisect.importers.otlp_typed import FINISH, MESSAGES, OUTPUT, T_IN, T_OUT

        out = vals[OUTPUT]
        outputs = [_message(m) for m in MESSAGES.decode(out.stringValue)] if out else []
        calls = [p for m in outputs for p in m.parts if p[0] == "tool_call"]
        self.commits.append(step)
        self.last_llm = step
        if calls:
            self.tool_calls_by_step[step] = calls
        for _, pid, name, _ in calls:
            if pid:
                self.llm_by_call_id[pid] = step
            self.llm_by_tool_name[name] = step
        self.ended_llms.append((step, outputs))
        self.typed += 1  # llm.end
        t_in, t_out = vals[T_IN], vals[T_OUT]
        if t_in is None and t_out is None:
            raise _Bail  # no usage: a malformed-events flag and no token columns
        tokens_in = int(t_in.intValue) if t_in is not None else 0
        tokens_out = int(t_out.intValue) if t_out is not None else 0
        if not (0 <= tokens_in <= MAX_COUNT and 0 <= tokens_out <= MAX_COUNT):
            raise _Bail  # left out of the totals, with a flag
        self.tokens_in.append(tokens_in)
        self.tokens_out.append(tokens_out)
        finish = ""
        reasons = vals[FINISH]
        if reasons is not None:
            if reasons.arrayValue is not msgspec.UNSET:
                if reasons.stringValue is not msgspec.UNSET:
                    raise _Bail  # two kinds in one value
                values = reasons.arrayValue.values
                if values:
                    finish = _str(values[0].stringValue)
            elif reasons.stringValue is not msgspec.UNSET:
                finish = reasons.stringValue
            else:
                raise _Bail  # an empty value
        stop = (
            "error"
            if _status_error(span.status)
            else (finish or ("tool_calls" if calls else "stop"))
        )
        if not calls:
            self.llm_to_user += 1
        llm_row, row = rows
        llm_row.tokensIn = tokens_in
        llm_row.tokensOut = tokens_out
        llm_row.latencyMs = self.ends[node] // 1_000_000 - self.starts[node] // 1_000_000
        llm_row.stopReason = stop
        row["tokens"] = {"input": tokens_in, "output": tokens_out}
        if stop == "error":
            row["failed"] = True

    # ------------------------------------------------------------- tools and retrieval

    def tool_name(self, vals: list[Any], span: Any) -> str:
        from agentbisect.importers.otlp_typed import TOOL_NAME

        name = vals[TOOL_NAME]
        text = _str(name.stringValue) if name is not None else ""
        if not text:
            text = span.name.removeprefix("execute_tool").strip() or span.name
        return text

    def tool_start(self, step: str, vals: list[Any], span: Any) -> dict[str, Any]:
        name = self.tool_name(vals, span)
        self.typed += 1  # tool.start
        self.tools += 1
        row = {"step": step, "type": "tool", "toolName": name}
        self.calls.append(row)
        if self.llm_rows:  # (call_rows: the LLM call started last asked for it)
            self.llm_rows[-1].tools.append(name)
        return row

    def tool_end(self, step: str, vals: list[Any], span: Any, row: dict[str, Any]) -> None:
        """``_Builder._tool_end``."""
        from agentbisect.importers.otlp_typed import CALL_ID, RESULT

        name = self.tool_name(vals, span)
        cid = vals[CALL_ID]
        call_id = _str(cid.stringValue) if cid is not None else ""
        res = vals[RESULT]
        result: str | None = None
        if res is not None and res.stringValue != REDACTED:
            result, found_id = _tool_result(res.stringValue)
            call_id = call_id or found_id
        # _Builder._asker
        if call_id and call_id in self.llm_by_call_id:
            asked: str | None = self.llm_by_call_id[call_id]
            by = "id"
        elif name in self.llm_by_tool_name:
            asked, by = self.llm_by_tool_name[name], "content"
        else:
            asked, by = self.last_llm, "structure"
        if not call_id and asked is not None:
            for _, pid, pname, _ in self.tool_calls_by_step.get(asked, []):
                if pname == name and pid and pid not in self.tool_by_id:
                    call_id = pid
                    self.adopted_ids.add(pid)
                    break
        key = f"tool:{call_id or step}"
        if asked is not None:
            self.reader_keys = set()
            self.read_key(f"out:{asked}", by)
            self.asked_tools.setdefault(asked, []).append(step)
        self.commits.append(step)
        self.tool_keys[step] = key
        if call_id:
            self.tool_by_id.setdefault(call_id, step)
        if result:
            self.tool_results.append((result, step))
        self.typed += 1  # tool.end
        if _status_error(span.status):
            row["failed"] = True

    def documents(self, vals: list[Any], span: Any) -> list[tuple[str, str | None]]:
        """``conventions._retrieval``'s documents (id, content) of the GenAI form."""
        from agentbisect.importers.otlp_typed import DOCUMENTS

        value = vals[DOCUMENTS]
        if value is None:
            return []
        docs = msgspec.json.decode(value.stringValue)
        out: list[tuple[str, str | None]] = []
        for i, d in enumerate(docs if isinstance(docs, list) else []):
            if not isinstance(d, dict):
                continue
            content = d.get("content", d.get("text"))
            out.append(
                (
                    _str(d.get("id")) or f"{span.spanId}.doc{i}",
                    content if isinstance(content, str) else None,
                )
            )
        return out

    def flush_retrievals(self, inputs: list[str]) -> set[str]:
        """``_Builder._flush_retrievals``: commit the pending retrievals; the input parts that
        turned out to be documents."""
        owned: set[str] = set()
        pending, self.pending = self.pending, []
        for step, docs in pending:
            for doc_id, content in docs:
                by = "content"
                if content is None:
                    for part in inputs:
                        if doc_id in part:
                            content, by = part, "id"
                            owned.add(part)
                            break
                elif len(content) >= MIN_DOC_CHARS:
                    owned.update(part for part in inputs if content in part)
                if content is not None:
                    owned.add(content)
                self.docs.append(_Doc(doc_id, content, step, by))
                self.typed += 1  # context.injected
            self.commits.append(step)
        return owned
