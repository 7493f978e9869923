"""What a second scan of the same DIR may reuse: the manifest (``manifest.parquet``: path,
size, mtime, content hash of every file read) and the settings and generation stamped in each
table's metadata.

A file whose path, size and mtime are unchanged keeps its rows without being opened; one whose
size or mtime changed is read and hashed, and keeps its rows when the hash is unchanged; new
and changed files are scanned; files no longer given or found are dropped. Tables written by
scans with other settings (``BISECT``, the embedder, afp's version), or by two scans that did
not finish together (their generations differ), are not reused: every file is read again.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

from msgspec import Struct, field

from agentbisect.scan.tables import META_KEY, TABLES, iter_rows, read_meta, table_path

FORMAT = 1  # the tables' layout; a new layout makes old tables a full rescan, never a mix


class Previous(Struct):
    """The previous scan's manifest: path -> (size, mtime_ns, sha256), when its rows can be
    reused; ``reason`` says why they cannot (None: nothing was there)."""

    entries: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    reason: str | None = None


def settings(bisect: bool, embedder: str | None) -> dict[str, Any]:
    from agentbisect.core.version import __version__

    return {"format": FORMAT, "afp": __version__, "bisect": bisect, "embedder": embedder}


def stamp(config: dict[str, Any]) -> tuple[dict[bytes, bytes], str]:
    """The metadata every table of this scan carries, and its generation."""
    generation = uuid.uuid4().hex
    value = json.dumps({"settings": config, "generation": generation}, sort_keys=True)
    return {META_KEY: value.encode()}, generation


def previous(directory: str, config: dict[str, Any]) -> Previous:
    """Read what DIR holds (every table checked to be afp scan's own: ``read_meta`` refuses a
    foreign file before anything is written) and the manifest, when its rows are reusable."""
    metas = {t: read_meta(table_path(directory, t)) for t in TABLES}
    man = metas["manifest"]
    if man is None:
        return Previous()
    info = _info(man)
    if info.get("settings") != config:
        return Previous(
            reason="the previous scan's settings differ (bisect, embedder or afp version)"
        )
    needed = ["runs", "calls", *(["suspects"] if config["bisect"] else [])]
    gen = info.get("generation")
    if any(metas[t] is None or _info(metas[t]).get("generation") != gen for t in needed):
        return Previous(
            reason="the previous scan's tables are not of one scan (it was interrupted)"
        )
    entries: dict[str, tuple[int, int, str]] = {}
    for batch in iter_rows(table_path(directory, "manifest")):
        cols = batch.to_pydict()
        for p, s, m, h in zip(
            cols["path"], cols["size"], cols["mtime_ns"], cols["sha256"], strict=True
        ):
            entries[p] = (s, m, h)
    return Previous(entries=entries)


def _info(meta: dict[bytes, bytes] | None) -> dict[str, Any]:
    try:
        info = json.loads((meta or {}).get(META_KEY, b"{}"))
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


def unchanged(path: str, prev: Previous) -> tuple[int, int, str] | None:
    """The manifest row of ``path`` when its size and mtime are what they were (not opened)."""
    entry = prev.entries.get(path)
    if entry is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return entry if (st.st_size, st.st_mtime_ns) == entry[:2] else None
