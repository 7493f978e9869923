"""``afp genui-stats`` end to end: CliRunner and real subprocesses, every bad-input path."""

from __future__ import annotations

import functools
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import afp_proc
from tests.test_genui_summary import EMPTY, SPEC_8A, expected, key_order

runner = CliRunner()
LINES = SPEC_8A.read_text().splitlines()


afp = functools.partial(afp_proc, text=False)  # output as bytes


def run(*args: str, input: str | bytes | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["genui-stats", *args], input=input)


def one_line_error(res, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    assert res.exit_code == code, (res.stdout, res.stderr)
    err = res.stderr.strip()
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout
    assert len(err.splitlines()) == 1, err
    assert err.startswith("afp: ")
    return err


def test_json_output_is_the_spec_example(tmp_path: Path) -> None:
    res = run(str(SPEC_8A), "--json")
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    want = expected("spec-8a.expected.json")
    assert got == want and key_order(got) == key_order(want)


def test_range_variant_8b() -> None:
    res = run(str(SPEC_8A), "--json", "--from", "2026-07-21", "--to", "2026-07-21")
    got = json.loads(res.stdout)
    want = expected("spec-8b.expected-partial.json")
    assert {k: got[k] for k in want} == want


def test_subprocess_gzip_stdin_and_json_array_agree(tmp_path: Path) -> None:
    gz = tmp_path / "rows.data"  # gzip is sniffed by magic bytes, not by the name
    gz.write_bytes(gzip.compress(SPEC_8A.read_bytes()))
    array = "[\n" + ",\n".join(LINES) + "\n]\n"
    want = expected("spec-8a.expected.json")
    for args, stdin in (
        ([str(gz)], None),
        (["-"], SPEC_8A.read_bytes()),
        (["-"], array.encode()),
        (["-"], gzip.compress(array.encode())),
    ):
        proc = afp("genui-stats", *args, "--json", input=stdin)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == want


def test_subprocess_tables_in_a_pipe() -> None:
    proc = afp("genui-stats", str(SPEC_8A))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    for heading in ("Generative UI", "By tool and model", "Top errors", "By day (UTC)",
                    "Cost per turn", "Frame latency"):  # fmt: skip
        assert heading in text
    assert "25.0%" in text and "2026-07-21" in text and "$0.0180" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_empty_file_and_empty_range_print_the_empty_document(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    for args in ([str(empty)], [str(SPEC_8A), "--from", "2030-01-01"]):
        res = run(*args, "--json")
        assert res.exit_code == 0
        assert json.loads(res.stdout) == EMPTY
    res = run(str(empty))
    assert res.exit_code == 0 and "No genui calls in range." in res.stdout


def test_terminal_text_is_scrubbed_of_escape_sequences(tmp_path: Path) -> None:
    row = json.loads(LINES[0])
    row["errorMessage"] = "boom \x1b[31mred\x1b[0m \x1b]0;pwned\x07 [bold]x[/bold]"
    row["toolName"] = "ui__\x1b[2Jrender"
    f = tmp_path / "evil.jsonl"
    f.write_text(json.dumps(row) + "\n")
    res = run(str(f))
    assert res.exit_code == 0
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout
    assert "[bold]x[/bold]" in res.stdout  # printed literally, never as markup
    # JSON keeps the recorded text as-is (escaped by the encoder).
    assert json.loads(run(str(f), "--json").stdout)["errors"][0]["message"] == row["errorMessage"]


def test_scrub_option_merges_and_hides_quoted_values(tmp_path: Path) -> None:
    rows = []
    for i, name in enumerate(["Jane", "Bob"]):
        row = json.loads(LINES[0])
        row.update(toolCallId=f"x{i}", errorMessage=f"expected string, received '{name}'")
        rows.append(json.dumps(row))
    f = tmp_path / "raw.jsonl"
    f.write_text("\n".join(rows) + "\n")
    plain = json.loads(run(str(f), "--json").stdout)["errors"]
    scrubbed = json.loads(run(str(f), "--json", "--scrub").stdout)["errors"]
    assert len(plain) == 2
    assert [(e["message"], e["count"]) for e in scrubbed] == [('expected string, received "…"', 2)]


def test_gates_print_first_then_exit_1() -> None:
    res = run(str(SPEC_8A), "--json", "--min-first-try-rate", "0.5")
    assert res.exit_code == 1
    assert json.loads(res.stdout)["totals"]["firstTryRate"] == 0.25
    assert res.stderr.strip() == (
        "afp: gate tripped: first-try rate 0.25 < --min-first-try-rate 0.5"
    )
    res = run(str(SPEC_8A), "--max-failed", "3")
    assert res.exit_code == 1 and "By tool and model" in res.stdout
    assert "4 failed calls > --max-failed 3" in res.stderr
    assert (
        run(str(SPEC_8A), "--json", "--min-first-try-rate", "0.25", "--max-failed", "4").exit_code
        == 0
    )
    proc = afp("genui-stats", str(SPEC_8A), "--json", "--max-failed", "0")
    assert proc.returncode == 1 and json.loads(proc.stdout)["totals"]["failed"] == 4


def test_inconsistent_rows_warn_once_each_and_still_count(tmp_path: Path) -> None:
    row = json.loads(LINES[1])  # ok / retried, attempt 2
    row.update(validity="first_try")
    f = tmp_path / "odd.jsonl"
    f.write_text(json.dumps(row) + "\n")
    res = run(str(f), "--json")
    assert res.exit_code == 0
    assert res.stderr.count("warning") == 1
    assert 'validity "first_try" with attempt 2' in res.stderr
    assert json.loads(res.stdout)["totals"]["firstTrySuccesses"] == 1


def _bad_row(**change: object) -> str:
    row = json.loads(LINES[0])
    for key, value in change.items():
        if value is ...:
            row.pop(key)
        else:
            row[key] = value
    return json.dumps(row)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (_bad_row(toolCallId=...), "toolCallId: missing"),
        (_bad_row(step="0"), "step: expected int, got str"),
        (_bad_row(step=-1), "step: expected int >= 0"),
        (_bad_row(attempt=0), "attempt: expected int >= 1"),
        (_bad_row(outcome="maybe"), 'outcome: unknown value \'maybe\' (expected "ok" or "error")'),
        (_bad_row(validity="meh"), "validity: unknown value 'meh'"),
        (_bad_row(createdAt="2026-07-20T10:00:01"), "createdAt: naive timestamp"),
        (_bad_row(createdAt="yesterday"), "createdAt: not an RFC 3339 timestamp"),
        (_bad_row(costUsd=-0.5), "costUsd: expected float >= 0.0"),
        ("[1, 2]", "row: expected a JSON object, got array"),
        ('{"toolCallId": ', "not valid JSON"),
    ],
)
def test_bad_rows_name_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    f = tmp_path / "rows.jsonl"
    f.write_text(LINES[2] + "\n\n" + line + "\n" + LINES[3] + "\n")
    err = one_line_error(run(str(f), "--json"))
    assert err.startswith(f"afp: {f}:3: ")
    assert message in err


