"""agentbisect: offline forensics for recorded AI-agent runs (recordings, traces, transcripts).

The library API, usable without the CLI (every name is imported on first use, so that
``import agentbisect`` and starting ``afp`` stay cheap)::

    from agentbisect import open_run, localize, aggregate, select_events, genui_stats, record_run

    run = open_run("run.recording.json")          # any format afp reads (also captures)
    report = localize(run, at_step="call-llm#40")  # a ContextBugReport; upstream=True for parity
    rollups = aggregate(run)                       # an AggregateResult
    print([f.flag for f in run.flags])             # what the recording cannot support

``open_run(path)``
    Load a recording (path, ``-`` or gzip) of any registered format into a ``Run``.
``localize(run, *, at_step=None, ..., upstream=False)``
    The contextual-bug localizer (bisect.md); ``upstream=True`` gives exactly upstream's report.
``bisect_run(run, BisectOptions(...))``
    Everything ``afp bisect`` does (trigger by LLM index, reruns, replay, culprits) →
    ``BisectResult``.
``llm_call(run, step)``
    One LLM call as the chat-completions request it was and its recorded response (``afp
    call``) → ``CallResult``.
``diff_runs(good, bad, DiffOptions(...))``
    Everything ``afp diff`` does (alignment, first divergences, ranked differences, replay)
    → ``DiffResult``.
``aggregate(run, *, show_all=False, drill=None)``
    Rollups, boundary index and step strip → ``AggregateResult``.
``select_events(run, *, types=None, stage=None, path=None, at=None, limit=None)``
    ``afp events`` filters → ``EventsResult``.
``genui_stats(file=None, *, db=None, ...)``
    Generative-UI statistics from rows in a file or database → ``GenuiResult``.
``record_run(...)``
    Make a recording from Python (a context manager yielding a ``RunRecording``).
``record_file(input, output, ...)``
    What ``afp record`` does: convert any input into a canonical recording file.
``get_renderer(name)``
    A renderer (``table``, ``json``, ``jsonl``, ``text``) for any result above.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agentbisect.core.version import __version__

# name -> module that defines it; imported on first attribute access (PEP 562).
_EXPORTS = {
    "open_run": "agentbisect.importers",
    "Run": "agentbisect.model.run",
    "localize": "agentbisect.bisect.pipeline.localize",
    "llm_call": "agentbisect.analyses.call",
    "bisect_run": "agentbisect.bisect.api",
    "BisectOptions": "agentbisect.bisect.api",
    "diff_runs": "agentbisect.diff.api",
    "DiffOptions": "agentbisect.diff.options",
    "aggregate": "agentbisect.analyses.aggregate",
    "select_events": "agentbisect.analyses.select",
    "genui_stats": "agentbisect.genui.stats",
    "record_run": "agentbisect.model.record",
    "record_file": "agentbisect.analyses.record",
    "get_renderer": "agentbisect.render",
    "HonestyFlag": "agentbisect.core.honesty",
}

__all__ = [
    "BisectOptions",
    "DiffOptions",
    "HonestyFlag",
    "Run",
    "__version__",
    "aggregate",
    "bisect_run",
    "diff_runs",
    "genui_stats",
    "get_renderer",
    "llm_call",
    "localize",
    "open_run",
    "record_file",
    "record_run",
    "select_events",
]

if TYPE_CHECKING:
    from agentbisect.analyses.aggregate import aggregate
    from agentbisect.analyses.call import llm_call
    from agentbisect.analyses.record import record_file
    from agentbisect.analyses.select import select_events
    from agentbisect.bisect.api import BisectOptions, bisect_run
    from agentbisect.bisect.pipeline.localize import localize
    from agentbisect.core.honesty import HonestyFlag
    from agentbisect.diff.api import diff_runs
    from agentbisect.diff.options import DiffOptions
    from agentbisect.genui.stats import genui_stats
    from agentbisect.importers import open_run
    from agentbisect.model.record import record_run
    from agentbisect.model.run import Run
    from agentbisect.render import get_renderer


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentbisect' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
