"""The structure issue 8 asks for, checked: import direction, the renderer and importer seams,
``--format`` on every command, ``--upstream``, and recording-level flags in bisect reports."""

from __future__ import annotations

import ast
import copy
import json
import sys
import types
from pathlib import Path

import pytest

from tests.conftest import CAPTURE, PLANTED, ROOT, UPSTREAM, cli
from tests.conftest import GENUI as GENUI_DIR

PKG = ROOT / "agentbisect"
UP = UPSTREAM
PF = PLANTED
GENUI = GENUI_DIR / "spec-8a.jsonl"
afp = cli


def imports_of(path: Path) -> set[str]:
    """Every agentbisect module a file imports (at any level, also inside functions)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("agentbisect")
        ):
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("agentbisect"))
    return out


# ------------------------------------------------------------------------- import direction


# Each package of agentbisect and the packages it may import (besides itself): the house's floors,
# top to bottom. Data flows one way: bytes → importers → model → analyses → results → render.
LAYERS: dict[str, tuple[str, ...]] = {
    "core": (),
    "schema": ("core",),
    "model": ("core", "schema"),
    "results": ("core", "schema", "model"),
    "importers": ("core", "schema", "model"),
    "analyses": ("core", "schema", "model", "results", "importers"),
    "genui": ("core", "schema", "results"),
    "bisect": ("core", "schema", "model", "results", "analyses"),
    # renderers compute nothing: result types, the model's own types, formatting
    "render": ("core", "schema", "model", "results"),
    "cli": (
        "core",
        "schema",
        "model",
        "results",
        "importers",
        "analyses",
        "genui",
        "bisect",
        "render",
    ),
}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_floor() -> None:
    found = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert found == set(LAYERS)
    assert {p.name for p in PKG.glob("*.py")} == {"__init__.py", "__main__.py"}


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_imports_run_down_the_floors_only(package: str) -> None:
    allowed = {package, *LAYERS[package]}
    for path in (PKG / package).rglob("*.py"):
        for mod in imports_of(path):
            assert package_of(mod) in allowed, f"{path.relative_to(PKG)} imports {mod}"


def test_analyses_use_the_importers_front_door_only() -> None:
    # The importers' interface (the package and its base types) is public; how each format is
    # read is not. bisect reads the run model, never the loaded parts behind it.
    for pkg in ("analyses", "bisect"):
        for path in (PKG / pkg).rglob("*.py"):
            for mod in imports_of(path):
                assert mod in ("agentbisect.importers", "agentbisect.importers.base") or not (
                    mod.startswith("agentbisect.importers")
                ), f"{path.relative_to(PKG)} imports {mod}"
                assert pkg != "bisect" or mod != "agentbisect.model.loaded", path.name


def test_command_bodies_import_no_cli_framework() -> None:
    # The fast front end runs the tables and bodies without typer: only the app imports it (and
    # the package's entry to it, `cli.main`, on first use).
    for path in (PKG / "cli").glob("*.py"):
        if path.name in ("typer_app.py", "__init__.py"):
            continue
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {m for m in names if m.split(".")[0] in ("typer", "click")}, path.name
        assert "agentbisect.cli.typer_app" not in names, path.name


# ------------------------------------------------------------------------- renderer seam


def test_every_command_has_format() -> None:
    pf = str(PF)
    events_jsonl = afp("events", pf, "--format", "jsonl")
    events_json = afp("events", pf, "--format", "json")
    assert events_jsonl.exit_code == events_json.exit_code == 0
    lines = [json.loads(x) for x in events_jsonl.stdout.splitlines()]
    assert json.loads(events_json.stdout) == lines and len(lines) > 10
    assert afp("events", pf, "--json").stdout == events_jsonl.stdout
    table = afp("events", pf, "--format", "table", "--limit", "2")
    assert table.exit_code == 0 and "2 of " in table.stdout

    agg = afp("aggregate", pf, "--format", "json")
    assert agg.exit_code == 0 and agg.stdout == afp("aggregate", pf, "--json").stdout
    assert "Rollups" in afp("aggregate", pf, "--format", "table").stdout

    bis = afp("bisect", pf, "--at-step", "call-llm#40", "--format", "json")
    assert bis.stdout == afp("bisect", pf, "--at-step", "call-llm#40", "--json").stdout
    text = afp("bisect", pf, "--at-step", "call-llm#40", "--format", "text")
    assert text.stdout.startswith("CONTEXT BUG LOCALIZATION — trigger call-llm#40")

    gen = afp("genui-stats", str(GENUI), "--format", "json")
    assert gen.exit_code == 0 and gen.stdout == afp("genui-stats", str(GENUI), "--json").stdout


def test_format_and_shorthand_must_agree() -> None:
    res = afp("aggregate", str(PF), "--format", "table", "--json")
    assert res.exit_code == 2 and "not both" in res.stderr
    res = afp("bisect", str(PF), "--at-step", "call-llm#40", "--format", "yaml")
    assert (
        res.exit_code == 2
        and res.stderr.count("\n") == 1
        and "'table', 'json', 'text', 'html'" in res.stderr
    )


def test_record_summary_formats(tmp_path: Path) -> None:
    res = afp("record", str(CAPTURE), "-o", str(tmp_path / "a.json"), "--format", "json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["shapeIn"] == "capture (JSON Lines)" and doc["shapeOut"] == "recording"
    assert doc["typedEvents"]["in"] == doc["typedEvents"]["out"] > 0
    assert doc["honestyFlags"] == []  # a capture knows its drops (none), has a commit axis
    res = afp("record", str(PF), "-o", str(tmp_path / "p.json"), "--format", "json")
    doc = json.loads(res.stdout)
    assert [f["flag"] for f in doc["honestyFlags"]] == ["drops-unknown"]
    res = afp("record", str(CAPTURE), "-o", str(tmp_path / "b.json"))
    assert res.exit_code == 0 and res.stdout == "" and "typed" in res.stderr


def test_record_says_each_condition_once(tmp_path: Path) -> None:
    cap = tmp_path / "legacy.jsonl"
    cap.write_text('{"flow":"runStart","ts":1,"event":{}}\n{"flow":"runEnd","ts":4,"event":{}}\n')
    res = afp("record", str(cap), "-o", str(tmp_path / "l.json"))
    assert res.exit_code == 0 and res.stderr.count("[commit-axis-absent]") == 1


# ------------------------------------------------------------------------- importer seam


def test_a_new_format_is_one_module_and_one_registry_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentbisect.importers as importers
    from agentbisect.importers import capture

    # A toy format: "TOY\n" followed by a capture; it converts through the capture importer.
    toy = types.ModuleType("toy_importer")
    toy.NAME = "toy"  # type: ignore[attr-defined]
    toy.LABEL = "toy format"  # type: ignore[attr-defined]
    toy.sniff = lambda data: data.startswith(b"TOY\n")  # type: ignore[attr-defined]
    toy.convert = lambda name, data, **kw: capture.convert(name, data[4:], **kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_importer", toy)
    monkeypatch.setattr(importers, "IMPORTERS", ["toy_importer", *importers.IMPORTERS])
    f = tmp_path / "run.toy"
    f.write_bytes(b"TOY\n" + CAPTURE.read_bytes())
    for cmd in (["events", str(f), "--json"], ["aggregate", str(f), "--json"]):
        res = afp(*cmd)
        assert res.exit_code == 0, res.stderr
    agg = json.loads(afp("aggregate", str(f), "--json").stdout)
    assert agg["source"]["shape"] == "toy" and agg["source"]["shapeName"] == "toy format"
    assert afp("bisect", str(f), "--at-llm", "-1", "--json").exit_code == 0
    res = afp("record", str(f), "-o", str(tmp_path / "out.json"))
    assert res.exit_code == 0 and "capture (JSON Lines)" in res.stderr


def test_capture_is_read_by_every_command() -> None:
    res = afp("aggregate", str(CAPTURE), "--json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["source"]["shape"] == "capture"


# ------------------------------------------------------------------------- --upstream and flags


def _two_runs(tmp_path: Path) -> Path:
    rec = json.loads(PF.read_text())
    extra = copy.deepcopy(rec["events"][0])
    extra["meta"]["runId"] = "run-earlier"
    rec["events"].insert(0, extra)
    out = tmp_path / "two-runs.json"
    out.write_text(json.dumps(rec))
    return out


def test_recording_flags_reach_bisect_after_upstream_flags(tmp_path: Path) -> None:
    f = str(_two_runs(tmp_path))
    ours = json.loads(
        afp(
            "bisect",
            f,
            "--at-step",
            "call-llm#40",
            "--json",
            "--embedder",
            "mock",
            "--ranking",
            "upstream",
        ).stdout
    )
    theirs = json.loads(afp("bisect", f, "--at-step", "call-llm#40", "--json", "--upstream").stdout)
    names = [x["flag"] for x in ours["honestyFlags"]]
    up_names = [x["flag"] for x in theirs["honestyFlags"]]
    assert "multiple-runs" in names and "multiple-runs" not in up_names
    assert names[: len(up_names)] == up_names  # upstream's flags first, in their order
    # same embedder, same ranking (sourceKind is afp's own field)
    assert [{k: v for k, v in s.items() if k != "sourceKind"} for s in ours["suspects"]] == theirs[
        "suspects"
    ]
    assert (ours["embedder"], ours["ranking"]) == ("mock", "upstream")
    assert "embedder" not in theirs and "ranking" not in theirs
    table = afp("bisect", f, "--at-step", "call-llm#40")
    assert table.exit_code == 0 and "multiple-runs" in table.stdout
    gate = afp("bisect", f, "--at-step", "call-llm#40", "--json", "--fail-on", "multiple-runs")
    assert gate.exit_code == 1
    gate = afp("bisect", f, "--at-step", "call-llm#40", "--upstream", "--fail-on", "multiple-runs")
    assert gate.exit_code == 2  # the upstream report cannot carry it: a gate that never trips


def test_upstream_refuses_afp_extensions() -> None:
    res = afp("bisect", str(PF), "--at-step", "x", "--upstream", "--culprits", "--rerun", "true")
    assert res.exit_code == 2 and "--upstream" in res.stderr


def test_public_api_is_lazy_and_complete() -> None:
    import subprocess

    code = (
        "import sys, agentbisect\n"
        "assert 'agentbisect.model.run' not in sys.modules and 'numpy' not in sys.modules\n"
        "from agentbisect import open_run, localize, aggregate, genui_stats, record_run\n"
        "from agentbisect import select_events, bisect_run, record_file, get_renderer\n"
        "run = open_run(sys.argv[1])\n"
        "rep = localize(run, at_step='call-llm#40')\n"
        "print(rep.step, len(aggregate(run).aggregates), len(select_events(run).indices))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(PF)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[0] == "call-llm#40"
    import agentbisect

    with pytest.raises(AttributeError):
        agentbisect.no_such_thing  # noqa: B018
    for name in agentbisect.__all__:
        assert getattr(agentbisect, name) is not None
        assert name == "__version__" or getattr(agentbisect, name).__doc__


def test_exports_listed_once() -> None:
    import agentbisect

    assert set(agentbisect.__all__) == {"__version__", *agentbisect._EXPORTS}


def test_the_one_path_is_python_and_reads_its_inputs() -> None:
    # Issue 22: no compiled second copy of the rules, and input files are read, not mapped (a
    # mapped file truncated while it was read ended afp with a bus error).
    compiled = [
        p.name for p in PKG.rglob("*") if p.suffix in {".c", ".h", ".pyx", ".pxd", ".rs", ".so"}
    ]
    assert compiled == []
    assert not (ROOT / "setup.py").exists()
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "mmap" not in names, path.relative_to(PKG)


# ------------------------------------------------------------------------- no import circles


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (at any level, also inside functions), with
    ``from package import submodule`` read as an import of the submodule."""
    files = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentbisect"):
                assert node.module is not None
                subs = [f"{node.module}.{a.name}" for a in node.names]
                found = [s for s in subs if s in files]
                out.update(found)
                if len(found) < len(subs):  # names, not submodules: the module itself
                    out.add(node.module)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name in files)
        graph[name] = {m for m in out if m in files and m != name}
    return graph


def test_no_module_imports_itself_round_a_circle() -> None:
    """Circles are defects (``farm-studio look``); the floors alone do not catch one inside a
    floor (``core.errors`` ↔ ``core.inputbytes`` came back through a function-level import)."""
    graph = _module_graph()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    circles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    # A package's ``__init__`` that re-exports its submodules, imported by them lazily, is a
    # seam, not a circle: only circles through plain modules count.
    real = [c for c in circles if not any(graph.get(m) is not None and _is_package(m) for m in c)]
    assert real == [], real


def _is_package(module: str) -> bool:
    return (ROOT / Path(*module.split(".")) / "__init__.py").exists()
