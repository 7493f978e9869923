"""Input formats. Each module here is one importer (``importers.base.Importer``): it sniffs its
format and converts it into the canonical recording every command reads.

``IMPORTERS`` is the registry, tried in order by ``importer_for``; the recording importer accepts
any JSON object or array, so it comes last. A new format (OTLP JSON, OTel console dumps, chat
transcripts …) is one new module with ``NAME``, ``LABEL``, ``sniff`` and ``convert``, plus one
line here. Importers are imported only when sniffed, so a heavy one costs nothing to the others.
"""

from __future__ import annotations

import gc
import importlib
from typing import Any, cast

from agentbisect.core.deep import run_deep
from agentbisect.core.errors import InputError, UsageError
from agentbisect.core.inputbytes import read_input
from agentbisect.importers.base import Conversion, Importer, ImportOptions, InputBuffer
from agentbisect.model.loaded import Loaded
from agentbisect.model.run import Run

__all__ = [
    "IMPORTERS",
    "Conversion",
    "ImportOptions",
    "Importer",
    "InputBuffer",
    "check_options",
    "convert_with",
    "import_bytes",
    "importer_for",
    "load",
    "load_bytes",
    "open_run",
    "read_call",
    "shape_label",
]

IMPORTERS: list[str] = [
    "agentbisect.importers.capture",
    "agentbisect.importers.opentelemetry",  # OTLP/JSON (+ JSON Lines), SDK span JSON, span dumps
    "agentbisect.importers.transcript",  # chat transcripts and multi-agent histories
    "agentbisect.importers.langfuse",  # Langfuse trace exports (the SDK's API models)
    "agentbisect.importers.langsmith",  # LangSmith run trees and langsmith-fetch output
    "agentbisect.importers.recording",  # the fallback: any JSON object or array; keep it last
]


def _module(path: str) -> Importer:
    return cast(Importer, importlib.import_module(path))


def importer_for(data: bytes) -> Importer | None:
    """The first registered importer whose ``sniff`` accepts ``data``."""
    for path in IMPORTERS:
        imp = _module(path)
        if imp.sniff(data):
            return imp
    return None


def check_options(imp: Importer | None, options: ImportOptions | None) -> None:
    """Refuse ``TRACE_ID``/``LOGS`` for a format that takes no such option."""
    given = options.given() if options is not None else []
    if given and not getattr(imp, "TAKES_OPTIONS", False):
        label = imp.LABEL if imp is not None else "this input"
        verb = "apply" if len(given) > 1 else "applies"
        raise UsageError(f"{' and '.join(given)} {verb} to OpenTelemetry traces, not to {label}")


def convert_with(
    imp: Importer,
    name: str,
    data: bytes | InputBuffer,
    options: ImportOptions | None,
    **kwargs: Any,
) -> Conversion:
    """``imp.convert``, handing ``options`` to the importers that take them (``TAKES_OPTIONS``)
    and an ``InputBuffer`` to those that release it once read (``RELEASES_INPUT``)."""
    check_options(imp, options)
    convert: Any = imp.convert
    if isinstance(data, InputBuffer) and not getattr(imp, "RELEASES_INPUT", False):
        data = data.data
    if options is not None and getattr(imp, "TAKES_OPTIONS", False):
        return cast(Conversion, convert(name, data, options=options, **kwargs))
    return cast(Conversion, convert(name, data, **kwargs))


def import_bytes(
    name: str,
    data: bytes | InputBuffer,
    compressed: bool = False,
    options: ImportOptions | None = None,
) -> Loaded:
    """Decode input of any registered format into the ``Loaded`` a ``Run`` is built from.

    Given an ``InputBuffer`` (``load.load`` passes one), no reference to the bytes is kept here:
    an importer that releases them once read frees them before its recording is built."""
    from agentbisect.importers import recording, toplevel

    buf = data if isinstance(data, InputBuffer) else InputBuffer(data)
    del data
    size = buf.size
    # The sniffs and the recording importer share one decode of the input's top level (only
    # while they run: a conversion must not keep the input alive through it).
    with toplevel.shared(buf.data):
        imp = importer_for(buf.data)
        check_options(imp, options)
        if imp is None or imp is cast(Importer, recording):
            # Not JSON-ish at all still goes to the recording importer, which names the error.
            loaded = recording.load(name, buf.data, compressed)
            loaded.shape_name = shape_label(loaded.shape)
            require_content(loaded)
            return loaded
    conv = convert_with(imp, name, buf, options)
    del buf  # the conversion's recording is all that is read from here on
    if conv.doc is not None:  # in memory: its long values taken as they are, never re-read
        loaded = recording.load_doc(name, conv.doc, compressed)
    else:
        loaded = recording.load(name, conv.data, compressed)
    loaded.shape = imp.NAME
    loaded.shape_name = imp.LABEL
    loaded.size = size
    loaded.warnings[:0] = conv.notes
    require_content(loaded)
    return loaded


