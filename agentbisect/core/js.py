"""JavaScript value semantics, in one place: truthiness, key order, numbers, JSON text (bisect.md §4.3, §9.1, §9.3).

Every text the localizer embeds is ``JSON.stringify`` output built by JavaScript, so the mock
embedder only reproduces upstream scores when our strings are byte-identical: JS object key order,
``Number::toString`` digits, JS string escaping (lone surrogates as ``\\udXXX``) and caps counted in
UTF-16 code units. The same writer serializes reports (JSON output) so output compares with
upstream's, and ``to_fixed`` reproduces ``Number.prototype.toFixed`` for the text rendering.
"""

from __future__ import annotations

import contextlib
import math
import re
from codecs import utf_16_le_decode, utf_16_le_encode
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from msgspec import UNSET


class Absent:
    """The JS ``undefined``: a value that is not there (distinct from ``null``/``None``)."""

    _inst: Absent | None = None

    def __new__(cls) -> Absent:
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = Absent()

_MAX_ARRAY_INDEX = 2**32 - 1


def _is_index_key(k: str) -> bool:
    # Canonical decimal strings below 2**32 - 1 are "array index" keys: JS lists them first.
    if not k or not k.isdigit() or not k.isascii():
        return False
    if len(k) > 1 and k[0] == "0":
        return False
    return int(k) < _MAX_ARRAY_INDEX


def js_key_order(keys: list[str]) -> list[str]:
    """Keys in JS own-property order: integer-like keys ascending first, then the rest as given."""
    ints = [k for k in keys if _is_index_key(k)]
    if not ints:
        return keys
    rest = [k for k in keys if not _is_index_key(k)]
    ints.sort(key=int)
    return ints + rest


