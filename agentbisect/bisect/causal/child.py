"""One user command run as a child in its own process group: the embedder command and the
rerun command start, are killed and are reported the same way."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

_TAIL_LINES = 15
_TAIL_CHARS = 1500


def start_in_group(argv: list[str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` with three pipes in a new session (raises ``OSError`` when it cannot)."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: killpg reaches every child
    )


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's whole process group (gone already: nothing to do)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def exit_reason(returncode: int) -> str:
    """How a child that did not exit 0 ended, for an error message."""
    if returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


def stderr_tail(data: bytes) -> str:
    """The last lines of what a child printed on stderr, for an error message."""
    text = data.decode("utf-8", "replace").rstrip()
    if not text:
        return "(stderr was empty)"
    return "\n".join(text.splitlines()[-_TAIL_LINES:])[-_TAIL_CHARS:]
