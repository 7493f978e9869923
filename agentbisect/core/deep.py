"""Decoding JSON that nests deeper than Python's default stack allows, without crashing.

msgspec recurses (even to skip a value), and real long runs nest their execution tree thousands
of levels deep: ``run_deep`` runs a decode on a thread with a large stack and a raised recursion
limit, and hands back its value or its exception.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

MAX_DEPTH = 100_000
# What the CLI lets its main thread recurse to (``__main__.py``; a library caller keeps its own
# limit): msgspec uses ~300 bytes of C stack per level and crashed between 20,000 and 30,000
# levels on an 8 MB stack. Recording parts decoded on the main thread (payloads, commit values)
# may nest this deep; deeper is a RecursionError, never a segfault.
MAIN_THREAD_DEPTH = 10_000
_STACK_BYTES = 512 * 1024 * 1024
_WORKER = "afp-decode"

T = TypeVar("T")


def run_deep(fn: Callable[..., T], *args: Any) -> T:
    """Call ``fn(*args)`` where deeply nested JSON can be decoded, re-raising what it raises."""
    if threading.current_thread().name == _WORKER:
        # Already there (a load decodes its parts through run_deep too): a nested worker would
        # race the outer call for the process-wide stack size and recursion limit, and could
        # leave them raised.
        return fn(*args)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    # The raised limit is only safe on the big-stack thread (the main thread's 8 MB stack could
    # recurse into a segfault): the caller's limit is back, exactly, once the worker is done. The
    # library leaves the interpreter as it found it; the CLI sets its own main-thread limit
    # (``__main__.py``: MAIN_THREAD_DEPTH).
    limit = sys.getrecursionlimit()
    if limit < MAX_DEPTH:
        sys.setrecursionlimit(MAX_DEPTH)
    worker = threading.Thread(target=target, name=_WORKER, daemon=True)
    try:
        old = threading.stack_size(_STACK_BYTES)  # (the size a thread gets when it starts)
        try:
            worker.start()
        except RuntimeError:
            # The stack could not be reserved (an address-space limit, ``ulimit -v``): out of
            # memory, said as such, not a bug. (Under ``prlimit --as=6G`` it starts.)
            raise MemoryError("no room for the decoding thread's stack") from None
        finally:
            threading.stack_size(old)
        while worker.is_alive():
            worker.join(0.25)  # short waits keep Ctrl-C responsive
    finally:
        if not worker.is_alive():
            sys.setrecursionlimit(limit)
    if "error" in box:
        raise box["error"]
    return box["value"]
