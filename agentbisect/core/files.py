"""Writing files safely: atomically (temp file, fsync, rename/link), never over an existing file
without ``force``, gzip with a fixed mtime so the same bytes always compress the same.

The rename replaces whatever inode was at the name. That is right for a regular file and wrong
for anything else: renaming over ``/dev/null``, a FIFO, a socket or a symlink would replace the
special file (or the link) itself. So only an absent name or a regular file is ever replaced,
whatever ``force`` says. A replaced file keeps its permission bits (and its owner and group where
the OS lets us); a new file gets ``0o666 & ~umask``, as any program's ``open()`` would give it.
"""

from __future__ import annotations

import contextlib
import gzip as _gzip
import os
import stat
import tempfile
import time

from agentbisect.core.errors import UsageError
from agentbisect.core.options import FORCE


def gzip_bytes(data: bytes) -> bytes:
    """gzip with mtime 0, so the same recording always compresses to the same bytes."""
    return _gzip.compress(data, compresslevel=6, mtime=0)


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISREG, "a regular file"),
)


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def check_target(path: str, *, force: bool) -> os.stat_result | None:
    """The ``lstat`` of the file ``path`` names, or ``None`` if nothing is there.

    Raises ``UsageError`` when ``path`` exists and is not a regular file (never replaced, with or
    without ``force``) or exists and ``force`` is off.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(
            f"{path} is {kind_of(st.st_mode)}, not a regular file; afp only replaces regular "
            f"files ({FORCE.flag} does not change that)"
        )
    if not force:
        raise UsageError(f"{path} exists; pass {FORCE.flag} to overwrite it")
    return st


def inherit(fd: int, old: os.stat_result | None) -> None:
    """Give the temp file open as ``fd`` the mode (and owner) the file it replaces had.

    ``old`` is ``None`` for a new file: then the umask decides. Set-id bits are not carried over
    (a recording is never executable code).
    """
    if old is None:  # the mode open(path, "w") would give a new file under the current umask
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        return
    # Owner first: chown clears set-id bits and, as non-root, may be refused (then we keep ours).
    if hasattr(os, "fchown"):
        with contextlib.suppress(PermissionError, OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)


WRITE_DELAY_ENV = "AFP_TEST_WRITE_DELAY"
"""Test hook: seconds to sleep half-way through writing the temp file (crash tests)."""


def write_atomic(path: str, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file, nothing, or all of it.

    The bytes go to a temp file in the same directory (same filesystem, so the final rename is
    atomic), are fsynced, then renamed into place; the directory is fsynced too. Without
    ``force`` an existing ``path`` is never replaced — the final step links instead of renames,
    which fails if something appeared at ``path`` meanwhile. Only a regular file is replaced
    (``check_target``); it keeps its mode (``inherit``), a new file follows the umask.
    """
    directory = os.path.dirname(os.path.abspath(path))
    old = check_target(path, force=force)
    tmp = ""
    try:
        # Made inside the `try` whose `finally` removes it: a SIGTERM (raised as an exception)
        # right after creation must not leave it behind.
        fd, tmp = _temp_file(path, directory)
        with os.fdopen(fd, "wb") as fh:
            half = len(data) // 2
            fh.write(data[:half])
            delay = os.environ.get(WRITE_DELAY_ENV)
            if delay:
                fh.flush()
                time.sleep(float(delay))
            fh.write(data[half:])
            fh.flush()
            inherit(fh.fileno(), old)
            os.fsync(fh.fileno())
        if force:
            # Whatever is at `path` now must still be a regular file (or nothing) to be replaced.
            check_target(path, force=True)
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise UsageError(f"{path} exists; pass {FORCE.flag} to overwrite it") from None
            except OSError:
                # Filesystems without hard links: fall back to a checked rename.
                if os.path.lexists(path):
                    raise UsageError(f"{path} exists; pass {FORCE.flag} to overwrite it") from None
                os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    _fsync_dir(directory)


def _temp_file(path: str, directory: str) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(
            prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
        )
    except FileNotFoundError:
        raise UsageError(f"cannot write {path}: directory {directory} does not exist") from None
    except PermissionError:
        raise UsageError(f"cannot write {path}: permission denied in {directory}") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


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


def temp_beside(path: str) -> str:
    """A new empty temp file in ``path``'s directory, for a writer that streams into a file of
    its own (a Parquet writer) before ``commit_temp`` renames it into place; the caller removes
    it if it never gets there. Its mode is what a new file at ``path`` would get."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = _temp_file(path, directory)
    try:
        inherit(fd, None)
    finally:
        os.close(fd)
    return tmp


def commit_temp(tmp: str, path: str) -> None:
    """Rename the finished temp file ``tmp`` over ``path`` (``write_atomic``'s last steps: fsync,
    only a regular file or nothing replaced, the directory fsynced)."""
    try:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        check_target(path, force=True)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    _fsync_dir(os.path.dirname(os.path.abspath(path)))
