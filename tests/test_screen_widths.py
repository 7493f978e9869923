"""Tables at 80 and 120 columns (issue 10, readable screens): no line wider than the terminal,
and no identifier — a step id, tool or model name, a suspect's identity, a verdict — broken
mid-word. Run over every recording and trace fixture; what a narrow terminal leaves out, the
table says it left out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from agentbisect.render.fit import Col, column_widths
from tests.conftest import FIXTURES, MINI, UPSTREAM, cli
from tests.helpers import rerun_until_approved

INPUTS = sorted(
    [
        *UPSTREAM.glob("*.recording.json"),
        UPSTREAM / "demo-turn.json",
        *MINI.glob("*.json"),
        *(
            p
            for p in (FIXTURES / "otel").glob("*.json*")
            if ".truth." not in p.name and ".logs." not in p.name
        ),
        FIXTURES / "hostile" / "xss-tools.recording.json",
    ]
)
WIDTHS = [80, 120]
SANS_MOCK_NOTICE = {"AGENTBISECT_DEFAULT_EMBEDDER": "mock"}


def _run(width: int, *args: str) -> str:
    res = cli(*args, env={"COLUMNS": str(width), "LINES": "50"})
    assert res.exit_code == 0, res.stderr
    return str(res.stdout)


def _too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if cell_len(line) > width]


def _left_out(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.startswith("not shown at"))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_aggregate_tables_fit_and_keep_identifiers_whole(path: Path, width: int) -> None:
    shown = _run(width, "aggregate", str(path), "--all")  # every rollup row
    assert not _too_wide(shown, width)
    doc = json.loads(_run(width, "aggregate", str(path), "--json"))
    dropped = _left_out(shown)
    words: set[str] = set()
    if "calls" in doc:  # imported runs: the calls table
        for c in doc["calls"]:
            words.add(c["step"])
            if "model / tool" not in dropped:
                words.add(c.get("model") or c.get("toolName") or "")
    else:
        one_model = len({c["model"] for c in doc["llmCalls"]}) == 1
        for c in doc["llmCalls"]:
            words.add(c["step"])
            words.update(c["tools"])
            if not one_model and "model" not in dropped:
                words.update(c["model"].split())
    paths: set[str] = set()
    for a in doc["aggregates"]:  # the rollups: label, kind, subflow path
        words.update(a["label"].split())
        if "kind" not in dropped and a.get("primitiveKind"):
            words.add(a["primitiveKind"])
        paths.add("/".join(a["subflowPath"][1:]))
    _assert_whole(words, shown)
    # (the path column also breaks after a trace step id's ":" — "plan:" / "refund-agent#4" —
    # as its renderer says; a name itself is never cut)
    _assert_whole(paths, shown, breaks="/:")


def _assert_whole(words: set[str], shown: str, breaks: str = "/") -> None:
    """Each identifier is on the screen whole; a path or step id may break only after a "/"
    (or another of ``breaks``)."""
    lines = shown.splitlines()
    broken = []
    cut = re.escape(breaks)
    for w in words:
        for piece in re.findall(rf"[^{cut}]+[{cut}]?", w):
            if not any(piece.strip() in line for line in lines):
                broken.append((w, piece))
    assert not broken, broken


# Inputs whose last LLM call cannot be localized: a trigger that can.
TRIGGER = {
    "mini-b.json": ["--at-step", "t#4"],  # no LLM calls
    "composition.recording.json": ["--at-step", "step-route#78"],  # calls inside compositions
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "path",
    [p for p in INPUTS if p.name != "demo-turn.json"],  # (no snapshot: nothing to bisect)
    ids=lambda p: p.name,
)
def test_bisect_table_fits_and_keeps_identities_whole(path: Path, width: int) -> None:
    trigger = TRIGGER.get(path.name, ["--at-llm", "-1"])
    args = ["bisect", str(path), *trigger, "--embedder", "mock"]
    glance = cli(*args, env={"COLUMNS": str(width), "LINES": "50"})  # the one screen
    assert glance.exit_code == 0, glance.stderr
    assert not _too_wide(str(glance.stdout), width)
    res = cli(*args, "--details", env={"COLUMNS": str(width), "LINES": "50"})
    shown = str(res.stdout)
    assert res.exit_code == 0, res.stderr
    assert not _too_wide(shown, width)
    doc = json.loads(str(cli(*args, "--json", env={"COLUMNS": str(width)}).stdout))
    table = shown.split("Where each suspect says it")[0]
    for s in doc["suspects"]:
        d = s.get("detail") or {}
        ident = d.get("toolName") or d.get("injectionId") or s["source"]
        assert f" {ident} " in table, (ident, table)


def test_a_causal_table_keeps_verdicts_whole_at_80(tmp_path: Path) -> None:
    answer = tmp_path / "answer.py"
    answer.write_text(
        "import json, sys\n"
        "ids = json.dumps(json.load(sys.stdin))\n"
        "print('Refund declined' if 'promo-fact' in ids else 'Refund APPROVED')\n"
    )
    for ranking in ("evidence-first", "upstream"):
        shown = _run(
            80,
            "bisect",
            str(MINI / "mini-a.json"),
            "--at-step",
            "llm#6",
            "--embedder",
            "mock",
            "--ranking",
            ranking,
            "--details",
            *rerun_until_approved(answer),
        )
        assert not _too_wide(shown, 80)
        assert "confirmed 3/3" in shown and "not-confirmed 0/3" in shown
        # every score whole (the upstream ranking's path column was cut to "0.9…" before)
        table = shown[shown.index("Suspects (") :]
        table = table[: min(i for i in (table.find("Where each"), table.find("≤ path")) if i > 0)]
        assert "…" not in table, table


def test_rich_alone_folds_an_identifier_the_fit_keeps_whole() -> None:
    """The failure this module guards against, shown on rich's own layout: it narrows the
    widest column first, folding execute_tool:get_refund_policy#5 with room to spare elsewhere."""
    import io

    from rich.console import Console
    from rich.table import Table

    rows = [
        ["execute_tool:get_refund_policy#5", "", "get_refund_policy", "", ""],
        ["ChatOpenAI#4", "1", "gpt-4o-mini-2024-07-18", "437", "50"],
    ]
    plain = Table(title="Calls")
    for h in ("step", "N", "model / tool", "tok in", "tok out"):
        plain.add_column(h, overflow="fold")
    for r in rows:
        plain.add_row(*r)
    out = io.StringIO()
    Console(file=out, width=80).print(plain)
    assert "execute_tool:get_refund_policy#5" not in out.getvalue()  # rich broke it
    cols = [
        Col("step"),
        Col("N", "right"),
        Col("model / tool", wrap=True, drop=2),
        Col("tok in", "right", wrap=True, drop=1),
        Col("tok out", "right", wrap=True, drop=1),
    ]
    kept, widths = column_widths(cols, rows, 80)
    assert kept == [0, 1, 2, 3, 4] and widths[0] == len("execute_tool:get_refund_policy#5")


