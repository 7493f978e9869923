"""Embedding summaries (recording.md §3.3): raw vectors under ``embedding``/``embeddings`` keys
become ``{"dims": n, "norm": x}``.

Recordings are meant to be shared; raw vectors are large and can leak the text they encode, so
they are summarised at record time unless the producer opts in. The walk never mutates its
input, returns the *same* object when nothing changed (so callers can keep verbatim bytes), is
idempotent (a summary is an object, not a vector) and terminates on cyclic Python values.
"""

from __future__ import annotations

import math
import sys
from numbers import Real
from typing import Any

EMBEDDING_KEY = "embedding"
EMBEDDINGS_KEY = "embeddings"
# Cheap pre-filter for JSON bytes: a value without this substring cannot contain a vector key.
EMBEDDING_MARKER = b'"embedding'


def is_number(value: object) -> bool:
    """A JSON number: int or float (numpy scalars included) but never ``bool``."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_numeric_vector(value: object) -> bool:
    """A non-empty array whose every element is a number (§3.3 rule 5)."""
    # A numpy array can only exist if someone imported numpy: do not import it just to ask.
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return value.ndim == 1 and value.size > 0 and value.dtype.kind in "iuf"
    if not isinstance(value, list | tuple) or not value:
        return False
    return all(is_number(v) for v in value)


def half_up_4(x: float) -> float:
    """Round to 4 decimals half-up, as ``Math.round(x * 1e4) / 1e4`` does for x ≥ 0."""
    return math.floor(x * 1e4 + 0.5) / 1e4


def summarize_vector(vector: Any) -> dict[str, Any]:
    """``{dims, norm}`` of a numeric vector; integral norms are ints so JSON writes ``5``."""
    total = 0.0
    # Sequential double-precision sum, like the upstream reduce, so the 4th decimal matches.
    for v in vector:
        f = float(v)
        total += f * f
    norm_f = math.sqrt(total)
    if not math.isfinite(norm_f):
        # JSON cannot carry Infinity/NaN; JSON.stringify would write null.
        return {"dims": len(vector), "norm": None}
    norm = half_up_4(norm_f)
    return {"dims": len(vector), "norm": int(norm) if norm.is_integer() else norm}


def summarize_embeddings(value: Any) -> Any:
    """Return ``value`` with every qualifying vector summarised; the same object if unchanged."""
    return _walk(value, set())


def _walk(value: Any, active: set[int]) -> Any:
    if isinstance(value, dict):
        return _walk_dict(value, active)
    if isinstance(value, list | tuple):
        return _walk_list(value, active)
    return value


def _walk_dict(obj: dict[Any, Any], active: set[int]) -> Any:
    ident = id(obj)
    if ident in active:  # a cycle: leave the back-reference alone
        return obj
    active.add(ident)
    try:
        out: dict[Any, Any] | None = None
        for key, val in obj.items():
            new = _replace(key, val, active)
            if new is not val and out is None:
                out = dict(obj)  # copy on first change; the input is never mutated
            if out is not None:
                out[key] = new
        return obj if out is None else out
    finally:
        active.discard(ident)


def _walk_list(arr: list[Any] | tuple[Any, ...], active: set[int]) -> Any:
    ident = id(arr)
    if ident in active:
        return arr
    active.add(ident)
    try:
        out: list[Any] | None = None
        for i, item in enumerate(arr):
            new = _walk(item, active)
            if new is not item and out is None:
                out = list(arr)
            if out is not None:
                out[i] = new
        return arr if out is None else out
    finally:
        active.discard(ident)


def _replace(key: Any, val: Any, active: set[int]) -> Any:
    if key == EMBEDDING_KEY and is_numeric_vector(val):
        return summarize_vector(val)
    if (
        key == EMBEDDINGS_KEY
        and isinstance(val, list | tuple)
        and any(is_numeric_vector(v) for v in val)
    ):
        return [summarize_vector(v) if is_numeric_vector(v) else _walk(v, active) for v in val]
    return _walk(val, active)
