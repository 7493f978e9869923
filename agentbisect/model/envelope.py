"""The agentfootprint.recording.v1 envelope (shape A, recording.md §1.9) and the facts it states.

Used by the recording API (``record_run``) and by re-projection (``afp record``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from agentbisect.core.errors import UsageError
from agentbisect.core.version import __version__
from agentbisect.schema.recording import ENVELOPE_FORMAT

CONSUMER_RUN_ID = "consumer-scope"

# The package's own constant, not importlib.metadata (which scans every installed distribution:
# ~15 ms on each afp start); tests/test_startup.py checks the two agree.
AGENTBISECT_VERSION = __version__


def typed_run_ids(events: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for e in events:
        meta = e.get("meta") if isinstance(e, Mapping) else None
        rid = meta.get("runId") if isinstance(meta, Mapping) else None
        if isinstance(rid, str) and rid and rid != CONSUMER_RUN_ID:
            seen.setdefault(rid)
    return list(seen)


def stream_complete(domain_events: Sequence[Mapping[str, Any]]) -> bool:
    """True when the last ``run.entry`` is followed by a ``run.exit``."""
    # Only the last entry or exit decides: read from the end (long runs have 100,000s of events).
    for e in reversed(domain_events):
        t = e.get("type")
        if t == "run.exit":
            return True
        if t == "run.entry":
            return False
    return False


def iso_ms(ms: int | float) -> str:
    """Epoch milliseconds as JavaScript's ``toISOString`` writes them."""
    t = _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


def build_envelope(
    recording: Mapping[str, Any] | msgspec.Raw,
    *,
    domain_events: Sequence[Mapping[str, Any]],
    dropped_events: int,
    first_retained_event_index: int | None,
    run_id: str | None,
    complete: bool,
    session_id: str | None = None,
    principal: str | None = None,
    tenant: str | None = None,
    typed_events: list[Any] | None = None,
    started_at_ms: int | float | None = None,
    ended_at_ms: int | float | None = None,
) -> dict[str, Any]:
    """Shape A (recording.md §1.9) with the producer's refusals applied.

    ``run.runId`` is the typed-event ``meta.runId`` (never the snapshot's engine id); more than
    one distinct id is refused unless the caller states one. ``startedAt`` is left out when
    events were dropped (the first retained event is not the start); ``endedAt`` is only written
    for a complete run. Optional keys are absent, never null.
    """
    if not isinstance(complete, bool):
        raise UsageError("an envelope needs an explicit complete: true or false")
    if isinstance(recording, Mapping):
        events = typed_events if typed_events is not None else list(recording.get("events") or [])
    else:
        events = typed_events or []
    if run_id is None:
        ids = typed_run_ids(events)
        if len(ids) > 1:
            raise UsageError(
                "the typed events carry more than one run id ("
                + ", ".join(ids[:4])
                + "); state the run id to build an envelope"
            )
        run_id = ids[0] if ids else "unknown"
    if started_at_ms is None or ended_at_ms is None:
        starts = [e.get("ts") for e in domain_events if e.get("type") == "run.entry"]
        ends = [e.get("ts") for e in domain_events if e.get("type") == "run.exit"]
        if started_at_ms is None and starts and _is_ms(starts[-1]):
            started_at_ms = starts[-1]
        if ended_at_ms is None and ends and _is_ms(ends[-1]):
            ended_at_ms = ends[-1]
    run: dict[str, Any] = {"runId": run_id}
    if session_id is not None:
        run["sessionId"] = session_id
    if principal is not None:
        run["principal"] = principal
    if tenant is not None:
        run["tenant"] = tenant
    if dropped_events == 0 and started_at_ms is not None:
        run["startedAt"] = iso_ms(started_at_ms)
    if complete and ended_at_ms is not None:
        run["endedAt"] = iso_ms(ended_at_ms)
    run["complete"] = complete
    run["droppedEvents"] = dropped_events
    if first_retained_event_index is not None:
        run["firstRetainedEventIndex"] = first_retained_event_index
    return {
        "format": ENVELOPE_FORMAT,
        "producer": {
            # Not produced by agentfootprint/footprintjs: their versions are honestly unknown.
            "agentfootprintVersion": "unknown",
            "footprintjsVersion": "unknown",
            "agentbisectVersion": AGENTBISECT_VERSION,
        },
        "run": run,
        "privacy": {"mode": "full", "policyId": "agentfootprint.privacy.full.v1"},
        "recording": recording,
    }


def _is_ms(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value < 253402300800000  # year 9999
    )
