"""Talk to one rerun process with a ceiling on what it may print.

``subprocess.communicate`` keeps everything a child prints; a rerun that prints 100 MB would hold
100 MB (twice, while decoding). Here stdout is kept up to ``AFP_MAX_RERUN_OUTPUT`` bytes (default
1 MiB): one byte more and the exchange stops, reported as ``overflowed``, so the caller fails the
rerun instead of judging cut text. Of stderr only the last ``STDERR_TAIL_BYTES`` are kept (enough
for the error message's tail).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from dataclasses import dataclass

from agentbisect.core.errors import UsageError

MAX_RERUN_OUTPUT_ENV = "AFP_MAX_RERUN_OUTPUT"
DEFAULT_MAX_RERUN_OUTPUT = 1 << 20  # 1 MiB
STDERR_TAIL_BYTES = 1 << 16
_READ = 1 << 16
_PIPE_WRITE = 1 << 14


def stdout_cap() -> int:
    """The ceiling on one rerun's stdout: ``AFP_MAX_RERUN_OUTPUT`` bytes or 1 MiB."""
    from agentbisect.core.inputbytes import parse_size

    return parse_size(MAX_RERUN_OUTPUT_ENV, DEFAULT_MAX_RERUN_OUTPUT)


@dataclass
class Exchange:
    """What one rerun printed: stdout (whole, or its first ``cap`` bytes) and stderr's tail."""

    stdout: bytes
    stderr_tail: bytes
    overflowed: bool


def exchange(
    proc: subprocess.Popen[bytes], data: bytes, *, timeout: float | None, cap: int
) -> Exchange:
    """Write ``data`` to ``proc``'s stdin, read its stdout (bounded) and stderr (tail), wait.

    Raises ``subprocess.TimeoutExpired`` when the process has not finished within ``timeout``
    seconds. Returns early, with ``overflowed`` set, when stdout passes ``cap`` bytes; the caller
    kills the process then. ``proc`` must have been started with all three pipes.
    """
    if proc.stdin is None or proc.stdout is None or proc.stderr is None:
        raise UsageError("internal: exchange() needs stdin, stdout and stderr pipes")
    deadline = None if timeout is None else time.monotonic() + timeout
    out = bytearray()
    err = bytearray()
    view = memoryview(data)
    written = 0
    with selectors.DefaultSelector() as sel:
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while sel.get_map():
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout or 0)
            for key, _ in sel.select(wait):
                f = key.fileobj
                if f is proc.stdin:
                    try:
                        written += os.write(
                            proc.stdin.fileno(), view[written : written + _PIPE_WRITE]
                        )
                    except BrokenPipeError:
                        written = len(data)  # it stopped reading: its answer decides
                    except BlockingIOError:
                        continue
                    if written >= len(data):
                        sel.unregister(f)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, _READ)
                if not chunk:
                    sel.unregister(f)
                    continue
                if f is proc.stdout:
                    out += chunk
                    if len(out) > cap:
                        return Exchange(bytes(out[:cap]), bytes(err[-STDERR_TAIL_BYTES:]), True)
                else:
                    err += chunk
                    if len(err) > 2 * STDERR_TAIL_BYTES:
                        del err[:-STDERR_TAIL_BYTES]
    wait = None if deadline is None else max(0.0, deadline - time.monotonic())
    proc.wait(wait)
    return Exchange(bytes(out), bytes(err[-STDERR_TAIL_BYTES:]), False)
