"""Terminal- and browser-safe text: the one set of characters no human-facing output may carry.

Recorded strings are untrusted. Tables, the plain-text report, HTML, progress lines, warnings and
errors all pass them through ``scrub`` (alias ``clean``): escape sequences (CSI, OSC, DCS, …) go
as a whole, then every C0/C1 control other than newline and tab, DEL, and the bidi controls that
can make a terminal or a browser show text in an order other than the bytes' (U+061C, U+200E,
U+200F, U+202A–U+202E, U+2066–U+2069). ``safe`` wraps the result in a rich ``Text`` (never
parsed as markup).

JSON output keeps every string's value, and its bytes but one set: ``escape_json_for_terminal``
writes C1, DEL and bidi controls inside strings as ``\\uXXXX`` escapes (the same JSON value, but
no terminal ever sees the raw character, whether the JSON goes to one directly or through a pipe).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# Bidi controls: arabic letter mark, LRM/RLM, embeddings/overrides, isolates.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# The unsafe single characters, as a regex character-class body: C0 but tab and newline, DEL, C1,
# and the bidi controls.
UNSAFE_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS

_ESCAPES = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, terminated by BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[@-Z\\-_]"  # other 2-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_UNSAFE = f"[{UNSAFE_CHARS}]"
_LINE_BREAKS = r"\r\n|[\r\n\t]"
# Compiled on first use: an ordinary JSON run scrubs nothing, and compiling the three (the
# bidi ranges make big character sets) took ~0.4 ms of every start.
_compiled: tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]] | None = None


def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    global _compiled
    if _compiled is None:
        _compiled = (re.compile(_ESCAPES), re.compile(_LINE_BREAKS), re.compile(_UNSAFE))
    return _compiled


def scrub(value: object, *, keep_newlines: bool = False) -> str:
    """``value`` as text no terminal or browser will interpret: sequences and controls removed.

    Without ``keep_newlines`` line breaks and tabs become spaces (one cell of a table, one line of
    a message); with it, newline and tab stay and everything else unsafe goes.
    """
    escapes, line_breaks, unsafe = _compiled or _patterns()
    s = value if isinstance(value, str) else str(value)
    s = escapes.sub("", s)
    if not keep_newlines:
        s = line_breaks.sub(" ", s)
    return unsafe.sub("", s)


# In UTF-8: DEL, C1 (C2 80–C2 9F), U+061C (D8 9C), U+200E/F (E2 80 8E/8F), U+202A–E (E2 80 AA–AE),
# U+2066–9 (E2 81 A6–A9). JSON outside strings is ASCII, so these bytes only occur in strings.
# One pattern per lead: with a literal prefix the regex engine searches at memchr speed, while one
# alternation tried every position (~10x slower; every JSON output pays for this scan).
_JSON_UNSAFE = tuple(
    re.compile(p)
    for p in (
        rb"\x7f",
        rb"\xc2[\x80-\x9f]",
        rb"\xd8\x9c",
        rb"\xe2\x80[\x8e\x8f\xaa-\xae]",
        rb"\xe2\x81[\xa6-\xa9]",
    )
)


def _escape(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode("utf-8"))


def escape_json_for_terminal(data: bytes) -> bytes:
    """UTF-8 JSON with C1, DEL and bidi controls written as ``\\uXXXX`` (same value, safe to show).

    Every JSON output goes through this, in a pipe as on a terminal (a pipe often ends on one)."""
    if data.isascii():
        return data
    for pattern in _JSON_UNSAFE:
        data = pattern.sub(_escape, data)
    return data


# The name the renderers know it by.
clean = scrub


def safe(value: object, style: str = "", *, keep_newlines: bool = False) -> Text:
    """A rich ``Text`` holding ``value`` verbatim (never parsed as markup), scrubbed."""
    from rich.text import Text  # imported here so that JSON-only runs never load rich

    return Text(scrub(value, keep_newlines=keep_newlines), style=style)


def shorten(value: object, width: int = 60) -> str:
    """One clean line of at most ``width`` characters, with an ellipsis when cut."""
    s = scrub(value)
    return s if len(s) <= width else s[: max(0, width - 1)] + "…"