def test_bad_row_in_a_pretty_json_array_points_at_its_field_line(tmp_path: Path) -> None:
    rows = [json.loads(LINES[0]), json.loads(LINES[1])]
    rows[1]["payloadBytes"] = "big"
    f = tmp_path / "rows.json"
    f.write_text(json.dumps(rows, indent=2))
    text = f.read_text().splitlines()
    want = next(i for i, s in enumerate(text, 1) if '"payloadBytes": "big"' in s)
    err = one_line_error(run(str(f)))
    assert err == f"afp: {f}:{want}: payloadBytes: expected int, got str"
    f.write_text("[\n" + LINES[0] + ",\n" + LINES[1] + ",\n]")
    assert one_line_error(run(str(f))).startswith(f"afp: {f}:4: not valid JSON")


def test_whole_file_problems(tmp_path: Path) -> None:
    assert one_line_error(run(str(tmp_path / "nope.jsonl"))).endswith("nope.jsonl: no such file")
    assert "is a directory" in one_line_error(run(str(tmp_path)))
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    assert "binary data" in one_line_error(run(str(garbage)))
    badgz = tmp_path / "bad.gz"
    badgz.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert "gzip data is corrupt" in one_line_error(run(str(badgz)))
    # msgspec reads whitespace-separated values, so a pretty-printed object is one row…
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps(json.loads(LINES[0]), indent=2))
    assert json.loads(run(str(pretty), "--json").stdout)["totals"]["calls"] == 1
    # …but a bad row among pretty-printed ones can only be located line by line: say so.
    pretty.write_text(pretty.read_text() + "\n" + json.dumps({"x": 1}, indent=2))
    assert "JSON Lines needs one complete row per line" in one_line_error(run(str(pretty)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "2026-7-1"], "--from '2026-7-1': expected a day as YYYY-MM-DD"),
        (["--to", "2026-02-30"], "--to '2026-02-30': expected a day as YYYY-MM-DD"),
        (["--from", "2026-07-22", "--to", "2026-07-21"], "is later than --to"),
        (["--min-first-try-rate", "1.5"], "expected a rate between 0 and 1"),
        (["--max-failed", "-1"], "expected a count ≥ 0"),
        (["--table", "x"], "--table and --query need --db"),
        (["--db", "sqlite:///x.db"], "give a FILE or --db URL, not both"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    assert message in one_line_error(run(str(SPEC_8A), *args))


def test_usage_errors_without_a_file() -> None:
    assert "give a FILE of rows" in one_line_error(run())
    assert "unsupported URL" in one_line_error(run("--db", "mysql://u:secret@h/db"))
    assert "secret" not in run("--db", "mysql://u:secret@h/db").stderr


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_random_input_never_tracebacks(tmp_path: Path, data: bytes) -> None:
    f = tmp_path / "fuzz.jsonl"
    f.write_bytes(data)
    res = run(str(f), "--json")
    assert res.exit_code in (0, 2), res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    if res.exit_code == 2:
        one_line_error(res)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(LINES), max_size=12), st.integers(0, 200), st.binary(max_size=3))
