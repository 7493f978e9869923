"""Rows from raw step facts (spec §7): ``GenuiTurnTelemetry`` and the out-of-loop recorder.

For importers (``afp record``, converters) that see a turn's steps and must produce the rows the
upstream loop would have stored: attempt/validity across steps, token and cost shares, latency.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import msgspec

from agentbisect.genui.classify import MAX_MESSAGE, classify_error, scrub_error
from agentbisect.schema.genui import RecordGenuiCallInput

T = TypeVar("T")
_JSON = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class GenuiToolMarker:
    """A tool's genui marker: its mode, and whether its telemetry samples payloads."""

    mode: str
    sample_payloads: bool = False


@dataclass(slots=True)
class GenuiFrameTimes:
    """When a tool call's first and final ``ui`` frames went out (ms, same clock as the turn)."""

    first: float | None = None
    complete: float | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    input: Any = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    id: str
    error: str | None = None
    output: Any = None


@dataclass(frozen=True, slots=True)
class StepUsage:
    input_tokens: int
    output_tokens: int


@dataclass(kw_only=True, slots=True)
class GenuiStepFacts:
    """What the loop knows about one step, to turn its UI calls into rows."""

    run_id: str
    thread_id: str
    actor_ref: str
    agent_name: str | None = None
    step: int
    channel: str
    model_id: str
    started_at: float | None = None  # absent → no latency (an engine that cannot tell)
    usage: StepUsage
    cost_usd: float | None
    cost_source: str | None = None
    text: str = ""
    calls: Sequence[ToolCall] = ()
    results: Sequence[ToolResult] = ()
    marker_of: Callable[[str], GenuiToolMarker | None] = lambda _name: None
    frames: Mapping[str, GenuiFrameTimes] = field(default_factory=dict)
    now: float = 0.0


def _json(value: Any) -> str:
    """``JSON.stringify`` of a call's input (compact, key order kept); ``null`` for None."""
    return _JSON.encode(value).decode("utf-8")


def _js_length(text: str) -> int:
    """``String.prototype.length``: UTF-16 code units, as the upstream weights are measured."""
    return len(text.encode("utf-16-le")) // 2


def _js_round(x: float) -> int:
    """``Math.round`` (half up) — Python's ``round`` would round half to even."""
    return math.floor(x + 0.5)


def _shares(facts: GenuiStepFacts) -> list[float]:
    """Each call's share of the step: characters of its arguments over all characters written."""
    weights = [_js_length(_json(call.input)) for call in facts.calls]
    total = sum(weights) + _js_length(facts.text)
    if total == 0:
        return [1 / len(weights)] * len(weights) if weights else []
    return [w / total for w in weights]


