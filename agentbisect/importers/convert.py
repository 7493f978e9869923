"""From a synthesized run to the seam's ``Conversion``: the bytes ``afp record`` writes and the
honesty flags that say what the source could not provide."""

from __future__ import annotations

import msgspec

from agentbisect.honesty import flag
from agentbisect.importers.base import Conversion
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis

_ENC = msgspec.json.Encoder()


def conversion(result: Synthesis, detail: str) -> Conversion:
    rec = result.rec
    doc = result.document()
    return Conversion(
        data=_ENC.encode(doc),
        shape_in=str(result.recording[IMPORT_KEY].get("format", "")),
        shape_out="envelope" if doc is not result.recording else "recording",
        detail=detail,
        typed_in=rec.event_count,
        typed_out=len(rec.tail),
        dropped_now=rec.dropped_events,
        dropped_total=rec.dropped_events,
        first_retained=rec.first_retained_event_index,
        notes=[flag(name, note) for name, note in result.flags],
    )
