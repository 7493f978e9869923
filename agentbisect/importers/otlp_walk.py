"""The fast ``afp aggregate`` of an OTLP/JSON trace (``otlp_aggregate``): read the spans, walk
them as the synthesizer does, and assemble the result the full path would give.

Imported only once ``otlp_aggregate`` has seen an OTLP/JSON file. ``NOT_HANDLED`` are the
exceptions that mean "take the full path": ``Bail`` (something this path does not reproduce),
a value the typed decode refuses, a file that changed under us.
"""

from __future__ import annotations

import mmap
import re
from functools import reduce
from operator import add, itemgetter, lt
from typing import Any

import msgspec

from agentbisect.boundary.calls import LlmCallRow
from agentbisect.importers.otlp_result import (  # noqa: F401  (re-exported: tests hold them)
    AXIS_NOTE,
    MAX_EVENTS,
    ROW_ID,
    SHAPE,
    SHAPE_NAME,
    STRUCTURE_NOTE,
    Facts,
    NoCommits,
    assemble,
)
from agentbisect.importers.otlp_sources import Bail, Sources, clean, text_of, tool_result
from agentbisect.importers.otlp_typed import (
    ATTRIBUTES,
    CALL_ID,
    DATA_SOURCE,
    DOCUMENTS,
    EXPORT,
    FINISH,
    GEN_AI_SYSTEM,
    INPUT,
    OP,
    OUTPUT,
    REQ_MODEL,
    RESP_MODEL,
    RESULT,
    SLOTS,
    STR,
    SYSTEM,
    T_IN,
    T_OUT,
    TOOL_NAME,
)
from agentbisect.importers.texts import retrieved_documents
from agentbisect.results import AggregateResult

NOT_HANDLED = (Bail, NoCommits, msgspec.DecodeError, RecursionError)

MAX_NS = 2**63 - 1
MAX_COUNT = 2**53
_HEX = re.compile(r"[0-9a-f]*")
_BLANK = re.compile(rb"\s*")

_LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})
_ROLES = {
    **dict.fromkeys(_LLM_OPERATIONS, "llm"),
    "execute_tool": "tool",
    "invoke_agent": "agent",
    "create_agent": "agent",
    "retrieval": "retrieval",
    "retrieve": "retrieval",
    "embeddings": "embedding",
}


def aggregate(file: str, mm: mmap.mmap, show_all: bool, drill: str | None) -> AggregateResult:
    """The result of ``afp aggregate file`` (``mm``: the file, mapped)."""
    size, spans, trace_ids = _read(mm)
    return _Aggregate(file, size, spans, trace_ids).result(show_all, drill)


# ----------------------------------------------------------------- reading


def _read(mm: mmap.mmap) -> tuple[int, list[Any], set[str]]:
    """(file size, every span, trace ids) of the mapped file: one OTLP/JSON document, or JSON
    Lines of them (read as the full import reads them: the whole first, then line by line)."""
    size = len(mm)
    # The mapping is freed with the last view of it (long values are kept as views: Raw).
    view = memoryview(mm)
    decode = EXPORT.decode
    spans: list[Any] = []
    trace_ids: set[str] = set()
    try:
        _add(decode(view), spans, trace_ids)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError:  # not one document: JSON Lines of export requests?
        if mm.find(b"\r") >= 0:
            raise Bail from None  # (the full import then splits lines its own way)
        start = 0
        blank = _BLANK.fullmatch
        while start < size:
            end = mm.find(b"\n", start)
            if end < 0:
                end = size
            if end - start > 64 or blank(mm, start, end) is None:
                _add(decode(view[start:end]), spans, trace_ids)
            start = end + 1
    if not spans:
        raise Bail
    return size, spans, trace_ids


def _add(doc: Any, spans: list[Any], trace_ids: set[str]) -> None:
    """One export request's spans (their attributes are decoded when the walk reaches them)."""

    if doc.resourceLogs or not (doc.afp is doc.flow is doc.typed is doc.commit is msgspec.UNSET):
        raise Bail  # log records; or a capture's first line
    for rs in doc.resourceSpans:
        for ss in rs.scopeSpans:
            batch = ss.spans
            if any([s.events for s in batch]):
                raise Bail  # span events (the older conventions' content)
            if not {s.kind for s in batch} <= {1, 2, 3, 4, 5}:
                raise Bail  # unknown-span-kind
            trace_ids.update([s.traceId for s in batch])
            spans += batch


