"""``scan_file``: one file into its rows — the function every engine runs (a local worker
process, a Ray task), so the tables are the same whichever ran it.

A file is read once (``core.inputbytes.read_input``: the size cap, gzip, UTF-8), hashed, and
handed to the importers' front door; counts and tokens come from ``analyses.aggregate``, the
suspects (``BISECT``) from ``bisect.api.bisect_run`` with its default trigger. A file holding
several traces gives one run per trace, each read as ``TRACE_ID`` reads it. Whatever goes wrong
with a file or one of its runs becomes a row with its one-line error: a scan never stops at a
bad file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any

from msgspec import UNSET, Struct, field

from agentbisect.core.errors import AgentbisectError
from agentbisect.core.files import kind_of
from agentbisect.core.inputbytes import read_input

FINAL_ANSWER_CHARS = 500  # the final answer is kept this long (a table, not an archive)
EVIDENCE_CHARS = 500  # likewise each suspect's text
TOP_SUSPECTS = 5  # suspects kept per run with BISECT
# Formats whose times are not clock times (a transcript's are message positions): no start
# time and no duration in the runs table, rather than a run started in January 1970.
UNTIMED_SHAPES = frozenset({"transcript"})


class FileTask(Struct, frozen=True):
    """What a worker is asked: the file, and the hash it had when its size or time changed
    (equal content: its rows are reused, nothing is parsed)."""

    path: str
    known_sha256: str | None = None
    bisect: bool = False
    embedder: str | None = None


class FileOutcome(Struct):
    """One file's rows (dicts keyed by ``tables``' column names), or ``reused`` when the file
    was read and hashed but its content was what the manifest holds."""

    path: str
    size: int = 0
    mtime_ns: int = 0
    sha256: str | None = None
    reused: bool = False
    runs: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    suspects: list[dict[str, Any]] = field(default_factory=list)


def scan_file(task: FileTask) -> FileOutcome:
    """The rows of one file; never raises for anything the file holds."""
    out = FileOutcome(task.path)
    try:
        st = os.stat(task.path)
    except OSError:
        st = None  # read_input says why (no such file, permission denied) in afp's words
    if st is not None:
        out.size, out.mtime_ns = st.st_size, st.st_mtime_ns
        if not stat.S_ISREG(st.st_mode):  # never opened: a FIFO would block, a device is endless
            return _failed(out, f"{task.path}: is {kind_of(st.st_mode)}, not a regular file")
    try:
        name, data, compressed = read_input(task.path)
    except AgentbisectError as exc:
        return _failed(out, exc.message)
    out.sha256 = hashlib.sha256(data).hexdigest()
    if task.known_sha256 is not None and task.known_sha256 == out.sha256:
        out.reused = True
        return out
    try:
        _read_runs(task, name, data, compressed, out)
    except AgentbisectError as exc:
        return _failed(out, exc.message)
    except (MemoryError, RecursionError, Exception) as exc:  # a bug on one file: still a row
        return _failed(out, f"{task.path}: internal error: {type(exc).__name__}: {exc}")
    return out


def scan_batch(tasks: list[FileTask]) -> list[FileOutcome]:
    """``scan_file`` over a few files: the unit an engine sends to a worker (one message, one
    Ray task, for several small files)."""
    return [scan_file(t) for t in tasks]


def _failed(out: FileOutcome, message: str, run_id: str | None = None) -> FileOutcome:
    out.runs.append(error_row(out.path, message, run_id))
    return out


def error_row(path: str, message: str, run_id: str | None = None) -> dict[str, Any]:
    """The runs row of a file (or one run of it) that could not be read."""
    return {
        "path": path,
        "run_id": run_id,
        "models": [],
        "tools": [],
        "flags": [],
        "error": message.splitlines()[0] if message else "unreadable",
    }


def _read_runs(task: FileTask, name: str, data: bytes, compressed: bool, out: FileOutcome) -> None:
    from agentbisect.importers import ImportOptions, load_bytes
    from agentbisect.model.run import Run

    run = Run(load_bytes(data, name, compressed=compressed))
    meta = run.import_summary
    traces = [t.traceId for t in meta.traces] if meta is not None else []
    if len(traces) <= 1:
        _add_run(task, run, out)
        return
    del run  # several traces: each is read as TRACE_ID reads it (no multiple-runs flag)
    for trace_id in traces:
        try:
            one = Run(
                load_bytes(
                    data, name, compressed=compressed, options=ImportOptions(trace_id=trace_id)
                )
            )
            _add_run(task, one, out)
        except AgentbisectError as exc:
            _failed(out, exc.message, trace_id)


def _add_run(task: FileTask, run: Any, out: FileOutcome) -> None:
    from agentbisect.analyses.aggregate import aggregate

    result = aggregate(run, overview=False)
    meta = run.import_summary
    run_id: str | None
    if meta is not None:
        run_id = meta.traceId if meta.traceId is not UNSET else None
        if run_id is None and len(meta.traces) == 1:
            run_id = meta.traces[0].traceId
    else:
        ids = run.run_ids
        run_id = ids[0] if ids else None
    row = result.run_row
    shape = result.source["shape"]
    timed = shape not in UNTIMED_SHAPES
    calls = result.llm_calls
    models = list(dict.fromkeys(c.model for c in calls if c.model))
    tools = list(dict.fromkeys(t for c in calls for t in c.tools if t))
    answer = run.final_answer
    run_row: dict[str, Any] = {
        "path": out.path,
        "run_id": run_id,
        "shape": shape,
        "llm_calls": row.llmCalls,
        "tool_calls": row.toolCalls,
        "input_tokens": _count(row.tokens.input),
        "output_tokens": _count(row.tokens.output),
        "duration_ms": _number(row.durationMs) if timed else None,
        "started_at": _epoch_ms(row.startedAtMs) if timed else None,
        "models": models,
        "tools": tools,
        "flags": list(dict.fromkeys(f.flag for f in result.flags)),
        "final_answer": _cut(answer, FINAL_ANSWER_CHARS) if answer is not None else None,
        "error": None,
        "bisect_error": None,
    }
    out.runs.append(run_row)
    out.calls.extend(
        {
            "path": out.path,
            "run_id": run_id,
            "llm_index": c.index,
            "step_id": c.step,
            "model": c.model or None,
            "input_tokens": _count(c.tokensIn),
            "output_tokens": _count(c.tokensOut),
            "duration_ms": _number(c.latencyMs) if timed else None,
            "tool_calls_requested": len(c.tools),
        }
        for c in calls
    )
    del result
    if task.bisect:
        try:
            out.suspects.extend(_suspects(task, run, out.path, run_id))
        except AgentbisectError as exc:
            run_row["bisect_error"] = exc.message.splitlines()[0]


def _suspects(task: FileTask, run: Any, path: str, run_id: str | None) -> list[dict[str, Any]]:
    """The top suspects of the run's default trigger (its last LLM call): ranked by afp
    bisect's correlational evidence, never a causal verdict (no reruns in a scan)."""
    from agentbisect.bisect.api import BisectOptions, bisect_run

    report = bisect_run(run, BisectOptions(embedder=task.embedder), overview=False).report
    rows = []
    for rank, s in enumerate(report.suspects[:TOP_SUSPECTS], start=1):
        detail: Any = s.detail
        tool = getattr(detail, "toolName", UNSET) if detail is not UNSET else UNSET
        ev: Any = s.evidence
        text = ev.text if ev is not UNSET else getattr(detail, "text", UNSET)
        rows.append(
            {
                "path": path,
                "run_id": run_id,
                "trigger": report.step,
                "rank": rank,
                "source_kind": s.sourceKind if s.sourceKind is not UNSET else None,
                "identity": s.source,
                "tool": tool if isinstance(tool, str) else None,
                "evidence": _cut(text, EVIDENCE_CHARS) if isinstance(text, str) else None,
                "score": _number(s.score),
                "evidence_score": _number(ev.score) if ev is not UNSET else None,
            }
        )
    return rows


def _count(value: Any) -> int | None:
    """A count or token total as int64 (a recorded float like 12.0 is 12; unknown is null)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    if isinstance(value, float) and not value.is_integer():
        return round(value)
    return int(value)


def _epoch_ms(value: Any) -> int | None:
    """A start time in ms since the epoch, or null when it cannot be one (a timestamp column
    holds years 1970 to 9999)."""
    ms = _count(value)
    return ms if ms is not None and 0 < ms < 253_402_300_800_000 else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return float(value)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
