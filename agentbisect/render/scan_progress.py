"""``afp scan``'s progress bar on stderr (only when stderr is a terminal): files done of the
files to read, runs per second, errors so far."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from agentbisect.render.console import stderr_console, stderr_is_terminal

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class ScanBar:
    """``start(files)`` sets the total; ``file(runs, errors)`` counts one file read."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self._progress = progress
        self._task = task
        self._runs = 0
        self._errors = 0
        self._since = time.monotonic()

    def start(self, files: int) -> None:
        self._since = time.monotonic()
        self._progress.update(self._task, total=files, completed=0)

    def file(self, runs: int, errors: int) -> None:
        self._runs += runs
        self._errors += errors
        rate = self._runs / max(time.monotonic() - self._since, 1e-6)
        self._progress.update(self._task, advance=1, rate=f"{rate:,.0f}", errors=self._errors)


@contextlib.contextmanager
def scan_progress() -> Iterator[ScanBar | None]:
    """A ``ScanBar`` drawing on stderr, or None when stderr is not a terminal."""
    if not stderr_is_terminal():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("scan", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[rate]} runs/s · {task.fields[errors]} errors"),
        console=stderr_console(),
        transient=True,
    )
    task = progress.add_task("scan", total=None, rate="0", errors=0)
    progress.start()
    try:
        yield ScanBar(progress, task)
    finally:
        progress.stop()
