"""The element budget: how many JSON values an input may hold for its size, checked before decoding.

A decoder builds every value of a document, and each costs Python 32–100 bytes whatever its
JSON spelling: 30 MB of ``{"events": [{}, {}, …]}`` (10 M objects) took 13 s and 600 MB before
afp said a word, and the same bomb inside a trace's span list or a genui array did as much.
Real inputs spend 20–500 bytes per value (keys, names, text, numbers with their keys); such
bombs spend 2–3. Every array item and object member after the first is preceded by a comma, so
an input with more than one comma outside strings per ``BYTES_PER_VALUE`` bytes (past a floor
small inputs never reach) is refused before the decode. The first count includes commas inside
strings (about 0.4 ms per MB); strings are told apart only when that count trips.
"""

from __future__ import annotations

import re

from agentbisect.core.errors import InputError

# One value per 5 bytes: a float like 0.1234 in an embedding (8 bytes with its comma) or a
# row's member passes; `{},`, `"",`, `[],` and `1,` do not. Python holds such a value in
# ≥ 32 bytes, so what a passing input inflates to stays within ~10× its size.
BYTES_PER_VALUE = 5
FLOOR = 1 << 18  # values any input may hold: below this, no input is a bomb worth refusing
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def check_values(name: str, data: bytes, what: str) -> None:
    """Refuse ``data`` (InputError) when it holds more JSON values than its size allows."""
    size = len(data)
    limit = max(FLOOR, size // BYTES_PER_VALUE)
    if size <= limit or data.count(b",") <= limit:
        return  # (a short input cannot hold more commas than the floor)
    values = _STRING.sub(b'""', data).count(b",")  # commas in strings are text, not values
    if values <= limit:
        return
    raise InputError(
        name,
        f"holds about {values:,} JSON values in {size:,} bytes, more than one per "
        f"{BYTES_PER_VALUE} bytes (decoding them would take about {values * 64 >> 20:,} MiB); "
        f"expected {what}",
    )
