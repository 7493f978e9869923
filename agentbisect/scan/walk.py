"""The files ``afp scan PATH...`` reads: each PATH a file, a directory (walked recursively, its
regular files only, directory symlinks not followed) or a glob (``**`` included).

Paths are absolute (the key of the manifest, the same from any working directory), each once,
in a stable order: the order given, each directory's files sorted. A PATH given by name is
always one path, whatever is there (missing, a FIFO, a directory's worth of nothing): the scan
turns what cannot be read into a row with its error. Only files found inside a directory or by
a glob are filtered (not regular: skipped, never opened).
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterator

_MAGIC = frozenset("*?[")


def is_glob(path: str) -> bool:
    return any(c in _MAGIC for c in path)


def expand(paths: list[str], skip_dir: str | None = None) -> Iterator[str]:
    """Every file to scan, absolute, each once; files under ``skip_dir`` (the output directory)
    are never read as runs."""
    seen: set[str] = set()
    skip = os.path.abspath(skip_dir) if skip_dir is not None else None
    for given in paths:
        for path in _one(given, skip):
            if path not in seen:
                seen.add(path)
                yield path


def _one(given: str, skip: str | None) -> Iterator[str]:
    path = os.path.abspath(given)
    if is_glob(given) and not os.path.lexists(path):
        matches = sorted(glob.glob(given, recursive=True))
        if not matches:
            yield path  # a row saying no file is there: a pattern that matched nothing is news
        for m in matches:
            m = os.path.abspath(m)
            if os.path.isdir(m) and not os.path.islink(m):
                yield from _walk(m, skip)
            elif _regular(m) and not _inside(m, skip):
                yield m
        return
    if os.path.isdir(path):  # (a symlink to a directory given by name: the user asked for it)
        yield from _walk(path, skip)
    else:
        yield path


def _walk(top: str, skip: str | None) -> Iterator[str]:
    # os.walk does not descend into directory symlinks (followlinks=False); errors reading a
    # directory are skipped like unreadable subtrees in find(1), not fatal
    for root, dirs, files in os.walk(top):
        dirs.sort()
        if skip is not None:
            dirs[:] = [d for d in dirs if os.path.join(root, d) != skip]
        for name in sorted(files):
            full = os.path.join(root, name)
            if _regular(full):
                yield full


def _regular(path: str) -> bool:
    """A regular file (a symlink to one counts: the link is followed, never a directory's)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _inside(path: str, skip: str | None) -> bool:
    return skip is not None and os.path.commonpath([path, skip]) == skip
