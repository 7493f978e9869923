"""Writing files safely: atomically (temp file, fsync, rename/link), never over an existing file
without ``force``, gzip with a fixed mtime so the same bytes always compress the same."""

from __future__ import annotations

import contextlib
import gzip as _gzip
import os
import tempfile
import time

from agentbisect.errors import UsageError


def gzip_bytes(data: bytes) -> bytes:
    """gzip with mtime 0, so the same recording always compresses to the same bytes."""
    return _gzip.compress(data, compresslevel=6, mtime=0)


WRITE_DELAY_ENV = "AFP_TEST_WRITE_DELAY"
"""Test hook: seconds to sleep half-way through writing the temp file (crash tests)."""


def write_atomic(path: str, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file, nothing, or all of it.

    The bytes go to a temp file in the same directory (same filesystem, so the final rename is
    atomic), are fsynced, then renamed into place; the directory is fsynced too. Without
    ``force`` an existing ``path`` is never replaced — the final step links instead of renames,
    which fails if something appeared at ``path`` meanwhile.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not force and os.path.lexists(path):
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    try:
        fd, tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
        )
    except FileNotFoundError:
        raise UsageError(f"cannot write {path}: directory {directory} does not exist") from None
    except PermissionError:
        raise UsageError(f"cannot write {path}: permission denied in {directory}") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            half = len(data) // 2
            fh.write(data[:half])
            delay = os.environ.get(WRITE_DELAY_ENV)
            if delay:
                fh.flush()
                time.sleep(float(delay))
            fh.write(data[half:])
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise UsageError(f"{path} exists; pass --force to overwrite it") from None
            except OSError:
                # Filesystems without hard links: fall back to a checked rename.
                if os.path.lexists(path):
                    raise UsageError(f"{path} exists; pass --force to overwrite it") from None
                os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
