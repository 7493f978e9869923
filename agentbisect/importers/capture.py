"""The capture importer: JSON Lines of engine callbacks, typed events and commits (``afp record``).

Each line holds exactly one of ``flow``, ``typed``, ``commit``, ``snapshot`` (after an optional
``{"afp": "capture"}`` header); the lines are replayed through the recorder port
(``boundary.recorder``) into the recording the engine would have frozen. The format is described
in ``afp record``'s help.
"""

from __future__ import annotations

import re
import time
from typing import Any

import msgspec
from msgspec import UNSET

from agentbisect.core.errors import InputError
from agentbisect.core.honesty import HonestyFlag, flag
from agentbisect.core.js import is_num
from agentbisect.importers import toplevel
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail, recorded

NAME = "capture"
LABEL = "capture (JSON Lines)"

_CAPTURE_KINDS = ("afp", "flow", "typed", "commit", "snapshot")
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_SNIFF_KEYS = ("afp", "flow", "typed", "commit")
# What bytes.strip() leaves inside a line (splitlines already cut at \n and \r); searched in
# place, where strip() would copy a one-line recording.
_NOT_BLANK = re.compile(rb"[^ \t\x0b\x0c]")


def sniff(data: bytes) -> bool:
    """A capture's first line is a JSON object with a capture key (never a recording key)."""
    bounds = _first_line(data)
    if bounds is None:
        return False
    start, end = bounds
    if toplevel.spans_all(data, start, end):
        # The whole input is that one line (a recording is): its decode is shared with the
        # other sniffs and the recording importer instead of copying and decoding it here.
        parsed = toplevel.parse(data)
        return parsed.is_object and any(parsed.member(k) is not UNSET for k in _SNIFF_KEYS)
    try:
        first = _RAW_DICT.decode(data[start:end])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        # A deep first line (a long run's execution tree) is no capture line; sniff never
        # raises, or no recording that nests past Python's recursion limit could be read.
        return False
    return any(k in first for k in _SNIFF_KEYS)


def _first_line(data: bytes) -> tuple[int, int] | None:
    """Where the first non-blank line is, as ``data.splitlines()`` cuts it, without that list
    or a copy (every input is sniffed here first: both copied whole recordings and traces)."""
    start, size = 0, len(data)
    while start < size:
        nl = data.find(b"\n", start)
        cr = data.find(b"\r", start, nl if nl >= 0 else size)
        end = cr if cr >= 0 else (nl if nl >= 0 else size)
        if _NOT_BLANK.search(data, start, end):
            return start, end
        start = end + (2 if data[end : end + 2] == b"\r\n" else 1)
    return None


def _bad(name: str, line_no: int, what: str) -> Exception:
    return InputError(name, what, f"line {line_no}")


def convert(
    name: str,
    data: bytes,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Conversion:
    """Replay a JSON Lines capture through the recorder (format: see ``afp record``'s help)."""
    # Every input is sniffed here first; only a capture pays for the recorder (~1.5 ms).
    from agentbisect.model.boundary.recorder import BoundaryRecorder
    from agentbisect.model.record import RunRecording

    lines: list[tuple[int, dict[str, Any]]] = []
    for n, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = msgspec.json.decode(raw)
        except msgspec.DecodeError as exc:
            raise _bad(name, n, f"not valid JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise _bad(name, n, "expected a JSON object per line")
        if sum(k in obj for k in _CAPTURE_KINDS) != 1:
            raise _bad(
                name, n, "expected exactly one of the keys flow, typed, commit, snapshot, afp"
            )
        lines.append((n, obj))
    header: dict[str, Any] = {}
    if lines and "afp" in lines[0][1]:
        header = lines.pop(0)[1]
        if header.get("afp") != "capture":
            raise _bad(name, 1, 'expected a header {"afp": "capture", ...}')
        if header.get("version", 1) != 1:
            raise _bad(name, 1, f"unknown capture version {header.get('version')!r}; afp reads 1")
    tracked = any("commits" in o or "commit" in o for _, o in lines)
    state: dict[str, Any] = {"count": 0, "ts": None}
    no_ts = 0

    def clock() -> int | float:
        nonlocal no_ts
        if state["ts"] is None:
            no_ts += 1
            return int(time.time() * 1000)
        return state["ts"]

    rec = RunRecording(
        structure=header.get("structure", UNSET),
        max_events=max_events,
        detail=detail,
        keep_embeddings=keep_embeddings,
        commit_count=(lambda: state["count"]) if tracked else None,
        recorder_id=header.get("recorderId") if isinstance(header.get("recorderId"), str) else None,
        clock=clock,
    )
    snapshot_base: dict[str, Any] = {}
    for n, obj in lines:
        if "commits" in obj:
            if not is_num(obj["commits"]):
                raise _bad(name, n, "expected commits to be a number (the commit count)")
            state["count"] = obj["commits"]
        if "afp" in obj:
            raise _bad(name, n, "the header line may only be the first line")
        if "commit" in obj:
            if not isinstance(obj["commit"], dict):
                raise _bad(name, n, "expected commit to be an object (a commit bundle)")
            rec.commit(obj["commit"])
            state["count"] = len(rec.commit_log)
        elif "snapshot" in obj:
            if not isinstance(obj["snapshot"], dict):
                raise _bad(name, n, "expected snapshot to be an object")
            snapshot_base = obj["snapshot"]
        elif "typed" in obj:
            typed = obj["typed"]
            if not isinstance(typed, dict) or not isinstance(typed.get("type"), str):
                raise _bad(name, n, "expected typed to be an event object with a string type")
            rec.emit(typed)
        else:
            flow = obj["flow"]
            if flow not in BoundaryRecorder.FLOW_CALLBACKS:
                raise _bad(
                    name,
                    n,
                    "expected flow to be one of " + ", ".join(BoundaryRecorder.FLOW_CALLBACKS),
                )
            event = obj.get("event", {})
            if not isinstance(event, dict):
                raise _bad(name, n, "expected event to be an object")
            ts = obj.get("ts")
            if ts is not None and not is_num(ts):
                raise _bad(name, n, "expected ts to be epoch milliseconds")
            state["ts"] = ts
            rec.on_flow(flow, event)
            state["ts"] = None
    rec.snapshot_base = snapshot_base
    notes: list[HonestyFlag] = []
    if no_ts:
        notes.append(
            flag(
                "ts-stamped-now",
                f"{no_ts} flow event(s) had no ts; stamped with the conversion time",
            )
        )
    if not tracked:
        notes.append(
            flag(
                "commit-axis-absent",
                "the capture has no commit counts: recorded without commit tracking (legacy); "
                "the boundary index is empty and this cannot be repaired",
            )
        )
    ids = rec.run_ids()
    use_env = rec.dropped_events > 0
    if use_env:
        if len(ids) > 1:
            notes.append(flag("multiple-runs", "typed events span runs " + ", ".join(ids)))
        doc: Any = rec.to_envelope(run_id=ids[-1] if ids else None)
    else:
        doc = rec.to_recording()
    return recorded(
        rec, doc, shape_in="capture (JSON Lines)", envelope=use_env, detail=detail, notes=notes
    )
