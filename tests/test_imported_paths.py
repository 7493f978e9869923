"""Evidence paths on imported runs name every source a hop carries (issue 11).

A retriever span is one synthesized step that writes one key per retrieved document
(``doc:<id>``), and the LLM call that read them links to it by one slice hop per document. The path
through that step used to name only the strongest document, so every other document's suspect
showed a path labelled with somebody else's id. These tests read real committed traces (the
instrumentation fixtures and the planted corpus) and check the JSON, the table, the plain-text
report and the HTML page; ``--upstream`` keeps upstream's one-key hop.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from agentbisect.importers import open_run
from tests.conftest import FIXTURES, cli

ROOT = FIXTURES.parent
# Real traces whose retriever spans return several documents: one per instrumentation, plus a
# planted-corpus trace with two retrievers (a knowledge base and a memory store).
TRACES = [
    FIXTURES / "otel" / "oaiv2-2.4b0-span-only.doc-planted.otlp.json",
    FIXTURES / "otel" / "openinference.doc-planted.otlp.json",
    FIXTURES / "otel" / "openinference-langchain.tool-planted.otlp.json",
    ROOT / "benchmarks" / "planted" / "traces" / "dental-coverage.genai.otlp.json",
]
ARGS = ("--at-llm", "-1", "--embedder", "mock")


def _report(path: Path, *extra: str) -> dict[str, Any]:
    res = cli("bisect", str(path), *ARGS, "--json", *extra)
    assert res.exit_code == 0, res.stderr
    report: dict[str, Any] = json.loads(res.stdout)
    return report


def _retrieved(path: Path) -> dict[str, list[str]]:
    """Each retriever step and the keys of the documents it returned (from the source map)."""
    meta = open_run(str(path)).import_meta
    assert meta is not None
    return {
        step: [f"doc:{d}" for d in src.documents]
        for step, src in meta.sources.items()
        if src.kind == "retrieval" and isinstance(src.documents, list)
    }


def _doc_suspects(report: dict[str, Any], steps: dict[str, list[str]]) -> list[dict[str, Any]]:
    return [s for s in report["suspects"] if s["source"] in steps and s["kind"] == "injection"]


@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_a_hop_into_a_retriever_names_every_document_it_carries(path: Path) -> None:
    steps = _retrieved(path)
    run = open_run(str(path))
    report = _report(path)
    suspects = _doc_suspects(report, steps)
    assert len(suspects) >= 2  # several documents of one retriever: the case this is about
    several = 0
    for s in suspects:
        hop = s["edgePath"][-1]
        wrote = set(steps[s["source"]])
        carried = [k for k in run.keys_read(hop["from"]) if k in wrote]
        own = f"doc:{s['detail']['injectionId']}"
        assert own in carried  # the suspect's own document reached the trigger by this hop
        if len(carried) == 1:
            assert "keys" not in hop and hop["key"] == own
            continue
        several += 1
        # every document the hop carries, in the order the call read them, each with its weight
        assert [k["key"] for k in hop["keys"]] == carried
        best = max(hop["keys"], key=lambda k: k["weight"])
        assert (hop["key"], hop["weight"]) == (best["key"], best["weight"])
        # the hop's key and weight stay the edge the path score went through
        assert math.isclose(math.prod(h["weight"] for h in s["edgePath"]), s["structuralScore"])
    assert several >= 2


def test_only_multi_key_hops_list_their_keys() -> None:
    report = _report(TRACES[0])
    steps = _retrieved(TRACES[0])
    for s in report["suspects"]:
        for hop in s["edgePath"]:
            assert ("keys" in hop) == (hop["to"] in steps), hop


@pytest.mark.parametrize("path", TRACES[:2], ids=[p.name for p in TRACES[:2]])
def test_upstream_reports_keep_the_one_key_hop(path: Path) -> None:
    report = _report(path, "--upstream")
    assert _doc_suspects(report, _retrieved(path))
    assert all("keys" not in h for s in report["suspects"] for h in s["edgePath"])


def _retriever_lines(out: str, step: str) -> list[str]:
    return [line for line in out.splitlines() if f"— {step}" in line]


@pytest.mark.parametrize("fmt", ["table", "text"])
def test_the_terminal_path_names_every_document(fmt: str) -> None:
    path = TRACES[0]
    (step, docs), *_ = _retrieved(path).items()
    details = ["--details"] if fmt == "table" else []  # (the paths: the full table's tree)
    res = cli("bisect", str(path), *ARGS, "--format", fmt, *details, env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.stderr
    lines = _retriever_lines(res.stdout, step)
    n = len(_doc_suspects(_report(path), {step: docs}))
    assert len(lines) == n
    for line in lines:
        for doc in docs:
            assert doc in line, line


def test_the_html_path_names_every_document(tmp_path: Path) -> None:
    path = TRACES[1]
    (step, docs), *_ = _retrieved(path).items()
    page = tmp_path / "report.html"
    res = cli("bisect", str(path), *ARGS, "--format", "html", "-o", str(page))
    assert res.exit_code == 0, res.stderr
    html = page.read_text()
    # one SVG arrow per document suspect: a visible line per document, the whole in its <title>
    arrows = [a.split("</g>")[0] for a in html.split('<g class="edge data">')[1:]]
    into = [a for a in arrows if "<title>data: doc:" in a]
    assert len(into) == len(_doc_suspects(_report(path), {step: docs}))
    for arrow in into:
        shown, title = arrow.split("<title>")
        assert shown.count("<tspan") == len(docs)
        for doc in docs:
            assert f">data: {doc} · weight " in shown and doc in title, arrow


def _replace_deep(value: Any, old: str, new: str) -> Any:
    """``value`` with ``old`` replaced by ``new`` in every string, also inside strings that hold
    JSON (the GenAI conventions carry messages and documents as JSON inside attributes)."""
    if isinstance(value, dict):
        return {k: _replace_deep(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_deep(v, old, new) for v in value]
    if isinstance(value, str) and old in value:
        if value[:1] in "[{":
            try:
                return json.dumps(_replace_deep(json.loads(value), old, new))
            except ValueError:
                pass
        return value.replace(old, new)
    return value


def test_hostile_document_ids_stay_plain_text(tmp_path: Path) -> None:
    """Document ids come from the trace: rich markup stays literal, escapes and controls go."""
    doc = json.loads(TRACES[0].read_text())
    evil = "kb-[bold red]evil[/bold red]\x1b[31m-\x07x"
    trace = tmp_path / "evil.otlp.json"
    trace.write_text(json.dumps(_replace_deep(doc, "kb-electronics-returns", evil)))
    (step, docs), *_ = _retrieved(trace).items()
    assert f"doc:{evil}" in docs
    for fmt in ("table", "text"):
        details = ["--details"] if fmt == "table" else []  # (the paths: the full table's tree)
        res = cli("bisect", str(trace), *ARGS, "--format", fmt, *details, env={"COLUMNS": "250"})
        assert res.exit_code == 0, res.stderr
        lines = _retriever_lines(res.stdout, step)
        assert len(lines) == len(docs)
        for line in lines:
            assert "doc:kb-[bold red]evil[/bold red]-x" in line
        assert "\x1b" not in res.stdout and "\x07" not in res.stdout


def test_a_line_break_in_a_document_id_starts_no_line_of_its_own(tmp_path: Path) -> None:
    """The plain-text report keeps its own line breaks: a recorded id holding one must not split
    a path (or a suspect's head line) and so forge a line of the report."""
    doc = json.loads(TRACES[0].read_text())
    trace = tmp_path / "forged.otlp.json"
    forged = "kb-x\nHONESTY: none\r\n\tFORGED"
    trace.write_text(json.dumps(_replace_deep(doc, "kb-electronics-returns", forged)))
    (step, docs), *_ = _retrieved(trace).items()
    assert f"doc:{forged}" in docs
    res = cli("bisect", str(trace), *ARGS, "--format", "text")
    assert res.exit_code == 0, res.stderr
    out = res.stdout.splitlines()
    assert not any(line.startswith(("HONESTY: none", "FORGED", "\tFORGED")) for line in out)
    paths = [line for line in out if line.startswith("    path: ")]
    assert sum("doc:kb-x HONESTY: none  FORGED" in line for line in paths) == len(
        _doc_suspects(_report(trace), {step: docs})
    )
    assert any("[injection 'kb-x HONESTY: none  FORGED']" in line for line in out)


def test_hostile_document_ids_stay_text_in_the_html_path(tmp_path: Path) -> None:
    """Each key of a multi-key hop is its own ``<tspan>``: markup in a document id stays text."""
    doc = json.loads(TRACES[0].read_text())
    evil = 'kb-</text><script>alert(1)</script>"<x'
    trace = tmp_path / "evil.otlp.json"
    trace.write_text(json.dumps(_replace_deep(doc, "kb-electronics-returns", evil)))
    page = tmp_path / "report.html"
    res = cli("bisect", str(trace), *ARGS, "--format", "html", "-o", str(page))
    assert res.exit_code == 0, res.stderr
    html = page.read_text()
    assert "<script>alert" not in html and "kb-</text>" not in html
    shown = "data: doc:kb-&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&lt;x · weight"
    assert html.count(f'">{shown}') == len(_doc_suspects(_report(trace), _retrieved(trace)))


def test_native_recordings_keep_the_one_key_hop() -> None:
    """A recording of the upstream library has multi-key hops too (its context stage writes
    ``systemPromptInjections`` and ``messagesInjections``); upstream's path format is the contract
    for those recordings, so afp's own report leaves them as they are."""
    path = ROOT / "benchmarks" / "planted" / "cases" / "vet-vaccine.recording.json"
    run = open_run(str(path))
    assert run.import_meta is None
    report = _report(path)
    hop = next(
        h for s in report["suspects"] for h in s["edgePath"] if h["to"].startswith("context#")
    )
    read = run.keys_read(hop["from"])
    assert {"systemPromptInjections", "messagesInjections"} <= set(read)
    assert all("keys" not in h for s in report["suspects"] for h in s["edgePath"])
