"""Hostile inputs end in one-line errors naming the input and the problem, never a crash.

Bombs and endless inputs are refused early (a FIFO stands in for a device), every inflated input
has a ceiling, a UTF-8 BOM is accepted everywhere and UTF-16/32 is named, and JSON supplied by
options goes through the same depth-safe decoding as recordings.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import CAPTURE, PLANTED, ROOT, UPSTREAM, afp_proc
from tests.conftest import GENUI as GENUI_DIR
from tests.conftest import MINI as MINI_DIR

UP = UPSTREAM
PF = str(PLANTED)
GENUI = GENUI_DIR / "spec-8a.jsonl"

runner = CliRunner()


def afp(*args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> Any:
    return runner.invoke(app, list(args), env=env, input=input)


def one_line(res: Any, code: int = 2) -> str:
    assert res.exit_code == code, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    return str(lines[0])


def proc_one_line(proc: subprocess.CompletedProcess[bytes], code: int = 2) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


_afp_proc = functools.partial(afp_proc, text=False)  # output as bytes


# ----------------------------------------------------------------------- bombs and endless input


def test_gzip_of_zeros_is_refused_before_inflating(tmp_path: Path) -> None:
    bomb = tmp_path / "zeros.json.gz"
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with bomb.open("wb") as fh:
        block = bytes(1 << 20)
        for _ in range(64):  # 64 MiB of zeros in ~64 KB
            fh.write(c.compress(block))
        fh.write(c.flush())
    line = one_line(afp("events", str(bomb), "--json"))
    assert str(bomb) in line and "byte 0x00" in line and "binary data" in line


def test_inflated_size_has_a_cap_named_in_the_error(tmp_path: Path) -> None:
    gz = tmp_path / "pf.json.gz"
    gz.write_bytes(gzip.compress(Path(PF).read_bytes()))
    line = one_line(afp("events", str(gz), "--json", env={"AFP_MAX_INPUT_BYTES": "64K"}))
    assert "64 KiB" in line and "AFP_MAX_INPUT_BYTES" in line
    assert afp("events", str(gz), "--json", env={"AFP_MAX_INPUT_BYTES": "1M"}).exit_code == 0


def test_plain_input_over_the_cap(tmp_path: Path) -> None:
    line = one_line(afp("aggregate", PF, "--json", env={"AFP_MAX_INPUT_BYTES": "100000"}))
    assert "100,000 bytes" in line and "AFP_MAX_INPUT_BYTES" in line


def test_bad_cap_value_is_a_usage_error() -> None:
    line = one_line(afp("events", PF, "--json", env={"AFP_MAX_INPUT_BYTES": "lots"}))
    assert "AFP_MAX_INPUT_BYTES" in line


def test_endless_binary_stream_is_refused_after_the_first_chunk(tmp_path: Path) -> None:
    # A FIFO fed with zeros stands in for /dev/zero: afp must stop reading long before the end.
    fifo = tmp_path / "zeros"
    os.mkfifo(fifo)
    total = 256 << 20
    written = [0]

    def feed() -> None:
        try:
            with fifo.open("wb") as fh:
                block = bytes(1 << 16)
                while written[0] < total:
                    fh.write(block)
                    written[0] += len(block)
        except BrokenPipeError:
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    line = one_line(afp("events", str(fifo), "--json"))
    t.join(30)
    assert not t.is_alive()
    assert "binary data" in line
    assert written[0] < 16 << 20


def test_closed_stdin_is_named() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m agentbisect events - --json <&-",
        shell=True,
        capture_output=True,
        timeout=60,
    )
    line = proc_one_line(proc)
    assert "stdin" in line and "closed" in line


@pytest.mark.parametrize("command", ["events", "aggregate"])
def test_closed_stdout_is_named(command: str) -> None:
    proc = subprocess.run(
        f"{sys.executable} -m agentbisect {command} {PF} >&-",
        shell=True,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    line = proc_one_line(proc)
    assert "stdout" in line and "closed" in line


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_full_is_a_one_line_error() -> None:
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "agentbisect", "events", PF, "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    line = proc_one_line(proc)
    assert "stdout" in line and "No space left" in line


# ----------------------------------------------------------------------- encodings


@pytest.mark.parametrize("command", ["events", "aggregate", "bisect", "record"])
def test_utf8_bom_is_accepted_everywhere(tmp_path: Path, command: str) -> None:
    with_bom = tmp_path / "bom.json"
    with_bom.write_bytes(b"\xef\xbb\xbf" + Path(PF).read_bytes())
    tail = {
        "events": ["--json"],
        "aggregate": ["--json"],
        "bisect": ["--at-step", "call-llm#40", "--json"],
        "record": ["-o", str(tmp_path / "out.json")],
    }[command]
    res = afp(command, str(with_bom), *tail)
    assert res.exit_code == 0, res.stderr
    if command != "record":
        assert _same_but_source(res.stdout, afp(command, PF, *tail).stdout)


def _same_but_source(a: str, b: str) -> bool:
    """Equal outputs, but for the file name and size the aggregate output reports."""

    def doc(text: str) -> Any:
        try:
            d = json.loads(text)
        except json.JSONDecodeError:  # JSON Lines
            return [json.loads(line) for line in text.splitlines()]
        if isinstance(d.get("source"), dict):
            d["source"].pop("file", None)
            d["source"].pop("bytes", None)
        return d

    return bool(doc(a) == doc(b))


def test_utf8_bom_in_option_files(tmp_path: Path) -> None:
    deps = tmp_path / "deps.json"
    deps.write_bytes(b"\xef\xbb\xbf" + (UP / "planted-fact.control-deps.json").read_bytes())
    res = afp("bisect", PF, "--at-step", "call-llm#40", "--control-deps", str(deps), "--json")
    assert res.exit_code == 0, res.stderr


def test_utf8_bom_in_a_capture(tmp_path: Path) -> None:
    cap = CAPTURE
    with_bom = tmp_path / "cap.jsonl"
    with_bom.write_bytes(b"\xef\xbb\xbf" + cap.read_bytes())
    res = afp("record", str(with_bom), "-o", str(tmp_path / "out.json"))
    assert res.exit_code == 0, res.stderr


@pytest.mark.parametrize(
    ("codec", "name"),
    [("utf-16", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE"), ("utf-32", "UTF-32 LE")],
)
def test_utf16_and_utf32_are_named(tmp_path: Path, codec: str, name: str) -> None:
    f = tmp_path / "wide.json"
    f.write_bytes(Path(PF).read_text(encoding="utf-8").encode(codec))
    line = one_line(afp("events", str(f), "--json"))
    assert str(f) in line and name in line and "UTF-8" in line
    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(GENUI.read_text(encoding="utf-8").encode(codec))
    line = one_line(afp("genui-stats", str(rows), "--json"))
    assert name in line


# ----------------------------------------------------------------------- genui-stats edge cases


def _row(**changes: Any) -> str:
    row = json.loads(GENUI.read_text(encoding="utf-8").splitlines()[0])
    row.update(changes)
    return json.dumps(row)


@pytest.mark.parametrize(
    ("rows", "needle"),
    [
        ([_row(createdAt="9999-12-31T23:59:59.000-23:59")], "createdAt"),
        ([_row(createdAt="0001-01-01T00:00:00.000+23:59")], "createdAt"),
        (
            [_row(toolCallId=f"c{i}", costUsd=1.7e308) for i in range(3)],
            "costUsd",
        ),
        ([_row(inputTokens=2**70)], "inputTokens"),
        (["[" * 100_000 + "]" * 100_000], "nest"),
    ],
)
def test_genui_edge_cases_are_one_line_errors(tmp_path: Path, rows: list[str], needle: str) -> None:
    f = tmp_path / "rows.jsonl"
    f.write_text("\n".join(rows) + "\n")
    line = one_line(afp("genui-stats", str(f), "--json"))
    assert str(f) in line and needle in line


def test_a_directory_as_the_sqlite_database(tmp_path: Path) -> None:
    line = one_line(afp("genui-stats", "--db", f"sqlite:///{tmp_path}"))
    assert str(tmp_path) in line and "is a directory" in line


# ----------------------------------------------------------------------- option files


@pytest.mark.parametrize("option", ["--control-deps", "--missing-context"])
def test_deeply_nested_option_file_is_an_error_not_a_segfault(tmp_path: Path, option: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    proc = _afp_proc("bisect", PF, "--at-step", "call-llm#40", option, str(deep))
    line = proc_one_line(proc)
    assert str(deep) in line


@pytest.mark.parametrize("option", ["--control-deps", "--missing-context"])
def test_option_file_nested_past_the_limit(tmp_path: Path, option: str) -> None:
    deep = tmp_path / "deeper.json"
    deep.write_text("[" * 150_000 + "]" * 150_000)
    proc = _afp_proc("bisect", PF, "--at-step", "call-llm#40", option, str(deep))
    line = proc_one_line(proc)
    assert str(deep) in line and "nests deeper" in line


# ----------------------------------------------------------------------- Ctrl-C while importing

_INTERRUPT_IMPORT = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
sys.argv = ["afp", "events", {pf!r}, "--json", *{extra!r}]
from {entry_module} import {entry_function} as main
sys.exit(main())
"""


