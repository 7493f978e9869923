"""The ``wordllama`` embedder, read straight from the installed wheel's files — offline, always.

``wordllama`` (pinned: 0.4.0.post1, the ``embed`` extra) ships its 256-dimension token-embedding
table (``weights/l2_supercat_256.safetensors``) and its tokenizer (``tokenizers/…json``) inside
the package. Importing the package costs ~0.5 s (it pulls in a download stack) and its default
load path may reach for the network, so afp never imports it: it finds the package directory
without executing it, memory-maps the float16 table (safetensors is an 8-byte header length, a
JSON header, then raw little-endian data) and tokenizes with ``tokenizers``, the library
wordllama itself uses. The vector of a text is then computed exactly as ``WordLlama.embed`` does:
token rows as float32, average-pooled under the attention mask, in chunks of 64 texts padded to
the longest — the same numpy operations, so the floats are identical (a test checks it against
``WordLlama.embed``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import struct
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agentbisect.bisect.options import EMBEDDER
from agentbisect.core.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

PINNED_VERSION = "0.4.0.post1"
CONFIG = "l2_supercat"
DIM = 256
WEIGHTS = f"weights/{CONFIG}_{DIM}.safetensors"
TOKENIZER = f"tokenizers/{CONFIG}_tokenizer_config.json"
TENSOR_KEY = "embedding.weight"
BATCH = 64  # WordLlamaInference.embed's default batch_size
INSTALL_HINT = "pip install 'agentbisect[embed]'"


def wordllama_dir() -> Path | None:
    """The installed package's directory, found without importing (executing) it."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def wordllama_available() -> bool:
    """True when the wheel's weight and tokenizer files and ``tokenizers`` are installed."""
    d = wordllama_dir()
    if d is None or not (d / WEIGHTS).is_file() or not (d / TOKENIZER).is_file():
        return False
    try:
        return importlib.util.find_spec("tokenizers") is not None
    except (ImportError, ValueError):
        return False


def _installed_version(package_dir: Path) -> str:
    """The version setuptools-scm wrote into ``_version.py`` (read as text: importing the module
    would import the package; ``importlib.metadata`` costs ~10 ms of start-up)."""
    try:
        text = (package_dir / "_version.py").read_text(encoding="utf-8")
    except OSError:
        return "unknown"
    m = re.search(r"""^__version__ = version = ['"]([^'"]+)['"]""", text, re.M)
    return m.group(1) if m else "unknown"


_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def _numpy() -> ModuleType:
    """numpy, imported with OpenBLAS held to one thread unless the user chose a thread count.

    The default ``afp bisect`` imports numpy here first (the mock path never does), and at
    import OpenBLAS starts a thread per core: ~25 ms of CPU for a localization whose matrix work
    (pooling a few thousand token rows, 256-d cosines) is far too small to use them. The
    variable is read once, when the library loads, and removed again at once, so rerun commands
    and everything else inherit the user's own environment.
    """
    if "numpy" in sys.modules or any(k in os.environ for k in _BLAS_THREADS):
        return importlib.import_module("numpy")
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        return importlib.import_module("numpy")
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def _tensor_entry(path: Path) -> tuple[int, dict[str, Any]]:
    """The safetensors header's entry for the table (8-byte length, JSON header): read without
    numpy, so the dimensions are known before anything heavy is loaded."""
    with path.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    entry = header.get(TENSOR_KEY)
    shape = entry.get("shape") if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or not isinstance(shape, list) or len(shape) != 2:
        raise UsageError(
            f"{path}: no 2-d tensor {TENSOR_KEY!r} (is this wordllama {PINNED_VERSION}?)"
        )
    return 8 + n, entry


def _map_table(path: Path) -> np.ndarray:
    """The embedding table as a read-only float16 (or float32) memory map."""
    _numpy()
    import numpy as np

    base, entry = _tensor_entry(path)
    dtype = {"F16": "<f2", "F32": "<f4"}.get(entry.get("dtype", ""))
    begin, end = entry.get("data_offsets", (0, 0))
    if dtype is None:
        raise UsageError(f"{path}: unexpected tensor dtype {entry.get('dtype')!r}")
    table = np.memmap(path, dtype=dtype, mode="r", offset=base + begin, shape=tuple(entry["shape"]))
    if table.nbytes != end - begin:
        raise UsageError(f"{path}: tensor size does not match its header")
    return table


class WordLlamaEmbedder:
    """256-d WordLlama vectors (``l2_supercat``), computed from the installed wheel's files."""

    id = "wordllama"

    def __init__(self, package_dir: Path | None = None) -> None:
        d = package_dir if package_dir is not None else wordllama_dir()
        if d is None or not (d / WEIGHTS).is_file() or not (d / TOKENIZER).is_file():
            raise UsageError(
                f"{EMBEDDER.flag} wordllama needs the wordllama {PINNED_VERSION} files; "
                f"install them with: {INSTALL_HINT}"
            )
        self._dir = d
        # numpy, the tokenizer (~70 ms to parse) and the table are loaded on the first embedding:
        # a run whose vectors are all in the cache needs none of them
        self._table: Any = None
        self._tok: Any = None
        self.dimensions = int(_tensor_entry(d / WEIGHTS)[1]["shape"][1])
        self.version = _installed_version(d)
        self.model_version = f"{self.version}/{CONFIG}-{self.dimensions}"

    def label(self) -> str:
        return f"wordllama {self.version} ({CONFIG}, {self.dimensions}d)"

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    def _load(self) -> None:
        tokenizers: Any = importlib.import_module("tokenizers")
        self._table = _map_table(self._dir / WEIGHTS)
        tok = tokenizers.Tokenizer.from_file(str(self._dir / TOKENIZER))
        tok.enable_padding()
        tok.no_truncation()
        self._tok = tok

    def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
        _numpy()  # first: it decides how numpy's BLAS starts
        import numpy as np

        if self._tok is None:
            self._load()
        out: list[np.ndarray] = []
        vocab = self._table.shape[0]
        for i in range(0, len(texts), BATCH):
            chunk = texts[i : i + BATCH]
            enc = self._tok.encode_batch(chunk, is_pretokenized=False, add_special_tokens=False)
            ids = np.array([e.ids for e in enc], dtype=np.int32)
            mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
            np.clip(ids, 0, vocab - 1, out=ids)
            # as WordLlamaInference: the whole table is float32 there; gathering first and
            # converting the rows gives the same values without converting 32 000 rows
            x = self._table[ids].astype(np.float32)
            mask_sum = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
            pooled = np.sum(x * mask[..., np.newaxis], axis=1, dtype=np.float32) / mask_sum
            out.extend(pooled[j] for j in range(pooled.shape[0]))
        return out
