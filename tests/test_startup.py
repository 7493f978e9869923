"""Guards for the start-up cuts: what an ordinary `afp` run must not import, and that the cuts
change no output and no error message (the cuts are measured by benchmarks/startup_bench.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.bisect.embed.vectors import MockEmbedder
from tests.conftest import afp_loaded
from tests.helpers import recording


def loaded_after(*argv: str) -> set[str]:
    """Which of numpy/rich/pydantic a real `afp ARGV` process imported."""
    return afp_loaded(*argv, among=("numpy", "rich", "pydantic"), env={"COLUMNS": "100"})


def test_bisect_json_on_an_ordinary_run_loads_no_numpy_rich_or_pydantic() -> None:
    # The start-up goals are defined under --upstream (mock embedder, upstream ranking); the
    # evidence-first ranking with the mock (the default without the embed extra) keeps them too.
    # The wordllama embedder needs numpy by nature: its cost is benchmarks/embed_speed.py's.
    for extra in (["--upstream"], ["--embedder", "mock"]):
        got = loaded_after(
            "bisect", recording("react-tools"), "--at-step", "call-llm#106", "--json", *extra
        )
        assert got == set(), extra


def test_upstream_bisect_does_not_import_the_focus_scorer() -> None:
    # --upstream ranks by path score and never scores evidence against a question, so the
    # question-focus module (signals/context.py imports it on first use) stays out of its start-up;
    # the evidence-first ranking does load it, which shows the probe sees it
    among = ("agentbisect.bisect.evidence.focus",)
    argv = ("bisect", recording("react-tools"), "--at-step", "call-llm#106", "--json")
    assert afp_loaded(*argv, "--upstream", among=among) == set()
    assert afp_loaded(*argv, "--embedder", "mock", among=among) == set(among)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300), dims=st.integers(1, 70))
def test_mock_embedder_counts_equal_numpy_bincount(text: str, dims: int) -> None:
    import numpy as np

    units = np.frombuffer(text.encode("utf-16-le", "surrogatepass"), dtype="<u2")
    want = np.bincount(units % dims, minlength=dims).tolist()
    assert list(MockEmbedder(dims).embed(text)) == want


def test_the_recorded_version_is_the_installed_distributions() -> None:
    from importlib.metadata import PackageNotFoundError, version

    from agentbisect.model.envelope import AGENTBISECT_VERSION

    try:
        installed = version("agentbisect")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        pytest.skip("agentbisect is not installed as a distribution")
    assert installed == AGENTBISECT_VERSION


def test_a_recording_imports_no_trace_conversion() -> None:
    """Every importer sniffs every input: the trace and transcript importers must do that without
    importing their conversion (span readers, conventions, synthesis: ~15 ms per run)."""
    args = ["bisect", recording("react-tools"), "--at-step", "call-llm#106", "--json"]
    loaded = afp_loaded(*args, "--upstream", prefix="agentbisect.importers.")
    trace_work = {
        "agentbisect.importers.synthesize",
        "agentbisect.importers.opentelemetry.conventions",
        "agentbisect.importers.opentelemetry.traces",
        "agentbisect.importers.opentelemetry.otlp_json",
        "agentbisect.importers.transcript_import",
    }
    assert "agentbisect.importers.opentelemetry" in loaded  # it did sniff
    assert loaded.isdisjoint(trace_work), loaded & trace_work


@pytest.mark.parametrize(
    "module",
    ["agentbisect.schema.events", "agentbisect.schema.recording", "agentbisect.schema.imported"],
)
def test_schema_annotations_are_types_not_strings(module: str) -> None:
    # msgspec evaluates string annotations one by one when it builds a decoder (~1 ms per run for
    # the domain events); these modules keep theirs evaluated (no `from __future__ import ...`).
    import importlib

    import msgspec

    mod = importlib.import_module(module)
    structs = [
        v for v in vars(mod).values()
        if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == module
    ]  # fmt: skip
    assert structs
    for cls in structs:
        quoted = {k for k, v in cls.__annotations__.items() if isinstance(v, str)}
        # a class naming itself must quote its own name
        assert quoted <= {"children", "next"}, (cls.__name__, quoted)


def test_reading_a_recording_imports_no_writer_and_no_rerun_tools() -> None:
    """Every importer sniffs every input, and bisect reads a recording it never writes: the
    recorder, the file writer (gzip), the run overview (HTML only), hashlib (OpenSSL), shlex and
    difflib (--rerun and mistyped names only) stay unloaded on an ordinary run."""
    args = ["bisect", recording("react-tools"), "--at-step", "call-llm#106", "--json"]
    loaded = afp_loaded(*args, "--upstream")
    assert "agentbisect.bisect.api" in loaded  # it did run
    unwanted = {
        "agentbisect.model.record",
        "agentbisect.model.boundary.recorder",
        "agentbisect.core.files",
        "agentbisect.analyses.overview",
        "gzip",
        "hashlib",
        "shlex",
        "difflib",
    }
    assert loaded.isdisjoint(unwanted), loaded & unwanted


def _loaded_without_site(*argv: str) -> set[str]:
    """The modules a real `afp ARGV` process loaded, started with -S: this environment's site
    (editable finders, .pth files) imports pathlib and more itself, which would hide a cut."""
    import agentbisect

    root = os.path.dirname(os.path.dirname(agentbisect.__file__))
    path = os.pathsep.join([root, *(p for p in sys.path if p)])
    return afp_loaded(*argv, python_flags=("-S",), env={"PYTHONPATH": path})


def test_bisect_without_rerun_builds_no_boundary_index_and_imports_no_pathlib() -> None:
    """bisect never builds the boundary index, strip or step graph, the mock embedder needs no
    paths, and without --rerun/--missing-context nothing runs the causal tier: those modules,
    pathlib (with urllib.parse, ipaddress, fnmatch) and dataclasses (with copy) cost ~5 ms of
    start-up and stay unloaded."""
    loaded = _loaded_without_site(
        "bisect", recording("react-tools"), "--at-step", "call-llm#106", "--json", "--upstream"
    )
    assert "agentbisect.bisect.api" in loaded  # it did run
    unwanted = {
        "agentbisect.model.boundary.graph",
        "agentbisect.model.boundary.index",
        "agentbisect.model.boundary.rebuild",
        "agentbisect.model.boundary.strip",
        "agentbisect.bisect.causal.probes",
        "pathlib",
        "urllib.parse",
        "ipaddress",
        "dataclasses",
        "copy",
    }
    assert loaded.isdisjoint(unwanted), loaded & unwanted


def test_run_keeps_the_methods_its_dataclass_had() -> None:
    # Run is a plain class now (no dataclasses import): same init, repr, eq and no hash.
    from agentbisect.importers import open_run
    from agentbisect.model.run import Run

    a, b = open_run(recording("react-tools")), open_run(recording("react-tools"))
    assert a.loaded is not b.loaded
    # equal by what they loaded (the same file twice), unequal for another recording
    assert a == b and a != open_run(recording("react-tools-lean"))
    assert a != "x"
    assert repr(a).startswith("Run(loaded=Loaded(")
    with pytest.raises(TypeError):
        hash(a)
    # the dataclass's init took its field by keyword too, and its match args
    assert Run(loaded=a.loaded) == a
    match a:
        case Run(loaded):
            assert loaded is a.loaded
        case _:
            pytest.fail("Run lost its __match_args__")


def test_fast_path_output_is_complete_when_teardown_skips_the_collections(tmp_path: Any) -> None:
    # The fast front end freezes the heap before exiting (teardown then skips its full
    # collections): stdout must still be flushed whole, and a -o file written whole, in a real
    # process whose stdout is a pipe (block-buffered). The typer path does not freeze.
    env = {**os.environ, "COLUMNS": "100"}
    front = "import sys; sys.argv = ['afp', *sys.argv[2:]]\n" + (
        "from agentbisect.__main__ import main\nmain(fast=sys.argv[1] == 'fast')"
    )

    def afp(mode: str, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-c", front, mode, *args], capture_output=True, env=env
        )

    bisect = [
        "bisect",
        recording("react-tools"),
        "--at-step",
        "call-llm#106",
        "--json",
        "--upstream",
    ]
    typer_out = afp("typer", *bisect)
    fast_out = afp("fast", *bisect)
    assert fast_out.returncode == typer_out.returncode == 0, fast_out.stderr
    assert fast_out.stdout == typer_out.stdout and len(fast_out.stdout) > 1000
    target = tmp_path / "report.json"
    assert afp("fast", *bisect, "-o", str(target)).returncode == 0
    assert target.read_bytes() == typer_out.stdout
    from agentbisect.importers import open_run

    events = afp("fast", "events", recording("react-tools"), "--json")
    lines = events.stdout.decode().splitlines()
    assert len(lines) == len(open_run(recording("react-tools")).events) > 100


# Code points around every boundary the UTF-16 shortcuts care about: ASCII, Latin-1, the BMP
# below and above the surrogates, lone high/low surrogates, astral characters.
_UNITS = st.text(
    alphabet=st.sampled_from(
        [
            *("a", "\x00", "\x7f", "é", "\u2014", "\ud7ff"),
            *("\ud800", "\udbff", "\udc00", "\udfff"),
            *("\ue000", "\uffff", "\U0001f600", "\U0010ffff"),
        ]
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_UNITS, st.integers(min_value=0, max_value=50), st.sampled_from([1, 2, 8, 32, 64, 3, 7]))
def test_utf16_shortcuts_agree_with_the_codec(text: str, cap: int, dims: int) -> None:
    # ASCII (and below-surrogate) texts skip the utf-16 codec, and the rest call the codec
    # function without the registry lookup (which imported encodings.utf_16_le at start-up):
    # the same units, lengths, cuts and mock vectors as str.encode/bytes.decode gave.
    from agentbisect.core.js import cap_utf16, utf16_len

    data = text.encode("utf-16-le", "surrogatepass")
    assert utf16_len(text) == len(data) // 2
    want = text if len(data) <= 2 * cap else data[: 2 * cap].decode("utf-16-le", "surrogatepass")
    assert cap_utf16(text, cap) == want
    units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
    vec = [0] * dims
    for u in units:
        vec[u % dims] += 1
    assert MockEmbedder(dims).embed(text) == vec