def test_the_narrowest_columns_go_first_and_words_never_split() -> None:
    cols = [Col("id"), Col("a", wrap=True, drop=2), Col("b", wrap=True, drop=1)]
    rows = [["x" * 30, "alpha beta gamma", "delta epsilon"]]
    longest = [30, len("gamma"), len("epsilon")]
    for width in range(20, 90):
        kept, widths = column_widths(cols, rows, width)
        total = sum(w or 0 for w in widths) + 3 * len(kept) - 1  # borders, inner padding
        assert total <= width  # always fits (the id folds below 33 columns: nothing else can)
        if sum(longest[i] for i in kept) + 3 * len(kept) - 1 <= width:
            assert all((widths[i] or 0) >= longest[i] for i in kept)  # no word split
    assert column_widths(cols, rows, 40)[0] == [0, 1]  # b (drop 1) left out before a
    assert column_widths(cols, rows, 20)[0] == [0]


def test_paths_break_after_a_slash_and_nowhere_else() -> None:
    from rich.text import Text

    from agentbisect.render.fit import _prewrap

    cell = _prewrap("step-research/researcher/sf-cache", 15, "/")
    assert isinstance(cell, Text)
    assert cell.plain.split("\n") == ["step-research/", "researcher/", "sf-cache"]
    assert _prewrap("a/b", 15, "/") == "a/b"  # fits: untouched
    two = _prewrap("step-refine/body/sf-llm-call/call-llm#9 *", 20, "/")
    assert isinstance(two, Text)
    assert two.plain.split("\n") == ["step-refine/body/", "sf-llm-call/", "call-llm#9 *"]


