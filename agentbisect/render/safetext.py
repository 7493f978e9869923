"""Terminal-safe text: recorded strings are untrusted, so they become plain rich Text, scrubbed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# ANSI/VT escape sequences (CSI, OSC, single-char escapes) and every C0/C1 control except tab and
# newline. A recording could otherwise move the cursor, retitle the terminal or hide lines.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, terminated by BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[@-Z\\-_]"  # other 2-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(value: object, *, keep_newlines: bool = False) -> str:
    """Return ``value`` as a string with escape sequences and control characters removed."""
    s = value if isinstance(value, str) else str(value)
    s = _ESCAPES.sub("", s)
    if not keep_newlines:
        s = s.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return _CONTROLS.sub("", s)


def safe(value: object, style: str = "", *, keep_newlines: bool = False) -> Text:
    """A rich ``Text`` holding ``value`` verbatim (never parsed as markup), scrubbed of controls."""
    from rich.text import Text  # imported here so that JSON-only runs never load rich

    return Text(clean(value, keep_newlines=keep_newlines), style=style)


def shorten(value: object, width: int = 60) -> str:
    """One clean line of at most ``width`` characters, with an ellipsis when cut."""
    s = clean(value)
    return s if len(s) <= width else s[: max(0, width - 1)] + "…"