def _failed(status: Any) -> bool:
    """Span status ERROR (``otlp_json._status``)."""
    if status is None:
        return False
    code = status.code
    if isinstance(code, int):
        return bool(code == 2)
    return bool(code.upper().removeprefix("STATUS_CODE_") == "ERROR")


def _raw_slots() -> dict[int, str]:
    return {INPUT: "llm", OUTPUT: "llm", SYSTEM: "llm", RESULT: "tool", DOCUMENTS: "retrieval"}


_RAW_SLOTS = _raw_slots()  # a long value kept raw, and the role that reads (decodes) it


def _getter(layout: tuple[type, ...]) -> Any:
    """For one order of attribute classes: the values by slot (the last of a repeated key, as
    a dict keeps it; a missing slot reads the ``None`` appended after the attributes)."""

    where = [-1] * SLOTS
    for i, cls in enumerate(layout):
        where[cls.slot] = i  # type: ignore[attr-defined]
    # The roles that read every long value present (others must check them: ``read``).
    readers = {"llm", "tool", "retrieval", "agent", "chain", "embedding", "other"}
    for slot, reader in _RAW_SLOTS.items():
        if where[slot] >= 0:
            readers &= {reader}
    return itemgetter(*where), frozenset(readers)


# ----------------------------------------------------------------- the walk


