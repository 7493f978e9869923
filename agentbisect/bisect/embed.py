"""Embedders (bisect.md §5.1, §5.2, §5.6) and cosine similarity (§5.3).

The mock embedder counts UTF-16 code units modulo ``dims``: integer vectors, so a numpy integer
dot product is exact and gives the same doubles as upstream's left-to-right loop. Float vectors
(real embedders) go through an explicit left-to-right loop, as the spec demands.
"""

from __future__ import annotations

import hashlib
import math
from typing import Protocol

import numpy as np

__all__ = ["Embedder", "EmbeddingCache", "MockEmbedder", "cosine"]


class Embedder(Protocol):
    id: str
    dimensions: int

    def embed(self, text: str) -> np.ndarray: ...


class MockEmbedder:
    """``mockEmbedder``: ``vec[charCodeAt(i) % dims] += 1`` over UTF-16 code units."""

    id = "mock"
    max_input_chars = 1_000_000

    def __init__(self, dimensions: int = 32) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions <= 0:
            raise ValueError("mockEmbedder: dimensions must be a positive integer")
        self.dimensions = dimensions
        self.calls = 0

    def embed(self, text: str) -> np.ndarray:
        self.calls += 1
        units = np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype="<u2")
        return np.bincount(units % self.dimensions, minlength=self.dimensions).astype(np.int64)

    def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
        return [self.embed(t) for t in texts]


class EmbeddingCache:
    """``embeddingCache(inner)``: transparent, keyed by a content hash; saves embed calls."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dimensions = inner.dimensions
        self._cache: dict[bytes, np.ndarray] = {}

    def embed(self, text: str) -> np.ndarray:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        got = self._cache.get(key)
        if got is None:
            got = self.inner.embed(text)
            self._cache[key] = got
        return got


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """``dot / (sqrt(ma) * sqrt(mb))``; 0 for empty or zero vectors; unclamped."""
    if len(a) != len(b):
        raise ValueError("cosine: vectors differ in length (mixed embedders?)")
    if len(a) == 0:
        return 0.0
    dot: float
    ma: float
    mb: float
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        # exact integers: the order of summation cannot matter
        dot = int(np.dot(a, b))
        ma = int(np.dot(a, a))
        mb = int(np.dot(b, b))
    else:
        dot = ma = mb = 0.0
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            dot += x * y
            ma += x * x
            mb += y * y
    if ma == 0 or mb == 0:
        return 0.0
    return dot / (math.sqrt(ma) * math.sqrt(mb))
