"""The domain events are decoded when first read: a bisect never decodes them, and every command
that does read them sees the same events and the same flags, in the same order, as when they
were decoded at load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentbisect.bisect.api import BisectOptions, bisect_run
from agentbisect.importers import load_bytes
from agentbisect.model.run import Run
from tests.helpers import RECORDINGS, recording


def _degraded() -> dict[str, bytes]:
    """Recordings whose loading raises warnings from every part: row, typed events, import."""
    rec = json.loads(Path(recording("planted-fact")).read_text())
    row = rec["snapshot"]["recorders"][0]["data"]
    bad_row = [None, *row[:5], 7, {"type": "newer.kind", "x": 1}, {"type": "llm.end", "usage": 5}]
    bad_row += row[5:]
    out: dict[str, bytes] = {}
    a = json.loads(json.dumps(rec))
    a["snapshot"]["recorders"][0]["data"] = bad_row
    a["events"] = [None, *rec["events"], {"type": 5}]
    a["import"] = {"flags": 3}  # unreadable: warned when first read
    out["row+typed+import"] = json.dumps(a).encode()
    b = json.loads(json.dumps(a))
    # the row without its typed half: the events are completed from the typed stream
    b["snapshot"]["recorders"][0]["data"] = [
        e
        for e in bad_row
        if not isinstance(e, dict) or e.get("type", "").startswith(("run", "sub"))
    ]
    out["flow-half-only"] = json.dumps(b).encode()
    c = {"version": 1, "redaction": "pii", "events": bad_row}  # a trace: redaction warned after
    out["trace"] = json.dumps(c).encode()
    for name in RECORDINGS:
        out[name] = Path(recording(name)).read_bytes()
    return out


CASES = _degraded()


def _eager(data: bytes) -> Run:
    loaded = load_bytes(data, "x.json")
    loaded.domain  # noqa: B018 - decoded at load, as before
    return Run(loaded)


def _summary(run: Run) -> Any:
    flags = [(f.flag, f.note) for f in run.flags]
    return flags, [e.type for e in run.events], run.source()


# Orders in which the commands first read a run's parts (the flags' order may depend on it).
ORDERS: dict[str, list[str]] = {
    "flags first": [],
    "bisect": ["llm_call_ids", "import_summary"],
    "import key first": ["import_summary"],
    "events first": ["events"],
}


def _read(run: Run, order: list[str]) -> Any:
    for attr in order:
        getattr(run, attr)
    return _summary(run)


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_lazy_and_eager_decoding_read_the_same(name: str, order: str) -> None:
    data = CASES[name]
    want = _read(_eager(data), ORDERS[order])
    assert _read(Run(load_bytes(data, "x.json")), ORDERS[order]) == want


def test_degraded_cases_do_raise_the_warnings_they_are_meant_to() -> None:
    flags = {f.flag for f in _eager(CASES["row+typed+import"]).flags}
    assert {"null-holes", "non-object-events", "unknown-event-types", "malformed-events"} <= flags
    assert {"malformed-typed-events", "import-unreadable"} <= flags
    assert "typed-half-rebuilt" in {f.flag for f in _eager(CASES["flow-half-only"]).flags}
    assert "redacted" in {f.flag for f in _eager(CASES["trace"]).flags}


def test_an_upstream_bisect_never_decodes_the_domain_events() -> None:
    run = Run(load_bytes(Path(recording("react-tools")).read_bytes(), "rt.json"))
    assert run.loaded.domain_pending
    result = bisect_run(run, BisectOptions(at_step="call-llm#106", upstream=True))
    assert result.report.suspects
    assert run.loaded.domain_pending  # still not decoded


def test_a_domain_array_that_cannot_be_read_fails_every_time_it_is_asked_for() -> None:
    from agentbisect.core.errors import InputError

    loaded = load_bytes(Path(recording("react-tools")).read_bytes(), "rt.json")
    loaded.defer_domain(b"[1, ", "$.x", "boundary-row")  # not JSON: the load never does this
    for _ in range(2):
        with pytest.raises(InputError):
            loaded.domain  # noqa: B018
    assert loaded.domain_pending
