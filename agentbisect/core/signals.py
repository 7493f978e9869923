"""SIGTERM and SIGHUP end ``afp`` the way Ctrl-C does: by an exception, so cleanup code runs.

Python's default for SIGTERM/SIGHUP is to die on the spot: rerun process groups would live on
under PID 1 and a half-written ``.NAME.*.tmp`` file would stay. Raising ``Terminated`` instead
unwinds through every ``finally`` (the rerun runner kills its groups, the atomic writer removes
its temp file); the CLI then exits with ``128 + signal number`` (143, 129), as a shell reports a
process killed by that signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """Raised in the main thread when afp receives SIGTERM or SIGHUP.

    A ``BaseException`` like ``KeyboardInterrupt``, so that ``except Exception`` cannot swallow it.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(self.name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class _Deferral:
    depth = 0  # > 0 inside `deferred()` blocks (main thread only: handlers run there)
    pending: int | None = None


_deferral = _Deferral()


def _raise(signum: int, frame: FrameType | None) -> None:
    # Further TERM/HUP during the cleanup this starts would cut the cleanup short: ignore them.
    for sig in HANDLED:
        signal.signal(sig, signal.SIG_IGN)
    if _deferral.depth:
        _deferral.pending = signum  # raised when the block ends
        return
    raise Terminated(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold ``Terminated`` back until the block ends: for steps that must not be cut in two,
    such as starting a rerun process and registering it for the kill-all."""
    _deferral.depth += 1
    try:
        yield
    finally:
        _deferral.depth -= 1
        if _deferral.depth == 0 and _deferral.pending is not None:
            signum, _deferral.pending = _deferral.pending, None
            raise Terminated(signum)


def install() -> dict[int, Any]:
    """Make SIGTERM/SIGHUP raise ``Terminated``; return the handlers they replaced.

    Does nothing outside the main thread (Python only runs handlers there).
    """
    old: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return old
    for sig in HANDLED:
        old[sig] = signal.getsignal(sig)
        signal.signal(sig, _raise)
    return old


@contextlib.contextmanager
def raising_on_termination() -> Iterator[None]:
    """Within the block, SIGTERM/SIGHUP raise ``Terminated``; the old handlers come back after."""
    old = install()
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
