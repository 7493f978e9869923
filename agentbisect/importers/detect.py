"""Which importer, if any, reads a file: detection from content (never from the file name).

Recordings (shapes A–E) and captures are read as they are; OpenTelemetry traces and chat
transcripts are converted into a recording first. ``convert`` returns ``None`` for anything that
is not an imported format, so the caller falls through to the recording reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from agentbisect.importers import traces, transcript
from agentbisect.importers.synthesize import Synthesis

_ENC = msgspec.json.Encoder()


@dataclass
class ImportOptions:
    trace_id: str | None = None
    logs: list[tuple[str, bytes]] = field(default_factory=list)


def sniff(data: bytes) -> str | None:
    """``"trace"``, ``"transcript"`` or ``None`` (a recording or capture: not ours)."""
    head = data[:4096]
    if traces.sniff(head):
        return "trace"
    if transcript.sniff(data):
        return "transcript"
    return None


def synthesize_file(
    name: str, data: bytes, options: ImportOptions | None = None
) -> Synthesis | None:
    kind = sniff(data)
    options = options or ImportOptions()
    if kind == "trace":
        return traces.import_trace(name, data, trace_id=options.trace_id, logs=options.logs)
    if kind == "transcript":
        return transcript.import_transcript(name, data)
    return None


def convert(
    name: str, data: bytes, options: ImportOptions | None = None
) -> tuple[bytes, Synthesis] | None:
    """The recording bytes an imported file stands for, or ``None`` if it is not imported."""
    result = synthesize_file(name, data, options)
    if result is None:
        return None
    return _ENC.encode(result.recording), result
