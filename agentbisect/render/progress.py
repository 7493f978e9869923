"""The rerun progress bar on stderr (only when stderr is a terminal)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from agentbisect.render.console import stderr_console, stderr_is_terminal
from agentbisect.render.safetext import scrub, shorten

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, TaskID

MIN_BAR = 10  # what the bar keeps at least (rich narrows it, down to nothing, before the text)
TIME_WIDTH = len("≤0:00:00")  # the time-left column at its widest (a bounded phase)


def progress_columns() -> list[ProgressColumn]:
    """Spinner, phase and probe, bar, ``done/total reruns`` (``done/≤total`` for a bound) and
    the time left (``≤`` likewise); a plain count while no total is known."""
    from rich.progress import BarColumn, SpinnerColumn, Task, TextColumn, TimeRemainingColumn
    from rich.text import Text

    def unplanned(task: Task) -> bool:  # no total yet, or more reruns than planned
        return task.total is None or task.completed > task.total

    class Count(TextColumn):
        def render(self, task: Task) -> Text:
            tokens = task.fields.get("tokens")
            used = f" · {tokens:,} tokens" if tokens else ""  # replay: what the endpoint counted
            if unplanned(task):
                return Text(f"{task.completed:g} rerun(s){used}")
            bound = task.fields.get("bound", "")
            return Text(f"{task.completed:g}/{bound}{task.total:g} reruns{used}")

    class Left(TimeRemainingColumn):
        def render(self, task: Task) -> Text:
            if unplanned(task):
                return Text("")
            left = super().render(task)
            bound = task.fields.get("bound", "")
            return Text(bound) + left if bound else left

    # The description quotes recorded step ids: never parse it as markup.
    return [
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        Count(""),
        Left(),
    ]


class RerunBar:
    """Drives the bar: ``plan`` starts a phase with its rerun count, ``call`` counts one rerun.

    A phase whose count is exact (the leave-one-out and restoration tiers, the surrogate's
    masks) shows ``done/total`` and the time left; a bounded one (the culprit and set searches,
    whose next probe depends on the answers) shows ``done/≤bound`` and ``≤`` time left. Reruns
    past a phase's count (a caller that planned wrong) turn the bar into a plain count rather
    than show more done than planned.
    """

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self._progress = progress
        self._task = task
        self._lock = (
            threading.Lock()
        )  # parallel reruns (afp bisect's jobs) report from several threads
        self._done = 0
        self._phase = "reruns"
        self._total = 0
        self._tokens = 0

    def plan(self, reruns: int, exact: bool, phase: str) -> None:
        with self._lock:
            self._done, self._phase, self._total = 0, phase, reruns
            self._progress.reset(
                self._task,
                total=reruns,
                completed=0,
                description=phase,
                bound="" if exact else "≤",
            )

    def call(self, probe: str, seed: int) -> None:
        with self._lock:
            self._done += 1
            self._progress.update(
                self._task,
                completed=self._done,
                description=self._describe(probe, seed),
            )

    def tokens(self, used: int) -> None:
        """Count tokens a replay request used (shown beside the count, across phases)."""
        with self._lock:
            self._tokens += used
            self._progress.update(self._task, tokens=self._tokens)

    def _describe(self, probe: str, seed: int) -> str:
        """``phase: probe P seed S``, the probe cut to what the line has left once the spinner,
        a short bar, the count and the time have theirs: a 40-character probe at 80 columns cut
        the seed and the count instead ("see… 5/≤12 reru…") and squeezed out spinner and bar."""
        head, tail = f"{self._phase}: probe ", f" seed {seed}"
        count = len(f"{self._total}/≤{self._total} reruns")
        # one column of padding after each of the spinner, description, bar and count
        fixed = 1 + 1 + len(head) + len(tail) + 1 + MIN_BAR + 1 + count + 1 + TIME_WIDTH
        room = self._progress.console.width - fixed
        return f"{head}{shorten(probe, max(8, min(40, room)))}{tail}"


@contextlib.contextmanager
def rerun_progress(*, enabled: bool) -> Iterator[RerunBar | None]:
    """Yield a ``RerunBar`` drawing on stderr, or None when off (no reruns, not a terminal)."""
    if not enabled or not stderr_is_terminal():
        yield None
        return
    from rich.progress import Progress

    progress = Progress(*progress_columns(), console=stderr_console(), transient=True)
    task = progress.add_task("reruns", total=None, bound="")
    progress.start()
    try:
        yield RerunBar(progress, task)
    finally:
        progress.stop()


def replay_plan(
    on_plan: Callable[[int, bool, str], None] | None, endpoint: str
) -> Callable[[int, bool, str], None]:
    """``on_plan`` that first says on stderr how many replay requests a phase plans (always, not
    only on a terminal: a replay costs money), ``≤`` for a bound; ``endpoint`` as shown (no
    credentials, no query string)."""

    def plan(requests: int, exact: bool, phase: str) -> None:
        bound = "" if exact else "at most "
        sys.stderr.write(
            scrub(
                f"afp: replay: {phase}: {bound}{requests} request(s) planned to {endpoint} "
                "(answers in the response cache are not sent again)"
            )
            + "\n"
        )
        sys.stderr.flush()
        if on_plan is not None:
            on_plan(requests, exact, phase)

    return plan