def _console_script() -> tuple[str, str]:
    """The ``afp`` console script's ``module:function``, as pyproject.toml declares it."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    module, _, function = project["scripts"]["afp"].partition(":")
    return module, function


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        # the fast front end (an ordinary command line) and the typer app (help falls back to it)
        ("msgspec", []),
        ("agentbisect.cli.fast", []),
        ("typer", ["--help"]),
        ("agentbisect.cli.typer_app", ["--help"]),
    ],
)
def test_ctrl_c_while_importing_prints_no_traceback(module: str, extra: list[str]) -> None:
    entry_module, entry_function = _console_script()
    code = _INTERRUPT_IMPORT.format(
        module=module,
        pf=PF,
        extra=extra,
        entry_module=entry_module,
        entry_function=entry_function,
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err


def _deep_commit_value(tmp_path: Path, depth: int) -> Path:
    rec = json.loads((MINI_DIR / "mini-a.json").read_text())
    rec["snapshot"]["commitLog"][2]["overwrite"]["plan"] = "@@DEEP@@"
    text = json.dumps(rec).replace('"@@DEEP@@"', "[" * depth + '"x"' + "]" * depth)
    p = tmp_path / f"deep{depth}.json"
    p.write_text(text)
    return p


@pytest.mark.parametrize("command", ["bisect", "aggregate", "events"])
def test_a_recording_with_a_deep_value_is_read(tmp_path: Path, command: str) -> None:
    # 5,000 levels: deeper than Python's default limit, well inside what afp reads.
    p = _deep_commit_value(tmp_path, 5_000)
    extra = ["--at-step", "llm#6"] if command == "bisect" else []
    proc = _afp_proc(command, str(p), *extra, "--json")
    assert proc.returncode == 0, proc.stderr.decode()


@pytest.mark.parametrize("command", ["bisect", "aggregate"])
def test_a_value_too_deep_to_analyse_is_a_one_line_error(tmp_path: Path, command: str) -> None:
    p = _deep_commit_value(tmp_path, 60_000)
    extra = ["--at-step", "llm#6"] if command == "bisect" else []
    line = proc_one_line(_afp_proc(command, str(p), *extra, "--json"))
    assert str(p) in line and "nests too deeply" in line
