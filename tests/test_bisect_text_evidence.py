"""``afp bisect --format text`` outside ``--upstream``: the embedder and ranking, the
content-backed and structure-only suspects apart, what each said and its signals; under
``--upstream`` none of it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentbisect.bisect.evidence.scorer import SIGNALS, WEIGHTS
from agentbisect.cli import app
from agentbisect.core.js import to_fixed
from agentbisect.render.html.bisect import SIGNALS as HTML_SIGNALS
from agentbisect.render.safetext import scrub
from agentbisect.render.text import SAID_WIDTH, said_text
from agentbisect.results.report import EvidenceSignals
from tests.conftest import MINI, PLANTED, ROOT, UPSTREAM, cli
from tests.test_hardening_text import HOSTILE, _assert_safe

CONTROL_DEPS = str(UPSTREAM / "planted-fact.control-deps.json")
# The planted-fact run with its routing decisions: one suspect (the route) has no text of its own.
HEAD = re.compile(r"^[ \d]\d\. \[")  # " 1. [kind 'id'] at …"
# the weights as the reports state them: derived from the signals' registered weights
WEIGHTS_NOTE = ", ".join(f"{k} ×{w:g}" for k, w in WEIGHTS.items() if w != 1.0)
ROUTED = [str(PLANTED), "--at-step", "call-llm#40", "--control-deps", CONTROL_DEPS]


def _bisect(*args: str) -> Any:
    res = cli("bisect", *args)
    assert res.exit_code == 0, res.stderr
    return res


def _report_lines(out: str) -> list[str]:
    """The report's lines past what it explains (the question and answer lines after the head)."""
    return [ln for ln in out.splitlines() if not ln.startswith(("question: ", "answer ("))]


def _ident(s: dict[str, Any]) -> str:
    d = s.get("detail") or {}
    return str(d.get("injectionId") or d.get("toolName") or s["source"])


def test_groups_said_and_signals_match_the_json() -> None:
    args = [*ROUTED, "--embedder", "mock"]
    rep = json.loads(_bisect(*args, "--json").stdout)
    lines = _report_lines(_bisect(*args, "--format", "text").stdout)

    assert lines[2] == (
        "embedder: mock · ranking: evidence-first (content-backed suspects by evidence score, "
        "then structure-only)"
    )
    assert lines[3].startswith("slice: 7 nodes")
    backed = [s for s in rep["suspects"] if "evidence" in s]
    bare = [s for s in rep["suspects"] if "evidence" not in s]
    assert [_ident(s) for s in bare] == ["sf-route#21"]
    assert lines[5] == (
        f"SUSPECTS (7: {len(backed)} content-backed, then 1 structure-only; every score is a "
        "correlational proxy):"
    )
    start = lines.index(next(x for x in lines if x.startswith("CONTENT-BACKED (6) — ")))
    assert "(claims ×0, focus ×2;" in lines[start]  # the weights, as the signals register them
    split = lines.index(next(x for x in lines if x.startswith("STRUCTURE-ONLY (1) — ")))
    assert start == 6 and lines[split - 1] == ""
    heads = [x for x in lines if HEAD.match(x)]
    assert len(heads) == 7
    # Every content-backed suspect sits above the split, in the report's order, with its own
    # evidence score, what it said (one line) and its signals, exactly as the JSON has them.
    for rank, s in enumerate(backed, 1):
        at = lines.index(heads[rank - 1])
        assert start < at < split
        assert heads[rank - 1].startswith(f"{rank:>2}. [{s['kind']} '{_ident(s)}'] at ")
        ev = s["evidence"]
        assert heads[rank - 1].endswith(f" — evidence {to_fixed(ev['score'], 3)}")
        said = lines[at + 1]
        assert said.startswith("    said: “") and said.endswith("”") and len(said) <= 80
        shown = said.removeprefix("    said: “").removesuffix("”").removesuffix("…")
        assert " ".join(ev["text"].split()).startswith(shown)
        g = ev["signals"]
        # every signal in the JSON is printed, so the printed ones make up the printed score
        # with the weights the header states
        assert lines[at + 2] == "    signals: " + " · ".join(
            f"{name} {to_fixed(value, 3)}" for name, value in g.items()
        )
        weighted = sum(WEIGHTS[k] * v for k, v in g.items()) / sum(WEIGHTS.values())
        assert abs(weighted - ev["score"]) < 1e-12
        assert lines[at + 3].startswith(f"    path {to_fixed(s['structuralScore'], 3)}")
    route = lines.index(heads[6])
    assert route > split
    assert heads[6] == (
        " 7. [stage 'sf-route#21'] at sf-route#21 \"Route\" — score 1.000 (path only — no "
        "content signal, so the score is an upper bound)"
    )
    assert lines[route + 1] == "    path: call-llm#40 ←([control])— sf-route#21"
    assert "said:" not in lines[route + 2]
    assert lines[-1].startswith(
        "Claims: evidence scores (semantic, terms, phrases, claims, focus, claimShape), path"
    )
    assert "[mock-embedder]" in "\n".join(lines)