class GenuiTurnTelemetry:
    """Tracks one turn's UI attempts across steps (one instance per turn).

    A refused UI call followed by another is a retry, whichever UI tool the second one uses.
    """

    def __init__(self) -> None:
        self.refused_since_accepted = 0

    def rows(self, facts: GenuiStepFacts) -> list[RecordGenuiCallInput]:
        """The rows of one step's UI calls, in call order; advances the attempt counter."""
        results = {result.id: result for result in facts.results}
        shares = _shares(facts)
        out: list[RecordGenuiCallInput] = []
        for call, share in zip(facts.calls, shares, strict=True):
            marker = facts.marker_of(call.name)
            if marker is None:
                continue  # not a UI tool
            result = results.get(call.id)
            if result is None:
                continue  # no result, no row (spec §7.1)
            refused = result.error is not None
            attempt = self.refused_since_accepted + 1
            arguments = _json(call.input)
            error_category = error_message = None
            if result.error is not None:
                outcome, validity = "error", "failed"
                error_category = classify_error(result.error)
                error_message = (
                    result.error[:MAX_MESSAGE]
                    if marker.sample_payloads
                    else scrub_error(result.error)
                )
                self.refused_since_accepted += 1
            else:
                outcome = "ok"
                validity = "first_try" if attempt == 1 else "retried"
                self.refused_since_accepted = 0
            first_frame = complete_frame = None
            if facts.started_at is not None:
                times = facts.frames.get(call.id) or GenuiFrameTimes()
                first = times.first if times.first is not None else (None if refused else facts.now)
                if first is not None:
                    first_frame = first - facts.started_at
                if not refused:
                    done = times.complete if times.complete is not None else facts.now
                    complete_frame = done - facts.started_at
            out.append(
                RecordGenuiCallInput(
                    tool_call_id=call.id,
                    run_id=facts.run_id,
                    thread_id=facts.thread_id,
                    actor_ref=facts.actor_ref,
                    agent_name=facts.agent_name,
                    step=facts.step,
                    tool_name=call.name,
                    channel=facts.channel,
                    mode=marker.mode,
                    model_id=facts.model_id,
                    attempt=attempt,
                    outcome=outcome,  # type: ignore[arg-type]
                    validity=validity,  # type: ignore[arg-type]
                    error_category=error_category,
                    error_message=error_message,
                    input_tokens=_js_round(facts.usage.input_tokens * share),
                    output_tokens=_js_round(facts.usage.output_tokens * share),
                    cost_usd=None if facts.cost_usd is None else facts.cost_usd * share,
                    cost_source=facts.cost_source,
                    first_frame_ms=first_frame,
                    complete_frame_ms=complete_frame,
                    payload_bytes=len(arguments.encode("utf-8")),
                    payload=arguments if marker.sample_payloads else None,
                )
            )
        return out


class GenuiStore(Protocol):
    def record_genui_calls(self, rows: list[RecordGenuiCallInput]) -> Any: ...


@dataclass(kw_only=True, slots=True)
class GenuiOutOfLoopCall:
    """One UI call made outside the agent loop, for ``GenuiRunRecorder.track``."""

    store: GenuiStore
    marker: GenuiToolMarker | None  # not a UI tool (None) → nothing is recorded
    run_id: str
    thread_id: str
    actor_ref: str
    agent_name: str | None = None
    channel: str
    model_id: str
    call: ToolCall


class GenuiRunRecorder:
    """Telemetry for calls made outside the loop: attempts counted per run, ``max_runs`` kept.

    No step split (tokens 0, no cost), no frame timing, step 0. Recording is best-effort: it never
    changes what the call returns or raises.
    """

    def __init__(self, max_runs: int = 1000) -> None:
        self.max_runs = max_runs
        self._runs: OrderedDict[str, GenuiTurnTelemetry] = OrderedDict()

    def _turn(self, run_id: str) -> GenuiTurnTelemetry:
        turn = self._runs.pop(run_id, None) or GenuiTurnTelemetry()
        self._runs[run_id] = turn  # most recently used last
        while len(self._runs) > self.max_runs:
            self._runs.popitem(last=False)
        return turn

    def track(self, call: GenuiOutOfLoopCall, invoke: Callable[[], T]) -> T:
        if call.marker is None:
            return invoke()
        error: str | None = None
        try:
            return invoke()
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            raise
        finally:
            self._record(call, error)

    def _record(self, call: GenuiOutOfLoopCall, error: str | None) -> None:
        marker = call.marker
        try:
            facts = GenuiStepFacts(
                run_id=call.run_id,
                thread_id=call.thread_id,
                actor_ref=call.actor_ref,
                agent_name=call.agent_name,
                step=0,
                channel=call.channel,
                model_id=call.model_id,
                usage=StepUsage(0, 0),
                cost_usd=None,
                calls=[call.call],
                results=[ToolResult(id=call.call.id, error=error)],
                marker_of=lambda _name: marker,
            )
            call.store.record_genui_calls(self._turn(call.run_id).rows(facts))
        except Exception:  # best-effort: telemetry must never break the call
            pass


__all__ = [
    "GenuiFrameTimes",
    "GenuiOutOfLoopCall",
    "GenuiRunRecorder",
    "GenuiStepFacts",
    "GenuiToolMarker",
    "GenuiTurnTelemetry",
    "StepUsage",
    "ToolCall",
    "ToolResult",
]