def require_content(loaded: Loaded) -> None:
    """A file with no events of either kind, no commit log and no readable boundary row holds
    nothing any command can use: it is not a recording (``{"snapshot": 5}``), an input error.
    Degraded files that hold any of these stay readable, with honesty flags."""
    if not loaded.commit_log_empty():
        return  # (asked first: it does not make the loader decode the domain events)
    if loaded.domain is not None and (loaded.domain.events or loaded.domain.non_objects):
        return
    raw = loaded.typed_events_raw
    if raw is not None and memoryview(raw)[:64].tobytes().replace(b" ", b"").strip()[:2] != b"[]":
        return
    # Name the part that was there but unreadable, if any: that is what the user must fix.
    parts = [w for w in loaded.warnings if "unreadable" in w.flag] or loaded.warnings
    why = f"{parts[0].flag}: {parts[0].note}" if parts else ""
    raise InputError(
        loaded.file,
        "not a recording: no domain events, no typed events, no commit log"
        + (f" ({why})" if why else ""),
    )


def shape_label(shape: str) -> str:
    """How messages name a shape or format (``Loaded.shape``)."""
    from agentbisect.importers import recording

    if shape in recording.SHAPES:
        return recording.SHAPES[shape]
    for path in IMPORTERS:
        imp = _module(path)
        if shape == imp.NAME:
            return imp.LABEL
    return shape


def load(path: str, options: ImportOptions | None = None) -> Loaded:
    """Read ``path`` (or ``-``), tell its format and decode it; ``InputError`` if unreadable.

    ``options`` (``TRACE_ID``, ``LOGS``) are for the formats that take them (traces)."""
    name, data, compressed = read_input(path)
    # Only the buffer holds the bytes from here on, so an importer that reads them into its own
    # model (traces) can free them before it builds the recording.
    buf = InputBuffer(data)
    del data
    return load_bytes(buf, name, compressed=compressed, options=options)


def load_bytes(
    data: bytes | InputBuffer,
    name: str = "<bytes>",
    *,
    compressed: bool = False,
    options: ImportOptions | None = None,
) -> Loaded:
    """Decode in-memory input (already decompressed) of any registered format (``data`` may be
    an ``importers.base.InputBuffer`` the importer is allowed to release once read)."""
    # Sniffing, converting and decoding all on the deep-stack thread: every importer reads
    # user-supplied JSON, which may nest as deep as MAX_DEPTH. The cycle collector waits until
    # the load is done: an importer builds a whole recording (millions of containers for a long
    # trace) that is freed by reference counting once encoded, and collections in between walked
    # it again and again; afterwards one pass sees only what the load kept.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return run_deep(import_bytes, name, data, compressed, options)
    finally:
        if was_enabled:
            gc.enable()


def read_call(
    path: str,
    shape: str,
    span_id: str,
    options: ImportOptions | None = None,
    trace_id: str | None = None,
) -> Any:
    """One LLM call of an imported trace or transcript (``importers.calls.CallContent``), read
    again from ``path``: the messages it was sent, its answer, its model and parameters."""
    from agentbisect.importers.calls import read_call as read

    return read(path, shape, span_id, options, trace_id)


def open_run(path: str, options: ImportOptions | None = None) -> Run:
    """Load ``path`` (or ``-``) and wrap it as a ``Run``; ``options`` for traces (``TRACE_ID``,
    ``LOGS``)."""
    return Run(load(path, options))
