"""Page long terminal output through the user's pager, as ``git log`` does.

Only when stdout is a terminal and the output will not fit on one screen. The pager is
``$AFP_PAGER``, else ``$PAGER``, else ``less`` (when installed); an empty value or ``cat`` means
no pager. ``LESS=FRX`` is set unless the user has their own ``LESS``: quit when the text fits,
pass colours through, leave the text on screen afterwards. Lines are written to the pager as
they are made, so the first screen shows before the last row is built. Quitting the pager early
is not an error: writing simply stops.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO

from agentbisect.render.console import stdout_is_terminal

_SHELL_CHARS = frozenset("|&;<>()$`\\\"' \t\n*?[#~=%")


def pager_command() -> str | None:
    """The shell command to page with, or None for no pager."""
    for var in ("AFP_PAGER", "PAGER"):
        value = os.environ.get(var)
        if value is not None:
            value = value.strip()
            return None if value in ("", "cat") else value
    return "less" if shutil.which("less") else None


def terminal_size() -> tuple[int, int]:
    """(columns, lines) of stdout's terminal; ``COLUMNS``/``LINES`` win, 80×24 without one."""
    size = shutil.get_terminal_size((80, 24))
    return max(size.columns, 20), max(size.lines, 2)


def _colour_ok(command: str | None) -> bool:
    """Whether ANSI styling will reach the screen intact (NO_COLOR and less without -R say no)."""
    if "NO_COLOR" in os.environ or not stdout_is_terminal():
        return False
    if command is None or os.path.basename(command.split()[0]) != "less":
        return command is None
    flags = os.environ.get("LESS", "FRX") + " " + command
    return "R" in flags or "-r" in flags


@contextmanager
def paged(line_count: int, page: bool = True) -> Iterator[tuple[IO[str], bool]]:
    """A text stream for ``line_count`` lines, and whether it may carry colour (``page``
    False: never a pager, the ``NO_PAGER`` option).

    The stream is the pager's input when stdout is a terminal the lines do not fit on, else
    stdout. On leaving, waits for the pager to exit, so that what is printed next (warnings on
    stderr) lands below it rather than inside its screen.
    """
    command = pager_command() if page and stdout_is_terminal() else None
    if command is None or line_count < terminal_size()[1]:
        yield sys.stdout, _colour_ok(None)
        return
    colour = _colour_ok(command)
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    # The user's own command line, run as git runs core.pager: through the shell when it has
    # options or shell syntax, else executed directly — so that a pager that does not exist is
    # seen here (and the output printed without one) instead of swallowing every line.
    direct = not any(c in _SHELL_CHARS for c in command)
    try:
        proc = subprocess.Popen(
            [command] if direct else command,
            shell=not direct,
            stdin=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
        )
    except OSError as exc:
        sys.stderr.write(f"afp: cannot run the pager {command!r} ({exc.strerror}); not paging\n")
        yield sys.stdout, _colour_ok(None)
        return
    assert proc.stdin is not None
    try:
        yield proc.stdin, colour
    except BrokenPipeError:
        pass  # the user quit the pager before the end
    finally:
        with suppress(BrokenPipeError):
            proc.stdin.close()
        # ^C belongs to the pager while it runs (less uses it to stop a search); wait for it.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            proc.wait()
        finally:
            signal.signal(signal.SIGINT, previous)