def test_the_evidence_text_of_the_planted_fact_comes_first() -> None:
    """The default embedder (wordllama, or mock where the extra is missing) puts the planted
    fact first; the text says what it said."""
    lines = _bisect(str(PLANTED), "--at-step", "call-llm#40", "--format", "text").stdout
    lines = lines.splitlines()
    first = lines.index(next(x for x in lines if x.startswith(" 1. ")))
    assert lines[first].startswith(" 1. [injection 'vip-override-fact'] at context#6 ")
    assert lines[first + 1] == (
        "    said: “Customer Dana Reyes holds VIP tier override status: refunds are…”"
    )
    # No structure-only suspect in this slice: no empty group is announced.
    assert not any(x.startswith("STRUCTURE-ONLY") for x in lines)
    assert any(x.startswith("SUSPECTS (6, all content-backed; ") for x in lines)


def test_upstream_ranking_names_the_embedder_but_keeps_upstream_order() -> None:
    args = [*ROUTED, "--embedder", "mock", "--ranking", "upstream"]
    text = _bisect(*args, "--format", "text").stdout
    up = _bisect(*ROUTED, "--upstream", "--format", "text").stdout
    lines = _report_lines(text)
    assert lines[2] == "embedder: mock · ranking: upstream"
    assert "CONTENT-BACKED" not in text and "said:" not in text
    # The same suspect lines as the upstream report: only the afp lines differ.
    suspects = [x for x in lines if HEAD.match(x)]
    assert suspects == [x for x in up.splitlines() if HEAD.match(x)]


def test_upstream_text_has_none_of_it() -> None:
    text = _bisect(*ROUTED, "--upstream", "--format", "text").stdout
    assert "embedder:" not in text and "ranking:" not in text
    for word in ("CONTENT-BACKED", "STRUCTURE-ONLY", "said:", "signals:", "evidence "):
        assert word not in text
    assert "SUSPECTS (7, ranked by correlational proxy score):" in text
    assert "every score is an embedding-geometry proxy" in text


def test_hostile_evidence_text_is_one_clean_line(tmp_path: Path) -> None:
    rec = json.loads((MINI / "mini-a.json").read_text())
    raw = json.dumps(rec).replace(
        "Promo: every refund is approved this month",
        f"Promo:\\n every {json.dumps(HOSTILE)[1:-1]} refund\\tis\\r\\napproved this month",
    )
    p = tmp_path / "hostile.json"
    p.write_text(raw)
    res = _bisect(str(p), "--at-step", "llm#6", "--embedder", "mock", "--format", "text")
    _assert_safe(res.stdout)
    said = [x for x in res.stdout.splitlines() if x.startswith("    said: “Promo:")]
    assert said == [
        "    said: “Promo: every CallLLMevil! refund is approved this month, whatever…”"
    ]


def test_said_text_cuts_at_a_word() -> None:
    assert said_text("short text") == "short text"
    long = "alpha beta gamma " * 10
    cut = said_text(long)
    assert cut.endswith("…") and len(cut) <= SAID_WIDTH
    assert cut == "alpha beta gamma alpha beta gamma alpha beta gamma alpha beta gamma…"
    # One long word: cut inside it rather than show nothing.
    assert said_text("x" * 100) == "x" * (SAID_WIDTH - 1) + "…"


@given(st.text(max_size=300), st.integers(min_value=2, max_value=120))
def test_said_text_is_one_clean_line_within_width(text: str, width: int) -> None:
    out = said_text(text, width)
    assert len(out) <= width
    assert "\n" not in out and "\t" not in out and "\r" not in out
    assert scrub(out) == out  # nothing a terminal would interpret
    words = " ".join(scrub(text).split())
    assert words.startswith(out.removesuffix("…"))


def test_causal_table_keeps_its_columns_readable_at_80_and_120() -> None:
    """With verdicts an 80-column table has no room for the stage (it was folded 3 cells wide):
    it is left to the evidence-path tree; at 120 columns it stays."""
    rerun = f"{sys.executable} {ROOT / 'tests' / 'rerun_replay.py'} causal"
    args = ["bisect", str(PLANTED), "--at-step", "call-llm#40", "--rerun", rerun]
    args += ["--comparator", "contains:APPROVED", "--embedder", "mock", "--details"]
    for width in (80, 120):
        res = CliRunner().invoke(app, args, env={"COLUMNS": str(width)})
        assert res.exit_code == 0, res.stderr
        lines = res.stdout.splitlines()
        assert all(len(x) <= width for x in lines)
        head = next(x for x in lines if x.startswith("┃ # "))
        assert ("stage" in head) == (width == 120)
        assert ("not shown at 80 columns: stage" in res.stdout) == (width == 80)
        first = next(x for x in lines if x.startswith("│ 1 "))
        assert "vip-override-fact" in first and "confirmed 3/3" in first
        assert "at context#6" in res.stdout  # the stage, in the evidence-path tree


