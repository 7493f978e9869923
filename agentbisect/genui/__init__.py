"""Generative-UI telemetry statistics: ``GenuiStats`` from ``GenuiCallRow``s (spec genui-stats).

The public surface mirrors the upstream ``genui-telemetry`` module: ``summarize``
(``summarizeGenuiCalls``), ``rows_in_range`` (``genuiRowsInRange``), ``classify_error``,
``scrub_error`` and ``GenuiTurnTelemetry`` (rows from raw step facts, spec §7).
"""

from __future__ import annotations

from agentbisect.genui.classify import CATEGORIES, classify_error, scrub_error
from agentbisect.genui.percentile import percentile_index, percentiles
from agentbisect.genui.range import rows_in_range
from agentbisect.genui.summary import empty_stats, summarize, summarize_columns
from agentbisect.genui.turns import (
    GenuiFrameTimes,
    GenuiOutOfLoopCall,
    GenuiRunRecorder,
    GenuiStepFacts,
    GenuiTurnTelemetry,
)

__all__ = [
    "CATEGORIES",
    "GenuiFrameTimes",
    "GenuiOutOfLoopCall",
    "GenuiRunRecorder",
    "GenuiStepFacts",
    "GenuiTurnTelemetry",
    "classify_error",
    "empty_stats",
    "percentile_index",
    "percentiles",
    "rows_in_range",
    "scrub_error",
    "summarize",
    "summarize_columns",
]
