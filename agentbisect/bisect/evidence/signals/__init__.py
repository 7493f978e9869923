"""The registry of evidence signals: one module per signal, listed here in report order.

A new signal is one new module in this package — a pure ``score(Scoring) -> list[float]`` and a
``SIGNAL = Signal(name, weight, embeds, score)`` — plus its line in ``REGISTRY`` (and its field
in ``results.report.EvidenceSignals``, which a test holds to this list). The order is the order
of the report's ``evidence.signals``, and the order they are scored in: a signal may read the
values of one registered before it (``Scoring.done``).
"""

from __future__ import annotations

from agentbisect.bisect.evidence.signals import claim_shape, claims, focus, phrases, semantic, terms
from agentbisect.bisect.evidence.signals.context import Signal

REGISTRY: tuple[Signal, ...] = (
    semantic.SIGNAL,
    terms.SIGNAL,
    phrases.SIGNAL,
    claims.SIGNAL,
    focus.SIGNAL,  # reads claims when there is no question
    claim_shape.SIGNAL,
)
# every text kind some registered signal needs embedded (context.TEXT_KINDS)
EMBEDS = {k for s in REGISTRY for k in s.embeds}
