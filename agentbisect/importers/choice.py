"""Which run of a file holding several is read (OpenTelemetry traces, platform exports): the one
``TRACE_ID`` names, else the one whose root ended last, with the ``multiple-runs`` flag naming
the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from agentbisect.core.errors import UsageError
from agentbisect.core.options import TRACE_ID


class Candidate(Protocol):
    @property
    def trace_id(self) -> str: ...
    @property
    def end_ns(self) -> int: ...
    @property
    def label(self) -> str: ...


C = TypeVar("C", bound=Candidate)


def choose_run(file: str, found: Sequence[C], want: str | None, flags: list[tuple[str, str]]) -> C:
    """The run ``want`` names (as written, or as OpenTelemetry ids are normalized: lowercase, no
    ``0x``), else the last to end; ``UsageError`` naming the runs when ``want`` names none."""
    if want is not None:
        normalized = want.lower().removeprefix("0x")
        named = next((f for f in found if f.trace_id in (want, normalized)), None)
        if named is None:
            listed = ", ".join(f.trace_id for f in found[:5])
            raise UsageError(f"{file}: no trace {want!r} (traces: {listed})")
        return named
    chosen = max(found, key=lambda f: f.end_ns)
    if len(found) > 1:
        first = ", ".join(f"{f.trace_id} ({f.label})" for f in found[:3])
        flags.append(
            (
                "multiple-runs",
                f"the file holds {len(found)} traces ({first}{', …' if len(found) > 3 else ''}); "
                f"analysed {chosen.trace_id} ({chosen.label}), the one whose root span ended "
                f"last — pick another with {TRACE_ID.flag}",
            )
        )
    return chosen
