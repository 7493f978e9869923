"""One number, one reading: the HTML page, the terminal table, the text report and the headline
round alike (JavaScript's ``toFixed``: ties half-up on the exact binary value, NaN as ``NaN``),
where Python's ``format``/``round`` go half-even and print ``nan``."""

from __future__ import annotations

import io
import math
import re

import msgspec
import pytest
from rich.console import Console

from agentbisect.analyses.overview import run_overview
from agentbisect.importers import open_run
from agentbisect.render import console as console_mod
from agentbisect.render.html import bisect_html
from agentbisect.render.tables import bisect as bisect_table
from agentbisect.render.text import format_report, stats_text
from agentbisect.results.bisect import bisect_result
from agentbisect.results.report import ContextBugReport, SimilarityStats
from tests.conftest import PLANTED, UPSTREAM

# Exact binary ties at the third decimal: 0.0625 = 1/16 and 0.8125 = 13/16. Python's "{:.3f}"
# prints 0.062 and 0.812 (half-even); toFixed prints 0.063 and 0.813.
TIES = SimilarityStats(mean=0.0625, min=float("nan"), max=0.8125, stdev=-0.0)


def _causal_report() -> ContextBugReport:
    doc = (UPSTREAM / "planted-fact.report.causal.json").read_bytes()
    report = msgspec.json.decode(doc, type=ContextBugReport)
    assert report.baseline is not msgspec.UNSET
    report.baseline.similarity = TIES
    ablated = next(s for s in report.suspects if s.runs is not msgspec.UNSET)
    assert ablated.runs is not msgspec.UNSET
    ablated.runs.similarity = TIES
    return report


def _table_text(report: ContextBugReport, monkeypatch: pytest.MonkeyPatch) -> str:
    screen = io.StringIO()
    fake = Console(file=screen, width=200, color_system=None, markup=False)
    monkeypatch.setattr(bisect_table, "stdout_console", lambda: fake)
    monkeypatch.setattr(console_mod, "stdout_console", lambda: fake)
    bisect_table.render_report(bisect_result(report))
    return screen.getvalue()


def test_the_stats_line_rounds_ties_and_nan_as_javascript() -> None:
    report = _causal_report()
    assert report.baseline is not msgspec.UNSET
    line = stats_text(report.baseline)
    assert line == "0/3 flipped · similarity 0.063 ± 0.000 [NaN, 0.813]"
    assert f"{TIES.mean:.3f}" == "0.062"  # the Python rounding the page used to print


def test_html_and_table_print_the_same_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _causal_report()
    assert report.baseline is not msgspec.UNSET
    want = stats_text(report.baseline)
    page = bisect_html(run_overview(open_run(str(PLANTED))), bisect_result(report))
    shown = _table_text(report, monkeypatch)
    assert f"baseline (no ablation): {want}" in shown
    assert f"baseline (no ablation): {want}" in page
    ablated = next(s for s in report.suspects if s.runs is not msgspec.UNSET)
    assert ablated.runs is not msgspec.UNSET
    assert f"reruns: {stats_text(ablated.runs)}" in page  # the ablated suspect's panel
    # No Python-rounded or Python-spelled number anywhere on the page.
    assert "0.062" not in page and "0.812" not in page and "nan" not in page


def test_the_headline_quotes_the_table_number_on_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _causal_report()
    s = report.suspects[0]
    s.score = 0.0625  # upstream ranking: the headline quotes the score (round() gave 0.062)
    res = bisect_result(report)
    assert res.score_text(0).startswith("score 0.063")
    assert "0.063" in format_report(res)
    # on the screen: the headline's number is the one in the table's first row
    lines = _table_text(report, monkeypatch).splitlines()
    first_row = next(line for line in lines if line.startswith("│ 1 "))
    assert "score 0.063≤" in lines[0]
    assert "0.063≤" in [cell.strip() for cell in first_row.split("│")]


def test_path_weights_in_the_page_round_as_the_tree() -> None:
    from agentbisect.render.html.paths import _weight
    from agentbisect.render.text import f3

    for w in (0.0625, 0.8125, 0.5, 1 / 3, math.nan):
        assert _weight(w) == f3(w)
    assert re.fullmatch(r"0\.063", _weight(0.0625))
