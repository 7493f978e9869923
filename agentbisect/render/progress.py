"""The rerun progress bar on stderr (only when stderr is a terminal)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from agentbisect.render.console import stderr_console, stderr_is_terminal
from agentbisect.render.safetext import shorten


@contextlib.contextmanager
def rerun_progress(
    *, enabled: bool, total: int | None = None
) -> Iterator[Callable[[str, int], None] | None]:
    """Yield an ``on_call(probe, seed)`` callback driving a progress bar, or None when off.

    With ``total`` (reruns known in advance) the bar shows done/total; reruns beyond it (a
    follow-up search) turn it back into a plain count.
    """
    if not enabled or not stderr_is_terminal():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    # The description quotes recorded step ids: never parse it as markup.
    described = TextColumn("{task.description}", markup=False)
    columns = (
        [SpinnerColumn(), described, TextColumn("{task.completed} rerun(s)")]
        if total is None
        else [SpinnerColumn(), described, BarColumn(), MofNCompleteColumn()]
    )
    progress = Progress(*columns, console=stderr_console(), transient=True)
    task = progress.add_task("reruns", total=total)
    progress.start()
    done = 0
    lock = threading.Lock()  # parallel reruns (--jobs) report from several threads

    def on_call(probe: str, seed: int) -> None:
        nonlocal done
        with lock:
            done += 1
            progress.update(task, advance=1, description=f"probe {shorten(probe, 40)} seed {seed}")
            if total is not None and done == total:
                progress.update(task, total=None)  # anything after this was not in the plan

    try:
        yield on_call
    finally:
        progress.stop()
