"""``afp aggregate`` on an OTLP/JSON trace without synthesizing its recording: the fast path.

The full path converts a trace into a canonical recording (commit log, domain events, execution
tree: ``importers.synthesize``) and loads that as a ``Run``; for a 100,000-span trace that is
~6 s, nearly all of it building and re-reading per-event Python objects the aggregate then
reduces to a handful of counts and one row per call. Here the same result is computed straight
from a typed decode of the spans (``otlp_typed``): no recording, no domain events, no ``Run``.

It handles what it can prove it reproduces exactly, and nothing else: an uncompressed file of
one trace under one root span, the current GenAI semantic conventions with content on the spans
(``gen_ai.input.messages`` / ``output.messages`` / ``system_instructions`` in the "parts" form)
or no content at all, LLM, tool, retrieval and other spans below the root — no agent or chain
span below it (those are subflow rollups), no span events or log records, no duplicate or
missing ids, no parent cycle, well-formed times with every child inside its parent, token counts
on every LLM span. Each call's input is split into its sources by the synthesizer's rules
(``otlp_sources``), which decide the commit count and which steps ``--at-step`` takes. Anything
else — and any value the typed decode refuses — returns ``None``, and the command takes the full
path. ``tests/test_otlp_aggregate_fast.py`` holds the two equal.

Flat traces (every span a child of the root) are answered by the compiled core first
(``otlp_native``); the Python walk answers the others, and whatever the core declines.

``ENABLED = False`` turns both off (the differential tests compare the paths that way).
"""

from __future__ import annotations

import gc
import mmap
import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentbisect.results import AggregateResult

ENABLED: bool = True


def fast_result(
    file: str,
    *,
    show_all: bool = False,
    drill: str | None = None,
    trace_id: str | None = None,
    logs: list[str] | None = None,
) -> AggregateResult | None:
    """The ``afp aggregate`` result of ``file``, or ``None`` when this path does not apply."""
    if not ENABLED or file == "-" or logs or trace_id is not None:
        return None
    try:
        mapped = _open(file)
    except OSError:
        return None
    if mapped is None:
        return None
    was_enabled = gc.isenabled()
    gc.disable()  # (hundreds of thousands of acyclic objects: see otlp_typed)
    try:
        # The compiled core first (flat traces); only then the decoder and the Python walk
        # are imported: other inputs never pay for them.
        from agentbisect.importers import otlp_native

        answer = otlp_native.result(file, mapped, show_all, drill)
        if answer is not None:
            return answer
        from agentbisect.importers import otlp_walk

        try:
            return otlp_walk.aggregate(file, mapped, show_all, drill)
        except otlp_walk.NOT_HANDLED:
            return None
    finally:
        if was_enabled:
            gc.enable()


def _open(file: str) -> mmap.mmap | None:
    """The file mapped, if it is an uncompressed regular file that starts as OTLP/JSON; None
    otherwise (the full path then reads it, and names any error)."""
    from agentbisect.errors import InputError
    from agentbisect.importers import trace_sniff
    from agentbisect.inputbytes import GZIP_MAGIC, UTF8_BOM, check_start, input_cap

    with open(file, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not 0 < st.st_size <= input_cap():
            return None
        populate = getattr(mmap, "MAP_POPULATE", 0)
        if populate:  # (Linux: the pages mapped in one go, not faulted in one by one)
            mm = mmap.mmap(fh.fileno(), 0, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ)
        else:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    head = mm[: 1 << 16]
    if head[:2] == GZIP_MAGIC or head[:3] == UTF8_BOM:
        return None
    try:
        check_start(file, head, "a JSON recording")
    except InputError:
        return None
    if not trace_sniff.otlp(head[: trace_sniff.SNIFF_BYTES]):
        return None
    return mm
