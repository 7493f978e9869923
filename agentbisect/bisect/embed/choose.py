"""Choosing an embedder: ``mock``, ``wordllama``, ``cmd:COMMAND``, and the default between them.

Every embedder sits behind the same small interface (``id``, ``dimensions``, ``embed``,
``embed_batch``). Real embedders are wrapped in ``BatchingEmbedder``: the texts a localization
needs are handed over in one ``prefetch`` call (one process for ``cmd:``, one tokenizer pass for
wordllama), looked up first in memory, then in the on-disk vector cache, and only the misses are
embedded. The mock stays the upstream ``embeddingCache(mockEmbedder())``: its integer vectors are
cheaper to compute than to read back, and its bit-exact behaviour must not change.

Default (library and CLI alike): ``wordllama`` when the ``embed`` extra is installed, else
``mock`` with a one-line notice (``MOCK_NOTICE``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from agentbisect.bisect.embed.vectors import Embedder, EmbeddingCache, MockEmbedder, Vector
from agentbisect.core.errors import UsageError

if TYPE_CHECKING:
    from agentbisect.bisect.embed.cache import VectorCache

EMBEDDER_CHOICES = "mock | wordllama | cmd:COMMAND"
MOCK_NOTICE = (
    "note: scores use the mock embedder (character-count geometry proxies, not meaning); "
    "for real embeddings: pip install 'agentbisect[embed]'"
)


class _Inner(Protocol):
    id: str
    dimensions: int
    model_version: str

    def label(self) -> str: ...

    def embed_batch(self, texts: list[str]) -> Sequence[Vector]: ...


class BatchingEmbedder:
    """A real embedder with one-call batching, an in-memory map and the on-disk cache."""

    def __init__(self, inner: _Inner, cache: VectorCache | None) -> None:
        self.inner = inner
        self.id = inner.id
        self.cache = cache
        self.dimensions = inner.dimensions
        self._mem: dict[str, Vector] = {}

    def label(self) -> str:
        return self.inner.label()

    def prefetch(self, texts: list[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._mem))
        if not todo:
            return
        if self.cache is not None:
            dims = self.inner.dimensions or None
            found = self.cache.get_many(todo, dims)
            self._mem.update(found)
            todo = [t for t in todo if t not in found]
        if not todo:
            return
        vecs = self.inner.embed_batch(todo)
        self.dimensions = self.inner.dimensions
        fresh = dict(zip(todo, vecs, strict=True))
        self._mem.update(fresh)
        if self.cache is not None:
            self.cache.put_many(fresh)

    def embed(self, text: str) -> Vector:
        v = self._mem.get(text)
        if v is None:
            self.prefetch([text])
            v = self._mem[text]
        return v

    def embed_batch(self, texts: list[str]) -> list[Vector]:
        self.prefetch(texts)
        return [self._mem[t] for t in texts]


def embed_many(embedder: Embedder, texts: list[str]) -> list[Vector]:
    """Vectors for ``texts``, in one batch when the embedder can batch."""
    batch = getattr(embedder, "embed_batch", None)
    if batch is not None:
        out: list[Vector] = batch(texts)
        return out
    return [embedder.embed(t) for t in texts]


class ResolvedEmbedder(Struct):
    embedder: Embedder
    name: str  # mock | wordllama | cmd
    label: str  # what the report says produced the scores
    notice: str | None = None  # the one-line fallback notice, when the default fell back


def default_embedder_name() -> str:
    from agentbisect.bisect.embed.wordllama import wordllama_available

    return "wordllama" if wordllama_available() else "mock"


@functools.cache
def _wordllama() -> _Inner:
    """One WordLlama model per process: its tokenizer (~70 ms to parse) and table are loaded on
    first use and kept, so a process localizing many runs (``afp scan``'s suspects) loads them
    once."""
    from agentbisect.bisect.embed.wordllama import WordLlamaEmbedder

    return WordLlamaEmbedder()


def resolve_embedder(spec: str | None = None, *, use_cache: bool = True) -> ResolvedEmbedder:
    """Build the embedder ``spec`` names (None: the default, with its notice on fallback)."""
    notice = None
    if spec is None:
        spec = default_embedder_name()
        if spec == "mock":
            notice = MOCK_NOTICE
    if spec == "mock":
        return ResolvedEmbedder(EmbeddingCache(MockEmbedder()), "mock", "mock", notice)
    # numpy, the cache and the model files are loaded only for a real embedder: the mock path
    # (and so upstream parity) starts without numpy
    from agentbisect.bisect.embed.cache import VectorCache, cache_disabled_by_env

    use_cache = use_cache and not cache_disabled_by_env()
    inner: _Inner
    if spec == "wordllama":
        inner = _wordllama()
        name = "wordllama"
    elif spec.startswith("cmd:"):
        from agentbisect.bisect.embed.command import CommandEmbedder

        inner = CommandEmbedder(spec[4:])
        name = "cmd"
    else:
        raise UsageError(f"unknown embedder {spec!r}; choose from {EMBEDDER_CHOICES}")
    cache = VectorCache(inner.id, inner.model_version) if use_cache else None
    wrapped = BatchingEmbedder(inner, cache)
    return ResolvedEmbedder(wrapped, name, inner.label(), notice)