class _Aggregate:
    """The synthesizer's walk over one trace, keeping only what the aggregate shows."""

    def __init__(self, file: str, size: int, records: list[Any], trace_ids: set[str]) -> None:

        self.file = file
        self.size = size
        self.records = records
        self.trace_ids = trace_ids
        self.sources = Sources()
        self.typed = 0  # typed events of calls (the sources count their own)
        self.llm_rows: list[Any] = []
        self.calls: list[dict[str, Any]] = []
        self.tokens_in: list[int] = []
        self.tokens_out: list[int] = []
        self.llm_to_user = 0  # llm.end events asking for no tool (step-graph nodes)
        self.tools = 0
        self.cleaned: dict[str, str] = {}
        self.layouts: dict[tuple[type, ...], Any] = {}

    def result(self, show_all: bool, drill: str | None) -> AggregateResult:

        records = self.records
        n = len(records)
        if len(self.trace_ids) != 1:
            raise Bail  # several traces: multiple-runs and a choice (full path)
        (trace_id,) = self.trace_ids
        sids = [s.spanId for s in records]
        pids = [s.parentSpanId for s in records]
        if len(trace_id) != 32 or set(map(len, sids)) != {16} or not set(map(len, pids)) <= {0, 16}:
            raise Bail
        # lowercase hex ids are what normalize_id leaves as they are
        if _HEX.fullmatch(trace_id + "".join(sids) + "".join(pids)) is None:
            raise Bail
        zero = "0" * 16
        if zero in pids:
            pids = ["" if p == zero else p for p in pids]
        index = dict(zip(sids, range(n), strict=True))
        if len(index) != n:
            raise Bail  # duplicate span ids
        if pids.count("") != 1:
            raise Bail  # several roots (orphans, or a synthesized run node)
        root = pids.index("")
        if not set(pids) - {""} <= index.keys():
            raise Bail  # a parent not in the trace
        try:  # (a time int() does not read: the full import reads it its own way, or flags it)
            starts = [int(s.startTimeUnixNano) for s in records]
            ends = [int(s.endTimeUnixNano) for s in records]
        except ValueError:
            raise Bail from None
        if min(starts) <= 0 or min(ends) <= 0 or max(starts) > MAX_NS or max(ends) > MAX_NS:
            raise Bail  # malformed-span-time
        if any(map(lt, ends, starts)):
            raise Bail  # a span ending before it starts
        root_sid = sids[root]
        children: dict[int, list[int]] = {}
        if n == 1:
            pass
        elif pids.count(root_sid) == n - 1:  # (the usual shape: every call under the root)
            children[root] = [*range(root), *range(root + 1, n)]
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
                raise Bail  # span-outside-parent
        self.starts, self.ends = starts, ends
        if self.walk(root, children) != n:
            raise Bail  # a parent cycle (spans no root reaches)
        name = records[root].name
        return self.assemble(trace_id, name, n, starts[root], ends[root], show_all, drill)

    def read(self, span: Any) -> tuple[str, Any]:
        """The span's role (``conventions.read_span``) and its attribute values by slot."""

        raw = span.attributes
        attrs = ATTRIBUTES.decode(raw) if raw is not msgspec.UNSET else []
        layout = tuple(map(type, attrs))
        found = self.layouts.get(layout)
        if found is None:
            found = self.layouts[layout] = _getter(layout)
        getter, readers = found
        attrs.append(None)
        vals = getter(attrs)
        op = vals[OP]
        if op is not None:
            role = _ROLES.get(op.value.stringValue, "other")
        elif vals[GEN_AI_SYSTEM] is not None and vals[REQ_MODEL] is not None:
            role = "llm"
        elif vals[TOOL_NAME] is not None:
            role = "tool"
        else:
            role = "other"
        if role not in readers:
            # A long value kept raw is checked to be a string where it is read; on a span
            # that does not read it, here (the full import flags any malformed value).
            for slot, reader in _RAW_SLOTS.items():
                if vals[slot] is not None and role != reader:
                    STR.decode(vals[slot].value.stringValue)
        return role, vals

    def walk(self, root: int, children: dict[int, list[int]]) -> int:
        """The spans in pre/post order (children in start order), as the synthesizer walks
        them; returns how many were walked."""

        spans = self.records
        if self.read(spans[root])[0] not in ("agent", "chain", "other", "embedding"):
            raise Bail  # a root that is itself a call
        src = self.sources
        llm_rows = self.llm_rows
        calls = self.calls
        clean = self.clean
        read = self.read
        open_rows: dict[int, Any] = {}
        # (an entered node is pushed as itself, its exit as ~node)
        stack = [*reversed(children.get(root, []))]
        index = 1
        while stack:
            node = stack.pop()
            if node >= 0:
                span = spans[node]
                role, vals = read(span)
                if role == "llm":
                    op = vals[OP]
                    label = op.value.stringValue if op is not None else ""
                    step = f"{clean(label or span.name)}#{index}"
                    # (``a.get(response) or a.get(request)``: an empty string falls through)
                    model = vals[RESP_MODEL]
                    model_name = model.value.stringValue if model is not None else ""
                    if not model_name:
                        model = vals[REQ_MODEL]
                        model_name = model.value.stringValue if model is not None else ""
                    if model_name == "__REDACTED__":
                        model_name = ""
                    k = len(llm_rows)
                    row = LlmCallRow(index=k, step=step, model=model_name)
                    call = {"step": step, "type": "llm", "llmIndex": k, "model": model_name}
                    llm_rows.append(row)
                    calls.append(call)
                    open_rows[node] = (step, row, call, vals)
                    system, inputs, outputs = vals[SYSTEM], vals[INPUT], vals[OUTPUT]
                    src.llm_start(
                        step,
                        index,
                        system.value if system is not None else None,
                        inputs.value if inputs is not None else None,
                        outputs is not None,
                    )
                elif role == "tool":
                    tool = self.tool_name(vals[TOOL_NAME], span.name)
                    step = f"execute_tool:{clean(tool)}#{index}"
                    call = {"step": step, "type": "tool", "toolName": tool}
                    calls.append(call)
                    if llm_rows:  # (call_rows: the LLM call started last asked for it)
                        llm_rows[-1].tools.append(tool)
                    self.tools += 1
                    open_rows[node] = (step, tool, call, vals)
                elif role == "retrieval":
                    source = vals[DATA_SOURCE]
                    label = source.value.stringValue if source is not None else ""
                    label = label or span.name.removeprefix("retrieval ")
                    if label not in ("retrieval", "retrieve"):
                        label = f"retrieval:{clean(label)}"
                    else:
                        label = "retrieval"
                    open_rows[node] = (f"{label}#{index}", None, None, vals)
                elif role in ("agent", "chain"):
                    raise Bail  # a subflow boundary: rollups of its own (full path)
                index += 1
                stack.append(~node)
                kids = children.get(node)
                if kids:
                    stack += reversed(kids)
                continue
            node = ~node
            opened = open_rows.pop(node, None)
            if opened is None:
                continue  # (a span that is no call)
            span = spans[node]
            step, info, call, vals = opened
            if call is None:  # a retrieval: committed when the next call starts
                src.pending.append((step, self.documents(vals, span.spanId)))
            elif call["type"] == "llm":
                status = span.status
                failed = status is not None and status.code != 0 and _failed(status)
                self.llm_end(step, vals, failed, node, info, call)
            else:
                cid = vals[CALL_ID]
                call_id = cid.value.stringValue if cid is not None else ""
                if call_id == "__REDACTED__":
                    call_id = ""
                res = vals[RESULT]
                result: str | None = None
                if res is not None:
                    text = STR.decode(res.value.stringValue)
                    if text != "__REDACTED__":
                        result, found = tool_result(text)
                        call_id = call_id or found
                src.tool_end(step, info, call_id, result)
                status = span.status
                if status is not None and status.code != 0 and _failed(status):
                    call["failed"] = True
        src.flush_retrievals([])  # (at the root's end)
        return index

    def clean(self, name: str) -> str:
        found = self.cleaned.get(name)
        if found is None:
            found = self.cleaned[name] = clean(name)
        return found

    @staticmethod
    def tool_name(value: Any, span_name: str) -> str:
        """``conventions._tool``'s name."""
        name = value.value.stringValue if value is not None else ""
        if name == "__REDACTED__":
            name = ""
        return name or span_name.removeprefix("execute_tool").strip() or span_name

    def llm_end(
        self, step: str, vals: list[Any], failed: bool, node: int, row: Any, call: dict[str, Any]
    ) -> None:

        out = vals[OUTPUT]
        asked = self.sources.llm_end(step, out.value if out is not None else None)
        t_in, t_out = vals[T_IN], vals[T_OUT]
        if t_in is None and t_out is None:
            raise Bail  # no usage: a malformed-events flag and no token columns
        try:  # (a count int() does not read: a malformed-attribute flag on the full path)
            tokens_in = int(t_in.value.intValue) if t_in is not None else 0
            tokens_out = int(t_out.value.intValue) if t_out is not None else 0
        except ValueError:
            raise Bail from None
        if not (0 <= tokens_in <= MAX_COUNT and 0 <= tokens_out <= MAX_COUNT):
            raise Bail  # left out of the totals, with a flag
        self.tokens_in.append(tokens_in)
        self.tokens_out.append(tokens_out)
        finish = ""
        reasons = vals[FINISH]
        if reasons is not None:
            reasons = reasons.value
            if reasons.arrayValue is not msgspec.UNSET:
                if reasons.stringValue is not msgspec.UNSET:
                    raise Bail  # two kinds in one value
                values = reasons.arrayValue.values
                if values:
                    finish = text_of(values[0].stringValue)
            elif reasons.stringValue is not msgspec.UNSET:
                finish = reasons.stringValue
            else:
                raise Bail  # an empty value
        stop = "error" if failed else (finish or ("tool_calls" if asked else "stop"))
        if not asked:
            self.llm_to_user += 1
        row.tokensIn = tokens_in
        row.tokensOut = tokens_out
        row.latencyMs = self.ends[node] // 1_000_000 - self.starts[node] // 1_000_000
        row.stopReason = stop
        call["tokens"] = {"input": tokens_in, "output": tokens_out}
        if stop == "error":
            call["failed"] = True

    @staticmethod
    def documents(vals: list[Any], span_id: str) -> list[tuple[str, str | None]]:
        """``conventions._retrieval``'s documents (id, content) in the GenAI form."""
        value = vals[DOCUMENTS]
        if value is None:
            return []
        return retrieved_documents(STR.decode(value.value.stringValue), span_id)

    # ------------------------------------------------------------- the result

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
        """The result ``aggregate`` makes of the synthesized run (``otlp_result``)."""
        src = self.sources
        facts = Facts(
            trace_id=trace_id,
            root_name=root_name,
            spans=n,
            start_ns=start_ns,
            end_ns=end_ns,
            llm_rows=self.llm_rows,
            calls=self.calls,
            tools=self.tools,
            llm_to_user=self.llm_to_user,
            commits=src.commits,
            source_events=src.typed,
            uncaptured=src.uncaptured,
            by_content=src.by_content,
            by_structure=src.by_structure,
            # (sums as PathTotals makes them: sequential float additions)
            tokens_in=int(reduce(add, self.tokens_in, 0.0)),
            tokens_out=int(reduce(add, self.tokens_out, 0.0)),
        )
        return assemble(self.file, self.size, facts, show_all, drill)
