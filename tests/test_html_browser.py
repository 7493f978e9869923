"""The HTML report opened in headless Chromium: what a person checks when they open it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agentbisect.schema.genui import GenuiStats
from tests.conftest import GENUI, ROOT, UPSTREAM, cli
from tests.html_browser import Browser, Visit, chromium_browser  # noqa: F401  (the fixture)

HOSTILE = ROOT / "fixtures" / "hostile" / "xss-tools.recording.json"
REPLAY = ROOT / "tests" / "rerun_replay.py"


def _clean(v: Visit) -> None:
    """No console errors, no script errors, no request but the file itself."""
    assert v.console_errors == []
    assert v.page_errors == []
    assert v.foreign_requests() == []


@pytest.fixture(scope="module")
def causal_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``afp bisect --rerun … --format html -o`` as a real process on the planted-fact recording,
    its reruns answered from upstream's rerun log (so the verdicts are upstream's)."""
    out = tmp_path_factory.mktemp("html") / "planted-fact.html"
    rerun = f"{sys.executable} {REPLAY} causal"
    argv = [sys.executable, "-m", "agentbisect", "bisect"]
    # Relative, as a user types it (the path is shown in the page and its screenshot).
    argv += [os.path.relpath(UPSTREAM / "planted-fact.recording.json", ROOT)]
    argv += ["--at-step", "call-llm#40", "--rerun", rerun, "--comparator", "contains:APPROVED"]
    # the log replays upstream's probes, in upstream's order of suspects
    argv += ["--embedder", "mock", "--ranking", "upstream"]
    argv += ["--format", "html", "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    return out


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "hostile.html"
    res = cli("bisect", str(HOSTILE), "--at-llm", "-1", "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    return out


@pytest.fixture(scope="module")
def evidence_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The default (evidence-first) page of the planted-fact run with its routing decisions: six
    content-backed suspects and one structure-only (the route), plus the same report as JSON.
    The mock embedder keeps the order independent of the embed extra."""
    out = tmp_path_factory.mktemp("html") / "evidence.html"
    args = [str(UPSTREAM / "planted-fact.recording.json"), "--at-step", "call-llm#40"]
    args += ["--control-deps", str(UPSTREAM / "planted-fact.control-deps.json")]
    args += ["--embedder", "mock"]
    res = cli("bisect", *args, "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    rep = cli("bisect", *args, "--json")
    assert rep.exit_code == 0, rep.stderr
    return out, json.loads(rep.stdout)


def test_flags_banner_is_visible_first(browser: Browser, causal_page: Path) -> None:
    v = browser.open(causal_page)
    banner = v.page.locator("#flags")
    assert banner.is_visible()
    text = banner.inner_text()
    assert "untracked-sources" in text and "no-control-deps" in text
    # Before any evidence: the banner sits above the suspects and the timeline.
    top = banner.bounding_box()["y"]
    assert top < v.page.locator("#suspects").bounding_box()["y"]
    assert top < v.page.locator("#timeline").bounding_box()["y"]
    verdict = v.page.locator("#verdict").inner_text()
    assert "CAUSAL" in verdict
    # upstream's order puts the never-tested seed#0 first: the line marks its score as an upper
    # bound and names what the reruns confirmed instead of reading as a verdict on seed#0
    assert "seed#0 (score 0.923≤, not rerun-tested)" in verdict
    assert "confirmed: vip-override-fact" in verdict
    _clean(v)


def test_trigger_is_highlighted_on_the_timeline(browser: Browser, causal_page: Path) -> None:
    v = browser.open(causal_page)
    line = v.page.locator('#timeline rect.trig-line[data-step="call-llm#40"]')
    mark = v.page.locator('#timeline rect.mk-trigger[data-step="call-llm#40"]')
    assert line.count() == 1 and line.is_visible()
    assert mark.count() == 1 and mark.is_visible()
    # The highlight is drawn in the trigger colour, not the ordinary LLM-call colour.
    fill = mark.evaluate("e => getComputedStyle(e).fill")
    plain = v.page.locator("#timeline rect.mk-llm").first.evaluate("e => getComputedStyle(e).fill")
    assert fill != plain
    # Its LLM-call row is marked too.
    assert v.page.locator("#llm-calls tr.trigger").inner_text().split()[:2] == ["1", "call-llm#40"]
    _clean(v)


def test_first_suspect_and_its_evidence_are_shown(browser: Browser, causal_page: Path) -> None:
    v = browser.open(causal_page)
    first_row = v.page.locator("table.sus tbody tr").first
    assert first_row.inner_text().split()[:3] == ["1", "arg", "seed#0"]
    first = v.page.locator("#suspect-1")
    assert first.get_attribute("open") is not None
    evidence = first.locator(".evidence")
    assert evidence.is_visible()
    assert evidence.inner_text() == (
        "stage seed#0 (Initialize) feeds the trigger through systemPromptInjections ← iteration"
    )
    # The path graph runs from the trigger to the suspect's source.
    nodes = first.locator("svg g.node")
    assert nodes.count() == 3
    assert nodes.first.get_attribute("data-node") == "call-llm#40"
    assert nodes.last.get_attribute("data-node") == "seed#0"
    assert first.locator("svg").is_visible()
    _clean(v)


def test_clicking_a_suspect_shows_its_path(browser: Browser, causal_page: Path) -> None:
    v = browser.open(causal_page)
    second = v.page.locator("#suspect-2")
    assert not second.locator("svg").is_visible()
    v.page.locator('table.sus tbody tr[data-suspect="2"]').click()
    assert second.get_attribute("open") is not None
    assert v.page.locator("#suspect-1").get_attribute("open") is None
    svg = second.locator("svg")
    assert svg.is_visible()
    assert [n.get_attribute("data-node") for n in svg.locator("g.node").all()] == [
        "call-llm#40",
        "context#6",
    ]
    assert (
        "Customer Dana Reyes holds VIP tier override status"
        in second.locator(".evidence").inner_text()
    )
    assert "CAUSAL: ablating injection 'vip-override-fact' flipped the outcome in 3/3" in (
        second.locator(".claim").inner_text()
    )
    assert "sel" in (
        v.page.locator('table.sus tbody tr[data-suspect="2"]').get_attribute("class") or ""
    )
    _clean(v)


def test_the_open_suspect_path_is_outlined_on_the_timeline(
    browser: Browser, causal_page: Path
) -> None:
    v = browser.open(causal_page)
    outlined = "els => els.map(e => e.getAttribute('data-step') || e.getAttribute('data-stage'))"
    # Suspect #1 (seed#0 via context#6): only its trigger's LLM mark is on the timeline.
    assert v.page.locator("#timeline .onpath").evaluate_all(outlined) == ["call-llm#40"]
    # Suspect #5 (call-llm#18 through tool-calls#22): both calls are outlined.
    v.page.locator('table.sus tbody tr[data-suspect="5"]').click()
    assert sorted(v.page.locator("#timeline .onpath").evaluate_all(outlined)) == [
        "call-llm#18",
        "call-llm#40",
        "tool-calls#22",
    ]
    # Suspect #3 is a boundary (sf-cache#14): its bar is outlined.
    v.page.locator('table.sus tbody tr[data-suspect="3"]').click()
    assert "sf-cache#14" in v.page.locator("#timeline .onpath").evaluate_all(outlined)
    _clean(v)


def test_injected_markup_renders_as_text(browser: Browser, hostile_page: Path) -> None:
    v = browser.open(hostile_page)
    page = v.page
    assert page.evaluate("() => window.__pwned") is None
    # Only the page's own script element exists; no image, no javascript: link, no svg onload.
    assert page.evaluate("() => document.scripts.length") == 1
    assert page.evaluate("() => document.images.length") == 0
    assert page.locator('a[href^="javascript"]').count() == 0
    assert page.locator("[onerror], [onload]").count() == 0
    body = page.locator("body").inner_text()
    assert "Order K-2207 <script>window.__pwned='script'</script>" in body
    assert "onerror=\"window.__pwned='img'\">" in body
    assert "<a href=\"javascript:window.__pwned='link'\">click me</a>" in body
    assert 'mock"><svg onload="window.__pwned=\'model\'">' in body
    # The tool error that tries to close the table stays inside its cell.
    cell = page.locator("#tool-calls + table tbody tr").nth(1).locator("td").last
    assert cell.inner_text().startswith("policy service down <img")
    assert cell.inner_text().endswith("</td></tr></table><b>bold?</b>")
    # The injected fact is the evidence text of its suspect, verbatim.
    inj = page.locator("details.suspect", has_text="injection store-hours")
    inj.locator("summary").click()
    assert inj.locator(".evidence").inner_text() == (
        "Support desk <script>window.__pwned='script'</script> open 9am-6pm "
        "<a href=\"javascript:window.__pwned='link'\">click me</a>"
    )
    page.wait_for_timeout(200)  # give any stray handler a chance to fire
    assert page.evaluate("() => window.__pwned") is None
    _clean(v)


def test_readable_without_scripts(browser: Browser, causal_page: Path) -> None:
    v = browser.open(causal_page, scripts=False)
    page = v.page
    assert page.locator("#flags").is_visible()
    assert page.locator("#suspect-1 .evidence").is_visible()
    assert page.locator("#suspect-1 svg").is_visible()
    # <details> needs no script: clicking a suspect's summary opens its path.
    page.locator("#suspect-3 summary").click()
    assert page.locator("#suspect-3 svg").is_visible()
    assert page.locator('#timeline rect.mk-trigger[data-step="call-llm#40"]').is_visible()
    assert v.foreign_requests() == []


def test_long_lists_fold_with_counts(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentbisect.render.html.page as page_mod

    # 32 boundary passes: fold after 10 so that the fold shows on a small recording.
    monkeypatch.setattr(page_mod, "COLLAPSE_AFTER", 10)
    out = tmp_path / "agg.html"
    rec = str(UPSTREAM / "react-tools.recording.json")
    res = cli("aggregate", rec, "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    v = browser.open(out)
    more = v.page.locator("#boundaries details.more")
    assert more.locator("summary").inner_text() == "22 more boundary passes"
    hidden_row = more.locator("tbody tr").first
    assert not hidden_row.is_visible()
    v.page.locator("button[data-expand]").click()
    assert hidden_row.is_visible()
    assert v.page.locator("#boundaries tbody tr").count() == 32
    _clean(v)


def test_genui_page(browser: Browser, tmp_path: Path) -> None:
    stats = msgspec.json.decode((GENUI / "spec-8a.expected.json").read_bytes(), type=GenuiStats)
    out = tmp_path / "genui.html"
    res = cli("genui-stats", str(GENUI / "spec-8a.jsonl"), "--format", "html", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    v = browser.open(out)
    page = v.page
    assert page.locator("#first-try").inner_text().startswith("25.0%")
    assert page.locator("#trend svg rect.bar").count() == len(stats.by_day) == 2
    assert page.locator("#trend svg").is_visible()
    rows = page.locator("#errors tbody tr")
    assert rows.count() == len(stats.errors)
    assert rows.first.locator("td").first.inner_text() == str(stats.errors[0].count)
    _clean(v)


def test_screenshot_for_the_readme(browser: Browser, causal_page: Path, tmp_path: Path) -> None:
    """Keeps a screenshot of the report; with AFP_SCREENSHOT_DIR set it is copied there."""
    v = browser.open(causal_page, width=1280)
    shot = tmp_path / "html-report.png"
    v.page.screenshot(path=str(shot), full_page=False)
    v.page.locator('table.sus tbody tr[data-suspect="2"]').click()
    path_shot = tmp_path / "html-report-suspect.png"
    v.page.locator("#suspect-2").screenshot(path=str(path_shot))
    for png in (shot, path_shot):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        dest = os.environ.get("AFP_SCREENSHOT_DIR")
        if dest:
            shutil.copy(png, Path(dest) / png.name)
    _clean(v)


def test_attribution_section(browser: Browser, tmp_path: Path) -> None:
    """``--attribution surrogate`` with the ground-truth fake rerun command: the weights table
    puts the two planted sources first, and the page stays clean."""
    out = tmp_path / "attr.html"
    fake = f"{sys.executable} {ROOT / 'tests' / 'fake_rerun.py'} --truth or:promo-fact,lookup"
    res = cli(
        "bisect",
        str(ROOT / "fixtures" / "bisect" / "mini-a.json"),
        "--at-step",
        "llm#6",
        "--rerun",
        fake,
        "--comparator",
        "contains:APPROVED",
        "--original-output",
        "Refund APPROVED",
        "--attribution",
        "surrogate",
        "--masks",
        "16",
        "--format",
        "html",
        "-o",
        str(out),
    )
    assert res.exit_code == 0, res.stderr
    v = browser.open(out)
    section = v.page.locator("#attribution")
    assert section.is_visible()
    rows = section.locator("tbody tr")
    assert {rows.nth(i).locator("td").nth(2).inner_text() for i in range(2)} == {
        "promo-fact",
        "lookup",
    }
    assert "16 random ablation masks" in section.inner_text()
    assert "held-out R²" in section.inner_text()
    _clean(v)


def _ident(s: dict[str, Any]) -> str:
    d = s.get("detail") or {}
    return str(d.get("injectionId") or d.get("toolName") or s["source"])


def test_evidence_first_groups_and_what_the_first_suspect_said(
    browser: Browser, evidence_page: tuple[Path, dict[str, Any]]
) -> None:
    path, rep = evidence_page
    v = browser.open(path)
    page = v.page
    # The ranking and the embedder are named above the suspects.
    ranking = page.locator("#ranking").inner_text()
    assert "ranking evidence-first" in ranking and "embedder mock" in ranking
    backed = [s for s in rep["suspects"] if "evidence" in s]
    bare = [s for s in rep["suspects"] if "evidence" not in s]
    assert len(backed) == 6 and [_ident(s) for s in bare] == ["sf-route#21"]
    # One table, two groups apart: the content-backed heading, its rows in the report's order,
    # then the structure-only heading (labelled as upper bounds) and its row.
    rows = page.locator("table.sus tbody tr")
    kinds = rows.evaluate_all(
        "rs => rs.map(r => r.classList.contains('grp') ? r.id : r.getAttribute('data-suspect'))"
    )
    assert kinds == ["suspects-backed", "1", "2", "3", "4", "5", "6", "suspects-structure", "7"]
    head_backed = page.locator("#suspects-backed")
    head_bare = page.locator("#suspects-structure")
    assert head_backed.is_visible() and head_bare.is_visible()
    assert head_backed.inner_text().startswith("Content-backed (6)")
    assert head_bare.inner_text().startswith("Structure-only (1): upper bounds")
    assert head_backed.bounding_box()["y"] < head_bare.bounding_box()["y"]
    for rank, s in enumerate(backed, 1):
        cells = page.locator(f'table.sus tr[data-suspect="{rank}"] td').all_inner_texts()
        assert cells[2] == _ident(s)
        assert cells[4] == f"{s['evidence']['score']:.3f}"
        said = cells[6].removesuffix(" …")
        assert said and " ".join(s["evidence"]["text"].split()).startswith(said)
    route = page.locator('table.sus tr[data-suspect="7"] td').all_inner_texts()
    assert route[2] == "sf-route#21" and route[4] == "—" and route[5] == "≤ 1.000"
    # The first suspect's panel is open and shows the report's evidence text in full, its
    # evidence score and each of its five signals.
    first = page.locator("#suspect-1")
    assert first.get_attribute("open") is not None
    ev = backed[0]["evidence"]
    assert _ident(backed[0]) == "vip-override-fact"
    evidence = first.locator(".evidence")
    assert evidence.is_visible() and evidence.inner_text() == ev["text"]
    assert f"evidence {ev['score']:.3f}" in first.locator("summary").inner_text()
    signals = first.locator("table.signals tr")
    assert signals.evaluate_all("rs => rs.map(r => r.dataset.signal)") == [
        "semantic",
        "terms",
        "phrases",
        "claims",
        "focus",
        "claimShape",
    ]
    for i, name in enumerate(["semantic", "terms", "phrases", "claims", "focus", "claimShape"]):
        value = signals.nth(i).locator("td").first.inner_text()
        assert value == f"{ev['signals'][name]:.3f}"
    # The structure-only suspect says it has no text of its own and is an upper bound.
    page.locator('table.sus tr[data-suspect="7"]').click()
    seventh = page.locator("#suspect-7")
    assert seventh.get_attribute("open") is not None
    assert "No text of its own" in seventh.inner_text()
    assert "structure-only" in seventh.locator("summary").inner_text()
    assert "upper bound" in seventh.inner_text()
    # Clicking a group heading opens nothing and breaks nothing.
    head_bare.click()
    assert seventh.get_attribute("open") is not None
    _clean(v)


def test_evidence_page_fits_a_normal_window(
    browser: Browser, evidence_page: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """At 1280 and at 900 pixels the suspects table fits the window (no sideways scrolling) and
    identities are not broken inside a word."""
    path, _ = evidence_page
    for width in (1280, 900):
        v = browser.open(path, width=width)
        page = v.page
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        box = page.locator("table.sus").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        ident = page.locator('table.sus tr[data-suspect="1"] td.ident b')
        line = page.evaluate("() => parseFloat(getComputedStyle(document.body).lineHeight)")
        assert ident.bounding_box()["height"] < 1.5 * line  # "vip-override-fact" on one line
        shot = tmp_path / f"html-report-evidence-{width}.png"
        page.locator("#suspects").screenshot(path=str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if width == 1280 and os.environ.get("AFP_SCREENSHOT_DIR"):
            dest = Path(os.environ["AFP_SCREENSHOT_DIR"]) / "html-report-evidence.png"
            page.locator("#suspects table.sus").screenshot(path=str(dest))
        _clean(v)


def test_a_trace_report_reads_answer_first(browser: Browser, tmp_path: Path) -> None:
    """Issue 25: the verdict and the answer first, the flags one line that opens without a
    script, the suspects before the timeline with the matched passage marked; screenshots kept
    (copied to AFP_SCREENSHOT_DIR when set)."""
    out = tmp_path / "trace.html"
    trace = ROOT / "fixtures" / "otel" / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"
    res = cli("bisect", str(trace), "--format", "html", "-o", str(out), "--no-cache")
    assert res.exit_code == 0, res.stderr
    v = browser.open(out, scripts=False, width=1280)
    page = v.page
    assert (
        page.locator("#read").inner_text() == "OpenTelemetry trace, 3 LLM calls, content captured"
    )
    y = {k: page.locator(k).bounding_box()["y"] for k in ("#verdict", "#answer", "#suspects")}
    y["#timeline"] = page.locator("#timeline").bounding_box()["y"]
    assert y["#verdict"] < y["#answer"] < y["#suspects"] < y["#timeline"]
    flags = page.locator("#flags")
    assert flags.bounding_box()["height"] < 60  # one line, not a box above everything
    assert not page.locator("#flags li").first.is_visible()
    best = page.locator("table.sus mark.best").first
    assert best.is_visible() and best.inner_text().startswith("returned for a full refund")
    shots = [tmp_path / "html-bisect-trace.png", tmp_path / "html-bisect-trace-flags.png"]
    page.screenshot(path=str(shots[0]), full_page=False)
    page.locator("#flags summary").click()
    assert page.locator("#flags li").first.is_visible()
    flags.screenshot(path=str(shots[1]))
    for png in shots:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
        dest = os.environ.get("AFP_SCREENSHOT_DIR")
        if dest:
            shutil.copy(png, Path(dest) / png.name)
    assert v.foreign_requests() == []
    _clean(v)
