"""The fast front end (``agentbisect.cli.fast``) and the typer app, both built from each command's
one option table, accept the same command lines the same way: random command lines reach the same
body call through both (the fast parser's value rules are typer's), what the fast parser refuses
goes to typer, and real processes give the same bytes and exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentbisect.cli import MODULES, app, argv, spec_of
from agentbisect.core.options import Opt
from tests.conftest import afp_loaded
from tests.helpers import recording

ROOT = Path(__file__).resolve().parent.parent
GROUP = typer.main.get_command(app)
COMMANDS = sorted(MODULES)


# ----------------------------------------------------------------------- one table, two parsers


def test_the_root_options_are_left_to_typer() -> None:
    # Before the command the fast parser takes only --debug; every other root option (help,
    # --version, completion) is left to typer.
    assert {p.name for p in GROUP.params} == {
        "debug",
        "version",
        "install_completion",
        "show_completion",
    }


_TEXT = st.sampled_from(["x", "call-llm#40", "", "a b", "--json", "-v", "@f", "é", "-", "=x"])


def _values(opt: Opt) -> st.SearchStrategy[str]:
    if opt.kind is int or opt.kind is float:
        return st.one_of(
            st.integers(-3, 400).map(str),
            st.from_regex(r"-?[0-9]{1,3}\.[0-9]{1,3}", fullmatch=True),
            st.sampled_from(["1e3", " 3", "+3", "1_0", "nan", "x", "0x10", "007"]),
        )
    if isinstance(opt.kind, type) and issubclass(opt.kind, Enum):
        names = [str(m.value) for m in opt.kind]
        return st.one_of(
            st.sampled_from(names),
            st.sampled_from(names).map(str.upper),
            st.sampled_from(["nope", "", "JSONL"]),
        )
    return _TEXT


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(COMMANDS))
    spec = spec_of(command)
    tokens: list[str] = []
    for opt in draw(st.lists(st.sampled_from(spec.options), max_size=6)):
        flag = draw(st.sampled_from(opt.flags))
        if opt.kind is bool:
            tokens.append(flag)
            continue
        value = draw(_values(opt))
        if flag.startswith("--") and draw(st.booleans()):
            tokens.append(f"{flag}={value}")
        else:
            tokens += [flag, value]
    if opt_required := [o for o in spec.options if o.required]:
        for o in opt_required:
            tokens += [o.flags[0], "out.json"]
    for arg in spec.args:  # afp diff takes two runs
        if arg.required or draw(st.booleans()):
            at = draw(st.integers(0, len(tokens)))
            tokens.insert(at, draw(st.sampled_from(["run.json", "-"])))
    extra = draw(st.sampled_from([[], [], [], ["--debug"], ["-v"], ["--help"], ["-x"], ["--"]]))
    for token in extra:
        tokens.insert(draw(st.integers(0, len(tokens))), token)
    head = draw(st.sampled_from([[], [], ["--debug"], ["-v"]]))
    return [*head, command, *tokens]


class _Seen(Exception):
    """Raised by the stand-in body: typer got this far with these keyword values."""

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs


def _typer_call(monkeypatch: pytest.MonkeyPatch, line: list[str]) -> dict[str, Any] | None:
    """The keyword values the typer app calls the command body with (None: it did not)."""
    from agentbisect.cli import flow

    seen: dict[str, Any] = {}

    def fake_call(body: Any, kwargs: dict[str, Any]) -> int:
        seen.update(kwargs, _debug=flow.state.debug)
        return 0

    monkeypatch.setattr(flow, "call", fake_call)
    res = CliRunner().invoke(app, line)
    if not seen:
        assert res.exit_code != 0 or "--help" in line or "-h" in line, res.output
        return None
    return seen


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(line=command_lines())
def test_random_command_lines_make_the_same_call(
    monkeypatch: pytest.MonkeyPatch, line: list[str]
) -> None:
    fast = argv.parse(line, MODULES, spec_of)
    slow = _typer_call(monkeypatch, line)
    event("fast path" if fast else "typer" if slow else "typer: an error or help")
    if fast is None:
        return  # typer decides, and so the result is typer's by construction
    assert slow is not None, line
    assert slow.pop("_debug") == fast.debug
    assert {k: (type(v), v) for k, v in fast.kwargs.items()} == {
        k: (type(v), v) for k, v in slow.items()
    }, line


@pytest.mark.parametrize(
    "line",
    [
        ["bisect", "r.json", "--at-step", "call-llm#106", "--json", "--upstream"],
        ["bisect", "r.json", "--at-llm", "-1", "--max-depth=3", "--fail-on", "any", "-o", "x"],
        ["aggregate", "r.json", "--json", "--drill", "sf#1", "--logs", "a", "--logs", "b"],
        ["events", "-", "-t", "llm.*", "--type=tool.*", "--limit", "5", "--at", "12.5"],
        ["-v", "--debug", "events", "r.json", "--format", "JSONL"],
        ["genui-stats", "--db", "sqlite:///x.db", "--min-first-try-rate", "0.9"],
        ["record", "in.jsonl", "-o", "out.json", "--detail", "lean", "--max-events", "20"],
    ],
)
def test_ordinary_command_lines_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, line: list[str]
) -> None:
    fast = argv.parse(line, MODULES, spec_of)
    assert fast is not None
    slow = _typer_call(monkeypatch, line)
    assert slow is not None and slow.pop("_debug") == fast.debug
    assert fast.kwargs == slow


@pytest.mark.parametrize(
    "line",
    [
        [],
        ["--help"],
        ["--version"],
        ["-V"],
        ["--install-completion"],
        ["bisect"],  # missing FILE
        ["bisect", "r.json", "-h"],
        ["bisect", "r.json", "--help"],
        ["bisect", "r.json", "--at-step"],  # missing value
        ["bisect", "r.json", "--max-depth", "-1"],  # below min
        ["bisect", "r.json", "--max-depth", "1e3"],
        ["bisect", "r.json", "--format", "yaml"],
        ["bisect", "r.json", "--json=1"],
        ["bisect", "r.json", "--nope"],
        ["bisect", "r.json", "-vf", "json"],  # bundled short flags
        ["bisect", "r.json", "-fjson"],
        ["bisect", "a.json", "b.json"],
        ["bisect", "--", "r.json"],
        ["record", "in.jsonl"],  # -o is required
        ["nosuch", "r.json"],
        ["--nope", "bisect", "r.json"],
    ],
)
def test_anything_else_is_left_to_typer(line: list[str]) -> None:
    assert argv.parse(line, MODULES, spec_of) is None


# ----------------------------------------------------------------------- real processes


# `python -c FRONT fast|typer ARGS…` runs afp through the fast front end or through typer.
FRONT = (
    "import sys\n"
    "fast = sys.argv[1] == 'fast'\n"
    "sys.argv = ['afp', *sys.argv[2:]]\n"
    "from agentbisect.__main__ import main\n"
    "main(fast=fast)\n"
)


def _afp(fast: bool, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-c", FRONT, "fast" if fast else "typer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", **(env or {})},
        timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr


REACT = recording("react-tools")


@pytest.mark.parametrize(
    "args",
    [
        ("bisect", REACT, "--at-step", "call-llm#106", "--json", "--upstream"),
        ("bisect", REACT, "--at-step", "call-llm#106", "--format", "text", "--upstream"),
        ("bisect", REACT, "--at-step", "nosuch#1", "--json"),  # usage error, exit 2
        ("bisect", REACT, "--at-llm", "-1", "--json", "--fail-on", "any"),  # gate, exit 1
        ("bisect", REACT, "--at-llm", "-1", "--json", "--fail-on", "baseline-unstable"),
        ("bisect", "/nonexistent.json", "--at-llm", "-1"),
        ("events", REACT, "--type", "llm.end", "--limit", "2"),
        ("events", REACT, "--type", "llm_end"),  # nothing matched
        ("events", REACT, "--json", "--table"),
        ("aggregate", REACT, "--json"),
        ("aggregate", REACT, "--format", "table", "--json"),  # not both
        ("aggregate", REACT, "-o", REACT, "--json"),  # never over the input
        ("-v", "aggregate", REACT, "--json"),
        ("genui-stats", REACT),  # a recording, not genui rows
        ("genui-stats",),  # no FILE and no --db
    ],
)
def test_both_front_ends_give_the_same_bytes_and_exit_code(args: tuple[str, ...]) -> None:
    assert argv.parse(list(args), MODULES, spec_of) is not None  # the fast path is taken
    assert _afp(True, *args) == _afp(False, *args)


def test_debug_shows_the_same_traceback_and_keeps_the_exit_code() -> None:
    args = ("bisect", "/nonexistent.json", "--at-llm", "-1", "--debug")
    fast, slow = _afp(True, *args), _afp(False, *args)
    assert fast[0] == slow[0] == 2
    assert "Traceback" in fast[2] and fast[2].splitlines()[-1] == slow[2].splitlines()[-1]


def test_closing_the_pipe_early_exits_0_on_the_fast_path() -> None:
    code = (
        "import sys\n"
        "sys.argv = ['afp', *sys.argv[1:]]\n"
        "from agentbisect.__main__ import main\n"
        "main()\n"
    )
    for command in (["events", REACT, "--json"], ["aggregate", REACT, "--json"]):
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0, err
        assert b"Traceback" not in err and b"Broken pipe" not in err


def test_a_shell_completion_request_goes_to_typer() -> None:
    got = _afp(
        True, env={"_AFP_COMPLETE": "complete_bash", "COMP_WORDS": "afp bis", "COMP_CWORD": "1"}
    )
    assert got[0] == 0 and "bisect" in got[1]


# ----------------------------------------------------------------------- what the fast path loads

HEAVY = ("typer", "click", "rich", "numpy", "pydantic", "agentbisect.cli.typer_app")


def _loaded(*args: str) -> set[str]:
    return afp_loaded(*args, among=HEAVY, env={"PYTHONPATH": str(ROOT), "COLUMNS": "100"})


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (("bisect", REACT, "--at-step", "call-llm#106", "--json", "--upstream"), set()),
        (("bisect", REACT, "--at-llm", "-1", "--json", "--embedder", "mock"), set()),
        (("events", REACT, "--json"), set()),
        # the rollups are numpy's (issue 10 leaves that to the long-run work)
        (("aggregate", REACT, "--json"), {"numpy"}),
    ],
)
def test_the_fast_path_loads_no_cli_framework(args: tuple[str, ...], allowed: set[str]) -> None:
    assert _loaded(*args) <= allowed


def test_help_still_comes_from_typer() -> None:
    assert {"typer", "agentbisect.cli.typer_app"} <= _loaded("bisect", "--help")


def test_the_typer_app_loads_no_numpy_or_rich() -> None:
    code = (
        "import sys, agentbisect.cli.typer_app; print(sorted({'numpy', 'rich'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_record_writes_the_same_file_and_refuses_the_same_overwrite(tmp_path: Path) -> None:
    fast_out, slow_out = tmp_path / "fast.json", tmp_path / "slow.json"
    fast = _afp(True, "record", REACT, "-o", str(fast_out), "--detail", "lean")
    slow = _afp(False, "record", REACT, "-o", str(slow_out), "--detail", "lean")
    assert fast[0] == slow[0] == 0
    assert fast_out.read_bytes() == slow_out.read_bytes()
    # the same target again, without --force: the same refusal from both
    again = [_afp(f, "record", REACT, "-o", str(fast_out)) for f in (True, False)]
    assert again[0] == again[1] and again[0][0] == 2


def test_sigterm_ends_the_fast_path_like_the_typer_path(tmp_path: Path) -> None:
    # A rerun that sleeps keeps afp busy inside the command body; SIGTERM then unwinds it.
    import signal
    import time

    sleeper = f"{sys.executable} -c 'import time; time.sleep(30)'"
    args = ["bisect", REACT, "--at-llm", "-1", "--json", "--rerun", sleeper, "--samples", "2"]
    got = []
    for front in ("fast", "typer"):
        proc = subprocess.Popen(
            [sys.executable, "-c", FRONT, front, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        time.sleep(3)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        got.append((proc.returncode, err.strip().splitlines()[-1]))
    assert got[0] == got[1] == (143, "afp: terminated (SIGTERM)")
