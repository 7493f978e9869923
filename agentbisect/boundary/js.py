"""JavaScript value semantics that upstream's conditional copying depends on."""

from __future__ import annotations

import math

from msgspec import UNSET


def js_truthy(value: object) -> bool:
    """JavaScript truthiness: ``""``, ``0``, ``NaN``, ``false``, ``null`` and absent are falsy;
    ``[]`` and ``{}`` are truthy (unlike Python's ``bool``)."""
    if value is None or value is UNSET:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True
