"""The rerun progress bar on stderr (only when stderr is a terminal)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from agentbisect.render.console import stderr_console, stderr_is_terminal
from agentbisect.render.safetext import shorten

if TYPE_CHECKING:
    from rich.progress import ProgressColumn


def progress_columns(total: int | None, at_most: bool = False) -> list[ProgressColumn]:
    """The bar's columns: a plain count without a total; done/total (``≤`` for an upper bound)
    and the time left with one."""
    from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeRemainingColumn

    # The description quotes recorded step ids: never parse it as markup.
    described = TextColumn("{task.description}", markup=False)
    if total is None:
        return [SpinnerColumn(), described, TextColumn("{task.completed} rerun(s)", markup=False)]
    bound = "≤" if at_most else ""
    return [
        SpinnerColumn(),
        described,
        BarColumn(),
        TextColumn("{task.completed}/" + bound + "{task.total} reruns", markup=False),
        TimeRemainingColumn(),
    ]


@contextlib.contextmanager
def rerun_progress(
    *, enabled: bool, total: int | None = None, at_most: bool = False
) -> Iterator[Callable[[str, int], None] | None]:
    """Yield an ``on_call(probe, seed)`` callback driving a progress bar, or None when off.

    With ``total`` (reruns known in advance, or an upper bound with ``at_most``) the bar shows
    done/total and the time left; reruns beyond it (a follow-up search) turn it back into a
    plain count.
    """
    if not enabled or not stderr_is_terminal():
        yield None
        return
    from rich.progress import Progress

    columns = progress_columns(total, at_most)
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
