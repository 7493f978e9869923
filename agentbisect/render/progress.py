"""The rerun progress bar on stderr (only when stderr is a terminal)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from agentbisect.render.console import stderr_console, stderr_is_terminal


def _short(probe: str) -> str:
    return probe if len(probe) <= 40 else probe[:39] + "…"


@contextlib.contextmanager
def rerun_progress(*, enabled: bool) -> Iterator[Callable[[str, int], None] | None]:
    """Yield an ``on_call(probe, seed)`` callback driving a progress bar, or None when off."""
    if not enabled or not stderr_is_terminal():
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("{task.completed} rerun(s)"),
        console=stderr_console(),
        transient=True,
    )
    task = progress.add_task("reruns", total=None)
    progress.start()

    def on_call(probe: str, seed: int) -> None:
        progress.update(task, advance=1, description=f"probe {_short(probe)} seed {seed}")

    try:
        yield on_call
    finally:
        progress.stop()