def js_number(x: int | float) -> str:
    """ECMAScript ``Number::toString(x)`` (radix 10); NaN and infinities give ``null`` (JSON)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        if abs(x) < 2**53:
            return str(x)
        x = float(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"  # also -0
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-trip digits; Decimal splits them into digits and exponent.
    t = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    k = len(digits)
    n = t.exponent + k  # type: ignore[operator]  # value = 0.d1d2..dk × 10^n
    if k <= n <= 21:
        s = digits + "0" * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = ("+" if e >= 0 else "-") + str(abs(e))
        s = digits + "e" + es if k == 1 else digits[0] + "." + digits[1:] + "e" + es
    return sign + s


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESC = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_SURR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _u_escape(m: re.Match[str]) -> str:
    g = m.group()
    # A high+low pair held as two code points is a well-formed pair: written raw.
    return g if len(g) == 2 else _ESC.get(g) or f"\\u{ord(g):04x}"


def _quote(s: str) -> str:
    if not _NEEDS_ESC.search(s):
        return '"' + s + '"'
    return '"' + _SURR.sub(_u_escape, re.sub(r'["\\\x00-\x1f]', _u_escape, s)) + '"'


def js_stringify(v: Any, limit: int | None = None) -> str:
    """Compact ``JSON.stringify(v)`` for JSON-shaped Python values (dict/list/str/num/bool/None).

    Object members whose value is ``ABSENT`` are dropped and list items that are ``ABSENT`` become
    ``null``, as JS does with ``undefined``. With ``limit``, writing stops once the text is longer
    than ``limit`` code points: the result is then an exact prefix of the full text (long enough
    for a cap of ``limit`` UTF-16 units), which saves serializing megabytes only to cut them.
    """
    w = _Writer(limit)
    with contextlib.suppress(_Full):
        w.write(v)
    return "".join(w.parts)


class _Full(Exception):
    pass


class _Writer:
    def __init__(self, limit: int | None) -> None:
        self.parts: list[str] = []
        self.limit = limit
        self.size = 0

    def put(self, s: str) -> None:
        self.parts.append(s)
        if self.limit is not None:
            self.size += len(s)
            if self.size > self.limit:
                raise _Full

    def write(self, v: Any) -> None:
        if v is None or v is ABSENT:  # an absent list item is null, as JS writes undefined
            self.put("null")
        elif v is True or v is False:
            self.put("true" if v else "false")
        elif isinstance(v, str):
            if self.limit is not None:
                # Only a prefix can be kept: quote just enough of it. Keep a surrogate pair whole,
                # since a lone-looking high surrogate would be escaped differently.
                need = self.limit - self.size + 2
                if len(v) > need:
                    if "\ud800" <= v[need - 1] <= "\udbff":
                        need += 1
                    v = v[:need]
            self.put(_quote(v))
        elif isinstance(v, (int, float)):
            self.put(js_number(v))
        elif isinstance(v, dict):
            self.put("{")
            first = True
            for k in js_key_order(list(v.keys())):
                val = v[k]
                if val is ABSENT:
                    continue
                if not first:
                    self.put(",")
                first = False
                self.put(_quote(k) + ":")
                self.write(val)
            self.put("}")
        elif isinstance(v, (list, tuple)):
            self.put("[")
            for i, item in enumerate(v):
                if i:
                    self.put(",")
                self.write(item)
            self.put("]")
        else:
            raise TypeError(f"cannot stringify {type(v).__name__}")


def safe_stringify(v: Any, limit: int | None = None) -> str:
    """Upstream ``safeStringify``: absent → ``undefined``, else ``JSON.stringify``."""
    if v is ABSENT:
        return "undefined"
    return js_stringify(v, limit)


# Below the surrogates, a code point is one UTF-16 code unit and a string round-trips unchanged
# (the codec would join two adjacent lone surrogates when it decodes a cut). Otherwise the codec
# functions are called directly, as str.encode would after a registry lookup that imports
# encodings.utf_16_le (~0.2 ms at start-up).
_SURROGATES = "\ud800"


def utf16_len(s: str) -> int:
    """JS ``string.length``: UTF-16 code units."""
    if s.isascii() or max(s) < _SURROGATES:  # one unit per character (no utf-16 codec lookup)
        return len(s)
    return len(utf_16_le_encode(s, "surrogatepass")[0]) // 2


def cap_utf16(s: str, max_chars: int) -> str:
    """The first ``max_chars`` UTF-16 code units of ``s`` (a surrogate pair may be split)."""
    if len(s) <= max_chars // 2:  # every code point is at most 2 units: cannot exceed
        return s
    if s.isascii() or max(s) < _SURROGATES:  # one unit per character
        return s[:max_chars]
    b = utf_16_le_encode(s, "surrogatepass")[0]
    if len(b) <= 2 * max_chars:
        return s
    return utf_16_le_decode(b[: 2 * max_chars], "surrogatepass", True)[0]


def to_fixed(x: float, digits: int) -> str:
    """``Number.prototype.toFixed``: the exact binary value rounded half-up (not half-even)."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if abs(x) >= 1e21:
        return js_number(x)
    q = Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    s = format(q, "f")
    if x == 0 or (s.startswith("-") and not (x < 0)):
        s = s.lstrip("-")  # (-0).toFixed(3) is "0.000"
    return s


# (a tuple, not ``int | float``: that union is built anew each time it is evaluated, and these
# checks run for every event of a long run)
_NUMBER = (int, float)


def js_truthy(value: object) -> bool:
    """JavaScript truthiness: ``""``, ``0``, ``NaN``, ``false``, ``null`` and absent are falsy;
    ``[]`` and ``{}`` are truthy (unlike Python's ``bool``). Upstream's conditional copying
    depends on it."""
    if value is None or value is UNSET:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, _NUMBER):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


# Token counts outside [0, 2**53] are not counts (2**53 is the last integer a double, and so the
# producer's JavaScript, holds exactly): they stay out of every total and are reported as
# malformed events instead of silently skewing the sums.
MAX_COUNT = 2**53


def is_num(value: object) -> bool:
    """A JSON number as decoded: ``int`` or ``float``, never ``bool`` (an ``int`` in Python)."""
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def countable(value: object) -> bool:
    """True for a token count that may be summed: a number (not a bool) in [0, 2**53]."""
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    )