def test_corrupted_real_rows_never_traceback(
    tmp_path: Path, lines: list[str], cut: int, junk: bytes
) -> None:
    data = "\n".join(lines).encode()
    data = data[:cut] + junk + data[cut:]
    f = tmp_path / "fuzz.jsonl"
    f.write_bytes(data)
    res = run(str(f), "--json")
    assert res.exit_code in (0, 2)
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr


# --- start-up and chunked reading -------------------------------------------------------------


def test_the_command_module_imports_no_numpy_rich_or_genui() -> None:
    # afp imports every command module at start-up: genui-stats must not make the other
    # commands pay for numpy, rich or its own library. The cli package __init__ imports all
    # commands, so stub it to see what this module alone pulls in.
    code = (
        "import sys, types, pathlib, agentbisect\n"
        "pkg = types.ModuleType('agentbisect.cli')\n"
        "pkg.__path__ = [str(pathlib.Path(agentbisect.__file__).parent / 'cli')]\n"
        "sys.modules['agentbisect.cli'] = pkg\n"
        "import agentbisect.cli.genui_stats\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'rich')"
        " or m.startswith(('agentbisect.genui', 'agentbisect.schema'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_tables_without_any_error_row(tmp_path: Path) -> None:
    f = tmp_path / "ok.jsonl"
    accepted = next(line for line in LINES if json.loads(line)["outcome"] == "ok")
    f.write_text(accepted + "\n")  # one accepted call: the errors table is left out
    res = run(str(f))
    assert res.exit_code == 0, res.stderr
    assert "By tool and model" in res.stdout and "Top errors" not in res.stdout
    assert "By day (UTC)" in res.stdout and "Frame latency" in res.stdout


def _many_rows(n: int) -> list[dict[str, object]]:
    """``n`` rows over a few turns, tools and days, with a duplicate id every 7th row."""
    base = json.loads(LINES[0])
    rows = []
    for i in range(n):
        row = dict(base)
        bad = i % 4 == 3
        row.update(
            toolCallId=f"tc-{i - 1 if i % 7 == 6 else i}",
            runId=f"r{i // 3}",
            step=i % 3,
            toolName=["ui__render", "ui__show", "ui__sandbox"][i % 3],
            outcome="error" if bad else "ok",
            validity="failed" if bad else "first_try",
            attempt=1,
            createdAt=f"2026-07-{20 + i % 3}T10:00:{i % 60:02d}.{i % 1000:03d}Z",
        )
        if bad:
            row["errorMessage"] = f"invalid Card props: title: must be {i % 5}"
            row.pop("completeFrameMs", None)
        rows.append(row)
    return rows


def test_reading_in_small_chunks_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentbisect.genui import load

    rows = _many_rows(300)
    f = tmp_path / "many.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    whole = run(str(f), "--json")
    assert whole.exit_code == 0, whole.stderr
    got = json.loads(whole.stdout)
    assert got["totals"]["calls"] == 300 - 300 // 7  # each 7th row replays the one before
    monkeypatch.setattr(load, "CHUNK_BYTES", 700)  # a row or two per chunk
    assert json.loads(run(str(f), "--json").stdout) == got
    # A bad row deep in the file: the line is counted over the whole file, not the chunk.
    rows[250]["step"] = "x"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    err = one_line_error(run(str(f), "--json"))
    assert err == f"afp: {f}:251: step: expected int, got str"


def test_rows_read_alike_in_every_form(tmp_path: Path) -> None:
    # (Big files were once memory-mapped; inputs are read now, so a file truncated while afp
    # reads it cannot end in a bus error.)
    want = expected("spec-8a.expected.json")
    assert json.loads(run(str(SPEC_8A), "--json").stdout) == want
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + SPEC_8A.read_bytes())
    assert json.loads(run(str(bom), "--json").stdout) == want
    gz = tmp_path / "rows.jsonl.gz"
    gz.write_bytes(gzip.compress(SPEC_8A.read_bytes()))
    assert json.loads(run(str(gz), "--json").stdout) == want
    array = tmp_path / "rows.json"
    array.write_text("[" + ",".join(LINES) + "]")
    assert json.loads(run(str(array), "--json").stdout) == want
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert json.loads(run(str(empty), "--json").stdout) == EMPTY
    bad = tmp_path / "bad.jsonl"
    bad.write_text(LINES[0] + "\n" + _bad_row(createdAt="2026-07-20T10:00:01") + "\n")
    err = one_line_error(run(str(bad), "--json"))
    assert err.startswith(f"afp: {bad}:2: createdAt: naive timestamp")


@pytest.mark.parametrize("data", [b"[0", b"[0, {", b'["x"', b"[{}, 1", b"[\n{},\n7,\n{"])
def test_wrong_row_ahead_of_broken_json_is_one_line(tmp_path: Path, data: bytes) -> None:
    """A row of the wrong type before the JSON breaks off: the typed decode stops at the row and
    the row cannot be located in JSON that does not parse — it used to end in "internal error:
    DecodeError" (found by the fuzz test above)."""
    f = tmp_path / "rows.json"
    f.write_bytes(data)
    res = run(str(f), "--json")
    assert res.exit_code == 2, res.stderr
    assert "internal error" not in res.stderr
    one_line_error(res)
    assert "not valid JSON" in res.stderr
