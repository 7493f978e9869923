"""The rerun progress total is exact before the reruns start (issue 10): the planned count equals
the reruns made, for every tier that does not adapt to the answers; the adaptive searches plan a
bound they never exceed; and the bar on a real terminal shows ``done/total`` without ``≤``."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

import pytest

from agentbisect.bisect.causal.probes import (
    MissingContext,
    RerunOptions,
    bisect_culprits,
    culprit_candidates,
    culprit_search_bound,
    sequential,
)
from agentbisect.bisect.causal.surrogate import SurrogateOptions, run_surrogate
from agentbisect.bisect.embed.vectors import EmbeddingCache, MockEmbedder
from agentbisect.bisect.pipeline.localize import localize
from agentbisect.importers import open_run
from agentbisect.model.run import Run
from tests.conftest import FIXTURES, MINI, PLANTED, afp_on_a_terminal
from tests.helpers import rerun_until_approved
from tests.surrogate_cases import approved_changed, context_suspects

ORIGINAL = "Refund APPROVED"


class Counter:
    def __init__(self, answer: Any = ORIGINAL) -> None:
        self.calls = 0
        self.answer = answer

    def __call__(self, payload: dict[str, Any], seed: int, probe: str) -> Any:
        self.calls += 1
        return self.answer(payload, seed) if callable(self.answer) else self.answer


CASES = [
    (str(MINI / "mini-a.json"), "llm#6"),
    (str(PLANTED), None),
    # an imported trace: its stage suspects get a rerun spec after ranking (name_sources)
    (str(FIXTURES / "otel" / "openinference.tool-planted.otlp.json"), None),
]


@pytest.mark.parametrize(("path", "step"), CASES)
@pytest.mark.parametrize("max_ablations", [0, 1, 2, 5, 50])
@pytest.mark.parametrize("samples", [2, 3])
@pytest.mark.parametrize("missing", [False, True])
def test_the_planned_count_is_the_number_of_reruns(
    path: str, step: str | None, max_ablations: int, samples: int, missing: bool
) -> None:
    run: Run = open_run(path)
    runner = Counter()
    rerun = RerunOptions(
        runner=sequential(runner),
        original_output=ORIGINAL,
        samples=samples,
        max_suspects=max_ablations,
        outcome_changed=approved_changed,
    )
    mc = (
        MissingContext(
            available=[{"id": "a"}, {"id": "b"}, {"id": "a"}, {"id": "c"}],
            sent=[{"id": "b"}],
            runner=sequential(runner),
            original_output=ORIGINAL,
            samples=samples,
        )
        if missing
        else None
    )
    plans: list[int] = []
    localize(
        run,
        at_step=step or run.llm_call_ids[-1],
        embedder="mock",
        rerun=rerun,
        missing_context=mc,
        on_plan=plans.append,
    )
    assert plans == [runner.calls]  # one plan, before the first rerun, and exact
    assert runner.calls >= samples * (2 if missing else 1)


def test_the_plan_comes_before_the_first_rerun() -> None:
    events: list[str] = []
    rerun = RerunOptions(
        runner=sequential(lambda p, s, probe: events.append("call") or ORIGINAL),
        original_output=ORIGINAL,
    )
    run = open_run(str(PLANTED))
    localize(
        run,
        at_step=run.llm_call_ids[-1],
        embedder="mock",
        rerun=rerun,
        on_plan=lambda n: events.append(f"plan {n}"),
    )
    assert events[0].startswith("plan ") and events[1:] == ["call"] * int(events[0][5:])


@pytest.mark.parametrize("culprit", [None, 0, 3])
@pytest.mark.parametrize("n", [1, 3, 8])
def test_culprit_search_stays_within_its_bound(n: int, culprit: int | None) -> None:
    suspects = context_suspects(n)
    bad = None if culprit is None or culprit >= n else f"s{culprit:02d}"

    def answer(payload: dict[str, Any], seed: int) -> str:
        ids = {i for s in payload["specs"] for i in s.get("excludeInjectionIds", [])}
        return "Refund declined" if bad in ids else ORIGINAL

    runner = Counter(answer)
    rerun = RerunOptions(
        runner=sequential(runner), original_output=ORIGINAL, outcome_changed=approved_changed
    )
    result = bisect_culprits(suspects, rerun, EmbeddingCache(MockEmbedder()))
    assert runner.calls == result.runsUsed
    assert 0 < runner.calls <= culprit_search_bound(len(culprit_candidates(suspects)), 3)
    # One candidate: the baseline and the whole set are every subset there is.
    assert culprit_search_bound(1, 3) == 6 and culprit_search_bound(40, 2) == 48


@pytest.mark.parametrize("n", [0, 4])
def test_the_surrogate_plans_its_masks_exactly(n: int) -> None:
    suspects = context_suspects(n)
    runner = Counter()
    rerun = RerunOptions(
        runner=sequential(runner), original_output=ORIGINAL, outcome_changed=approved_changed
    )
    plans: list[tuple[int, bool, str]] = []
    run_surrogate(
        suspects,
        rerun,
        EmbeddingCache(MockEmbedder()),
        SurrogateOptions(masks=16, culprits=False),
        on_plan=lambda k, exact, phase: plans.append((k, exact, phase)),
    )
    assert plans == [(runner.calls, True, "surrogate")]
    assert runner.calls == 3 + (16 if n else 0)


def test_the_bar_shows_an_exact_total_and_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from agentbisect.render import progress

    screen = io.StringIO()
    fake = Console(file=screen, force_terminal=True, width=120)
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: True)
    monkeypatch.setattr(progress, "stderr_console", lambda: fake)
    with progress.rerun_progress(enabled=True) as bar:
        assert bar is not None
        bar.plan(6, True, "leave-one-out")
        bar.call("baseline", 0)
        bar.call("baseline", 1)
        time.sleep(0.3)  # let the bar refresh once
        bar.plan(12, False, "culprit search")
        bar.call("ctx#1", 0)
        time.sleep(0.3)
    shown = screen.getvalue()
    assert "2/6 reruns" in shown and "≤6" not in shown
    assert "leave-one-out: probe baseline seed 1" in shown
    assert "1/≤12 reruns" in shown
    assert re.search(r"-:--:--|\d+:\d\d:\d\d", shown)  # the time-left column is drawn


def _stderr_on_a_terminal(args: list[str]) -> tuple[int, str]:
    code, shown, _ = afp_on_a_terminal(*args)
    return code, shown.decode("utf-8", "replace")


def test_a_real_rerun_shows_the_exact_total(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    answer = tmp_path / "answer.py"
    # Each rerun lingers a little, so the bar (a few refreshes a second) draws the counts.
    answer.write_text(
        "import sys, time\n"
        f"open({str(log)!r}, 'a').write('x')\n"
        "sys.stdin.read(); time.sleep(0.15)\n"
        "print('Refund APPROVED')\n"
    )
    code, shown = _stderr_on_a_terminal(
        [
            "bisect",
            str(MINI / "mini-a.json"),
            "--at-step",
            "llm#6",
            *rerun_until_approved(answer),
            "--max-ablations",
            "2",
            "--samples",
            "2",
            "--json",
        ]
    )
    assert code == 0, shown
    made = len(log.read_text())
    assert made == 2 * (1 + 2)
    totals = set(re.findall(r"\d+/(≤?\d+) reruns", shown))
    assert totals == {str(made)}, shown  # exact from the first draw: never ≤, never another


def test_a_long_probe_is_cut_before_the_seed_and_count_at_80_columns() -> None:
    # A 57-character probe once cut the seed and the count ("see… 5/≤12 reru…") and pushed the
    # spinner and the bar off an 80-column line; the probe gives way first now.
    from rich.console import Console
    from rich.progress import Progress

    from agentbisect.render.progress import RerunBar, progress_columns

    screen = io.StringIO()
    con = Console(file=screen, width=80, force_terminal=False, color_system=None)
    p = Progress(*progress_columns(), console=con, auto_refresh=False)
    bar = RerunBar(p, p.add_task("reruns", total=None, bound=""))
    bar.plan(12, False, "culprit search")
    for _ in range(5):
        bar.call("execute_tool:get_refund_policy#5+retrieval:northwind-kb#1", 2)
    con.print(p.make_tasks_table(p.tasks))
    (line,) = screen.getvalue().splitlines()
    assert len(line.rstrip()) <= 80
    assert "culprit search: probe execute_tool" in line and "…" in line
    assert " seed 2 " in line and "5/≤12 reruns" in line and "━" in line
