"""Embedders (bisect.md §5.1, §5.2, §5.6) and cosine similarity (§5.3).

The mock embedder counts UTF-16 code units modulo ``dims``: integer vectors, so integer dot
products are exact and give the same doubles as upstream's left-to-right loop. Float vectors
(real embedders) go through an explicit left-to-right loop, as the spec demands.

numpy is imported only where it pays: counting code units when ``dims`` does not divide 256.
For the default 32 dimensions byte counting is as fast, and `afp bisect` on an ordinary
recording then starts without numpy's ~60 ms import.
"""

from __future__ import annotations

import math
from codecs import utf_16_le_encode
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    import numpy.typing as npt

# What an embedder returns: the mock's exact integer counts, or a real embedder's floats.
Vector: TypeAlias = "Sequence[int] | Sequence[float] | npt.NDArray[Any]"


class Embedder(Protocol):
    id: str
    dimensions: int

    def embed(self, text: str) -> Vector: ...


class MockEmbedder:
    """``mockEmbedder``: ``vec[charCodeAt(i) % dims] += 1`` over UTF-16 code units."""

    id = "mock"

    def __init__(self, dimensions: int = 32) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions <= 0:
            raise ValueError("mockEmbedder: dimensions must be a positive integer")
        self.dimensions = dimensions

    def embed(self, text: str) -> Vector:
        dims = self.dimensions
        if 256 % dims == 0:
            # unit % dims == (low byte) % dims when dims divides 256: count bytes, in C. An
            # ASCII text's code units are its ASCII bytes; otherwise the codec function is called
            # directly (str.encode's registry lookup imports encodings.utf_16_le, ~0.2 ms).
            keys = _byte_keys(dims)
            if text.isascii():
                low_bytes = text.encode("ascii")
            else:
                low_bytes = utf_16_le_encode(text, "surrogatepass")[0][0::2]
            low = low_bytes.translate(keys[0])
            return [low.count(k) for k in keys[1]]
        data = utf_16_le_encode(text, "surrogatepass")[0]
        import numpy as np

        units = np.frombuffer(data, dtype="<u2")
        counts: list[int] = np.bincount(units % dims, minlength=dims).tolist()
        return counts

    def embed_batch(self, texts: list[str]) -> list[Vector]:
        return [self.embed(t) for t in texts]


class EmbeddingCache:
    """``embeddingCache(inner)``: transparent, keyed by content; saves embed calls.

    Upstream keys by a hash of the text; an in-process dict keyed by the text itself finds the
    same entries (equal texts, equal keys) without hashing every text, and without importing
    hashlib (OpenSSL, ~2 ms at every start)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dimensions = inner.dimensions
        self._cache: dict[str, Vector] = {}

    def embed(self, text: str) -> Vector:
        got = self._cache.get(text)
        if got is None:
            got = self.inner.embed(text)
            self._cache[text] = got
        return got


_KEYS: dict[int, tuple[bytes, list[bytes]]] = {}


def _byte_keys(dims: int) -> tuple[bytes, list[bytes]]:
    """The table mapping a byte to itself modulo ``dims``, and the one-byte keys to count."""
    got = _KEYS.get(dims)
    if got is None:
        got = _KEYS[dims] = (bytes(b % dims for b in range(256)), [bytes([k]) for k in range(dims)])
    return got


def _as_list(v: Vector) -> list[Any]:
    return v if isinstance(v, list) else list(v.tolist()) if hasattr(v, "tolist") else list(v)


def cosine(a: Vector, b: Vector) -> float:
    """``dot / (sqrt(ma) * sqrt(mb))``; 0 for empty or zero vectors; unclamped."""
    if len(a) != len(b):
        raise ValueError("cosine: vectors differ in length (mixed embedders?)")
    if len(a) == 0:
        return 0.0
    dot: float
    ma: float
    mb: float
    xs, ys = _as_list(a), _as_list(b)
    if all(type(x) is int for x in xs) and all(type(y) is int for y in ys):
        # exact integers: the order of summation cannot matter
        dot = sum(x * y for x, y in zip(xs, ys, strict=True))
        ma = sum(x * x for x in xs)
        mb = sum(y * y for y in ys)
    else:
        dot = ma = mb = 0.0
        for x, y in zip(xs, ys, strict=True):
            dot += x * y
            ma += x * x
            mb += y * y
    if ma == 0 or mb == 0:
        return 0.0
    return dot / (math.sqrt(ma) * math.sqrt(mb))