def test_an_identifier_wider_than_the_terminal_folds_alone() -> None:
    """The one case that cannot keep a word whole: only that column gives, and the line still
    fits; kinds and scores stay whole (rich alone narrowed every column evenly)."""
    import io

    from rich.console import Console

    from agentbisect.render.fit import fitted_table

    long_id = "x" * 90
    cols = [Col("#", "right"), Col("kind"), Col("identity"), Col("evidence", "right")]
    rows = [["1", "injection", long_id, "0.774"], ["2", "tool", "lookup", "0.178"]]
    table, left = fitted_table(cols, rows, 80)
    out = io.StringIO()
    Console(file=out, width=80).print(table)
    text = out.getvalue()
    assert not left and not _too_wide(text, 80)
    assert "injection" in text and "0.774" in text and " lookup " in text
    assert "".join(ch for ch in text if ch == "x") == long_id  # folded, nothing lost


def _header_lines(text: str, title: str) -> list[str]:
    """The header lines (between the top rule and the heavy rule) of the table titled ``title``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("┡"))
    return lines[start + 2 : end]


def _tokens_pair_reads_as_a_pair(header: list[str]) -> None:
    joined = [" ".join(h.replace("┃", " ").split()) for h in header]
    if len(header) == 1:
        assert "tok in tok out" in joined[0]
    else:  # folded: both, "tok" over "in" and "tok" over "out"
        assert joined[0].split().count("tok") == 2, joined
        assert "in out" in joined[1], joined


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("upstream/composition.recording.json", "Rollups"),  # "tok out" alone went over 2 lines
        ("otel/transcript.multi-agent.history.json", "Rollups"),
        ("otel/openinference-langchain.tool-planted.otlp.json", "Calls"),
        ("upstream/react-tools-lean.recording.json", "LLM calls"),
    ],
)
def test_at_80_columns_the_token_headers_fold_together_or_not_at_all(
    name: str, title: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    from agentbisect.analyses.aggregate import aggregate
    from agentbisect.importers import open_run
    from agentbisect.render.tables import aggregate as tables

    # as afp draws it at COLUMNS=80
    _tokens_pair_reads_as_a_pair(_header_lines(_run(80, "aggregate", str(FIXTURES / name)), title))
    for width in (80, 100, 120):
        # a console as wide as a real terminal (rich measures it, not COLUMNS)
        out = io.StringIO()
        monkeypatch.setattr(
            tables, "stdout_console", lambda o=out, w=width: Console(file=o, width=w)
        )
        tables.render_aggregate(aggregate(open_run(str(FIXTURES / name)), show_all=True))
        text = out.getvalue()
        assert not _too_wide(text, width)
        _tokens_pair_reads_as_a_pair(_header_lines(text, title))


def test_a_trace_agent_path_breaks_after_its_colon_not_mid_name() -> None:
    # at 80 columns the rollups' path column folded "invoke_agent:order_" / "lookup#3"
    shown = _run(80, "aggregate", str(FIXTURES / "otel" / "transcript.multi-agent.history.json"))
    rollups = shown[: shown.index("Calls")]
    for agent in ("triage#3", "order_lookup#5", "policy_researcher#7", "billing#9"):
        assert "│ invoke_agent:" in rollups
        assert re.search(rf"│ {agent}\s+│", rollups), agent
