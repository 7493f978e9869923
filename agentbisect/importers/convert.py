"""From a synthesized run to the seam's ``Conversion``: the bytes ``afp record`` writes and the
honesty flags that say what the source could not provide."""

from __future__ import annotations

from agentbisect.core.honesty import flag
from agentbisect.importers.base import Conversion, recorded
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis


def conversion(result: Synthesis, detail: str) -> Conversion:
    doc = result.document()
    return recorded(
        result.rec,
        doc,
        shape_in=str(result.recording[IMPORT_KEY].get("format", "")),
        envelope=doc is not result.recording,
        detail=detail,
        notes=[flag(name, note) for name, note in result.flags],
    )
