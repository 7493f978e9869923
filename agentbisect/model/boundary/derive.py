"""Rebuild the typed half of the domain-event stream from a recording's typed events
(recording.md §5.5 cases 2 and 3).

A boundary recorder that was attached but not subscribed leaves a row with only flow-side events;
a recording without any row has only the typed stream. In both cases the LLM/tool/injection/
composition events are rebuilt through the recorder's own typed ingestion (§2.4, arrows per §2.7)
and carry **no** commit position: the real position is unknown, and stamping the final commit
count (as the lens viewer does) would fabricate one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from agentbisect.model.boundary.recorder import BoundaryRecorder
from agentbisect.schema.recording import (
    T_COMPOSITION_ENTER,
    T_COMPOSITION_EXIT,
    T_CONTEXT_INJECTED,
    T_LLM_END,
    T_LLM_START,
    T_TOOL_END,
    T_TOOL_START,
    TypedEvent,
)

# The seven typed types that feed domain events (recording.md §1.6); everything else is skipped
# before any payload is decoded.
FEEDING_TYPES = frozenset(
    {
        T_LLM_START,
        T_LLM_END,
        T_TOOL_START,
        T_TOOL_END,
        T_CONTEXT_INJECTED,
        T_COMPOSITION_ENTER,
        T_COMPOSITION_EXIT,
    }
)


def typed_half(typed: list[TypedEvent]) -> list[bytes]:
    """Domain events (as compact JSON) derived from the typed stream, unpositioned."""
    rec = BoundaryRecorder(id="derived")
    out: list[bytes] = []
    for ev in typed:
        if ev.type not in FEEDING_TYPES:
            continue
        item: dict[str, Any] = {
            "type": ev.type,
            "payload": {} if ev.payload is msgspec.UNSET else msgspec.json.decode(ev.payload),
            "meta": {} if ev.meta is msgspec.UNSET else msgspec.structs.asdict(ev.meta),
        }
        item["meta"] = {k: v for k, v in item["meta"].items() if v is not msgspec.UNSET}
        dom = rec.ingest(item)
        if dom is None:
            continue
        dom.pop("commitIdxBefore", None)
        dom.pop("commitIdxAfter", None)
        out.append(msgspec.json.encode(dom))
    return out


def merge_by_ts(flow: list[msgspec.Raw], flow_ts: list[Any], typed: list[bytes]) -> list[bytes]:
    """Stable merge by ``ts``: at equal times the flow half comes first (§5.5 case 2)."""
    keyed: list[tuple[float, int, int, bytes]] = []
    for i, (raw, ts) in enumerate(zip(flow, flow_ts, strict=True)):
        keyed.append((_num(ts), 0, i, bytes(raw)))
    for i, item in enumerate(typed):
        ts = msgspec.json.decode(item, type=_Ts).ts
        keyed.append((_num(ts), 1, i, item))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    return [k[3] for k in keyed]


class _Ts(msgspec.Struct):
    ts: Any = None


def _num(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return float("-inf")  # no clock: keep it ahead, in array order