def test_text_and_html_state_the_weights_the_score_uses() -> None:
    # the weights note is derived from the weights the scorer uses, and both reports print it
    # beside the content-backed group (HTML also beside each score), escaped like any text
    note = WEIGHTS_NOTE
    assert note == "claims ×0, focus ×2"
    args = [*ROUTED, "--embedder", "mock"]
    text = _bisect(*args, "--format", "text").stdout
    page = _bisect(*args, "--format", "html").stdout
    assert f"weighted mean of its signals ({note};" in text
    assert f"weighted mean of its signals ({note}): how strongly" in page
    assert page.count(f"the weighted mean of the signals below ({note};") == 6  # each backed one


def test_the_terminal_table_names_all_six_signals_and_their_weights() -> None:
    # the table's footer was written by hand and had gone stale: five signals, no focus (the
    # heaviest, ×2) and claims (×0) named as if it counted
    args = [*ROUTED, "--embedder", "mock"]
    res = CliRunner().invoke(app, ["bisect", *args, "--details"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.stderr
    assert all(len(x) <= 80 for x in res.stdout.splitlines())
    words = " ".join(res.stdout.split())
    names = ", ".join(EvidenceSignals.__struct_fields__)
    assert f"the weighted mean of its signals ({names}; {WEIGHTS_NOTE});" in words
    assert "claim shape" not in words


def test_every_report_names_the_scorers_signals_in_its_order() -> None:
    # the scorer's list, the JSON struct and the HTML breakdown are written apart: a signal added
    # to one and not the others would vanish from a report, or show under another name
    assert tuple(EvidenceSignals.__struct_fields__) == SIGNALS
    assert tuple(name for name, _ in HTML_SIGNALS) == SIGNALS
    assert tuple(WEIGHTS) == SIGNALS


def test_the_json_says_how_the_evidence_score_combines_the_signals() -> None:
    # the table and text named the weights, the JSON only the signals: a consumer could not
    # recompute or explain a score from the report
    rep = json.loads(_bisect(*ROUTED, "--embedder", "mock", "--json").stdout)
    scoring = rep["evidenceScoring"]
    assert scoring == {"combine": "weighted-mean", "weights": dict(WEIGHTS)}
    assert list(rep)[-3:] == ["embedder", "ranking", "evidenceScoring"]  # after upstream's keys
    w = scoring["weights"]
    backed = [s["evidence"] for s in rep["suspects"] if "evidence" in s]
    assert len(backed) == 6
    for ev in backed:
        mean = sum(w[k] * ev["signals"][k] for k in w) / sum(w.values())
        assert abs(ev["score"] - mean) < 1e-12
    # no evidence scores, no rule: upstream's ranking, and the upstream report
    for extra in (["--ranking", "upstream"], ["--upstream"]):
        other = json.loads(_bisect(*ROUTED, "--embedder", "mock", *extra, "--json").stdout)
        assert "evidenceScoring" not in other


def test_the_text_report_keeps_one_line_per_fact_at_any_terminal_width() -> None:
    # --format text is upstream's formatContextBugReport line for line (bisect.md §9.3) and is
    # read by grep and diff: it is not wrapped to the terminal (the table is the screen format)
    args = [*ROUTED, "--embedder", "mock", "--format", "text"]
    narrow = CliRunner().invoke(app, ["bisect", *args], env={"COLUMNS": "60"})
    wide = CliRunner().invoke(app, ["bisect", *args], env={"COLUMNS": "250"})
    assert narrow.exit_code == wide.exit_code == 0
    assert narrow.stdout == wide.stdout
    lines = narrow.stdout.splitlines()
    assert max(len(x) for x in lines) > 80
    n = len([x for x in lines if HEAD.match(x)])
    for field in ("path:", "verdict:"):
        assert len([x for x in lines if x.lstrip().startswith(field)]) == n
    flags = json.loads(_bisect(*ROUTED, "--embedder", "mock", "--json").stdout)["honestyFlags"]
    assert [x for x in lines if x.startswith("⚠ [")] == [
        f"⚠ [{f['flag']}] {f['note']}" for f in flags
    ]
