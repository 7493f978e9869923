"""What an output path may be, and what a written file inherits: the rules of every file afp writes.

afp writes files by renaming a finished temp file over the name, which replaces whatever inode was
there. That is right for a regular file and wrong for anything else: renaming over ``/dev/null``,
a FIFO, a socket or a symlink would replace the special file (or the link) itself. So only an
absent name or a regular file may be replaced, whatever ``--force`` says. A replaced file keeps
its permission bits (and its owner and group where the OS lets us); a new file gets
``0o666 & ~umask``, as any program's ``open()`` would give it.
"""

from __future__ import annotations

import contextlib
import os
import stat

from agentbisect.errors import UsageError

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


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
            f"{path} is {kind_of(st.st_mode)}; afp only replaces regular files "
            "(--force does not change that): choose a regular file path"
        )
    if not force:
        raise UsageError(f"{path} exists; pass --force to overwrite it")
    return st


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file under the current umask."""
    return 0o666 & ~umask()


def inherit(fd: int, old: os.stat_result | None) -> None:
    """Give the temp file open as ``fd`` the mode (and owner) the file it replaces had.

    ``old`` is ``None`` for a new file: then the umask decides. Set-id bits are not carried over
    (a recording is never executable code).
    """
    if old is None:
        os.fchmod(fd, new_file_mode())
        return
    # Owner first: chown clears set-id bits and, as non-root, may be refused (then we keep ours).
    if hasattr(os, "fchown"):
        with contextlib.suppress(PermissionError, OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)
