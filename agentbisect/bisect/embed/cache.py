"""The on-disk vector cache: a second ``afp bisect`` on the same run does not re-embed.

One small file per vector under ``$XDG_CACHE_HOME/agentbisect/vectors/`` (``~/.cache`` when the
variable is unset), named by a SHA-256 of (embedder id, model version, text). Only vectors are
stored, never the text: a cache directory reveals nothing about the recordings it served beyond
their number. Files are written atomically (temp file + rename), so concurrent runs never read a
torn vector; any unreadable or mis-sized file is treated as a miss. ``afp bisect``'s no-cache option or the
environment variable ``AGENTBISECT_NO_CACHE`` (any non-empty value but ``0``) turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from array import array
from collections.abc import Mapping
from pathlib import Path

from agentbisect.bisect.embed.vectors import Vector

NO_CACHE_ENV = "AGENTBISECT_NO_CACHE"
# little-endian float32 / float64 files, read back with the array module: a run served from the
# cache imports no numpy
_TYPECODE = {".f4": "f", ".f8": "d"}
_BIG = sys.byteorder == "big"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agentbisect" / "vectors"


def cache_disabled_by_env() -> bool:
    v = os.environ.get(NO_CACHE_ENV, "")
    return v not in ("", "0")


class VectorCache:
    """Vectors keyed by embedder, model version and a hash of the text."""

    def __init__(self, embedder_id: str, model_version: str, root: Path | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()
        self._prefix = f"{embedder_id}\0{model_version}\0".encode()
        self.write_errors = 0

    def _name(self, text: str) -> str:
        h = hashlib.sha256(self._prefix)
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def get_many(self, texts: list[str], dims: int | None) -> dict[str, Vector]:
        found: dict[str, Vector] = {}
        for t in texts:
            name = self._name(t)
            d = self.root / name[:2]
            for suffix, code in _TYPECODE.items():
                try:
                    data = (d / (name + suffix)).read_bytes()
                except OSError:
                    continue
                v = array(code)
                if len(data) % v.itemsize:
                    continue
                v.frombytes(data)
                if _BIG:
                    v.byteswap()
                if len(v) and (dims is None or len(v) == dims):
                    found[t] = v.tolist()
                    break
        return found

    def put_many(self, vectors: Mapping[str, Vector]) -> None:
        for t, v in vectors.items():
            dtype = getattr(v, "dtype", None)
            if dtype is not None and dtype.str == "<f4":
                suffix, data = ".f4", v.tobytes()  # type: ignore[union-attr]
            else:
                arr = array("d", [float(x) for x in v])
                if _BIG:
                    arr.byteswap()
                suffix, data = ".f8", arr.tobytes()
            name = self._name(t)
            d = self.root / name[:2]
            try:
                d.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
                try:
                    with os.fdopen(fd, "wb") as f:
                        f.write(data)
                    os.replace(tmp, d / (name + suffix))
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
                    raise
            except OSError:
                # a read-only or full cache directory must never fail a localization
                self.write_errors += 1
