"""Recorded text never reaches a human-facing output raw; JSON keeps it, escaped on a terminal.

One character set for every human-facing output: C0/C1 controls but newline and tab, DEL, and the
bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, plus whole escape sequences.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from agentbisect.render.safetext import clean, escape_json_for_terminal, safe, scrub
from tests.conftest import MINI, UPSTREAM, afp_on_a_terminal
from tests.helpers import rerun_until_approved

UP = UPSTREAM
MINI_A = MINI / "mini-a.json"

BIDI = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e"]
BIDI += ["\u2066", "\u2067", "\u2068", "\u2069"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
C0 = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"] + ["\x7f"]
HOSTILE = "Call\x1b]0;pwned\x07LLM\x1b[2J\x1bP1$qm\x1b\\\x9b31m\u202eevil\u200e\u200f\u061c\x85!"

runner = CliRunner()


@pytest.mark.parametrize("ch", BIDI + C1 + C0)
def test_one_character_set_for_every_human_output(ch: str) -> None:
    # At the end of the text, so that no sequence can swallow a following character.
    for fn in (scrub, clean):
        assert fn(f"a{ch}") in ("a", "a ")  # \r becomes a space where lines are joined
    assert safe(f"a{ch}").plain in ("a", "a ")
    assert scrub(f"a{ch}", keep_newlines=True) == "a"


def test_newline_and_tab_survive_where_lines_are_kept() -> None:
    assert scrub("a\tb\nc", keep_newlines=True) == "a\tb\nc"
    assert scrub("a\tb\nc") == "a b c"


def test_escape_sequences_go_whole() -> None:
    assert scrub(HOSTILE) == "CallLLMevil!"


def _hostile_recording(tmp_path: Path) -> Path:
    rec = json.loads(MINI_A.read_text())
    for bundle in rec["snapshot"]["commitLog"]:
        if bundle["runtimeStageId"] == "llm#2":
            bundle["stage"] = HOSTILE
    p = tmp_path / "hostile.json"
    p.write_text(json.dumps(rec))
    return p


def _assert_safe(text: str) -> None:
    for ch in ["\x1b", *C1, *BIDI]:
        assert ch not in text, repr(ch)
    assert "pwned" not in text and "2J" not in text


def test_bisect_text_format_is_scrubbed(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["bisect", str(_hostile_recording(tmp_path)), "--at-step", "llm#6", "--format", "text"]
    )
    assert res.exit_code == 0, res.stderr
    assert "CallLLMevil!" in res.stdout
    _assert_safe(res.stdout)


def test_bisect_table_is_scrubbed(tmp_path: Path) -> None:
    res = runner.invoke(app, ["bisect", str(_hostile_recording(tmp_path)), "--at-step", "llm#6"])
    assert res.exit_code == 0, res.stderr
    _assert_safe(res.stdout)


def test_piped_json_keeps_the_bytes(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["bisect", str(_hostile_recording(tmp_path)), "--at-step", "llm#6", "--json"]
    )
    assert res.exit_code == 0
    assert HOSTILE in set(_strings(json.loads(res.stdout)))


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_escape_json_for_terminal_keeps_the_value() -> None:
    doc = json.dumps({"s": "x" + "".join(BIDI + C1) + "\x7fy"}, ensure_ascii=False)
    out = escape_json_for_terminal(doc.encode("utf-8"))
    assert json.loads(out) == json.loads(doc)
    _assert_safe(out.decode("ascii"))


def _on_a_terminal(args: list[str]) -> bytes:
    """Run afp with stdout on a pseudo-terminal; return what the terminal received."""
    code, shown, err = afp_on_a_terminal(*args, columns=200, terminal="stdout")
    assert code == 0, err
    return shown


def test_json_on_a_terminal_escapes_c1_and_bidi(tmp_path: Path) -> None:
    rec = json.loads((UP / "react-tools.recording.json").read_text())
    rows = rec["snapshot"]["recorders"]
    data = next(r for r in rows if r["name"] == "BoundaryEvents")["data"]
    end = next(e for e in data if e["type"] == "llm.end")
    end["content"] = "ok\u202eevil\x85\u200e"
    p = tmp_path / "r.json"
    p.write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    shown = _on_a_terminal(["events", str(p), "--json"])
    assert b"ok\\u202eevil\\u0085\\u200e" in shown
    for ch in ["\u202e", "\x85", "\u200e"]:
        assert ch.encode("utf-8") not in shown
    piped = subprocess.run(
        [sys.executable, "-m", "agentbisect", "events", str(p), "--json"],
        capture_output=True,
        timeout=60,
    )
    assert piped.stdout == shown.replace(b"\r\n", b"\n")  # a pipe gets what a terminal gets


def test_json_in_a_pipe_escapes_c1_and_bidi_in_every_output(tmp_path: Path) -> None:
    # Issue 28: piped JSON carried raw U+009B (an 8-bit CSI), U+0085 and bidi controls.
    rec = json.loads((UP / "react-tools.recording.json").read_text())
    rows = rec["snapshot"]["recorders"]
    data = next(r for r in rows if r["name"] == "BoundaryEvents")["data"]
    end = next(e for e in data if e["type"] == "llm.end")
    end["content"] = "ok\x9b31m\u202eevil\x85\u2066\x7f"
    p = tmp_path / "r.json"
    p.write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    for args in (["events", str(p), "--format", "json"], ["events", str(p), "--json"]):
        out = subprocess.run(
            [sys.executable, "-m", "agentbisect", *args], capture_output=True, timeout=60
        ).stdout
        assert b"ok\\u009b31m\\u202eevil\\u0085\\u2066\\u007f" in out, args
        _assert_safe(out.decode("utf-8"))
        first = out.splitlines()[0] if "--json" in args else out  # (JSON Lines)
        assert json.loads(first) is not None  # still JSON


def test_streamed_json_is_escaped_across_batches() -> None:
    # The events stream is escaped in ~1 MiB batches: every batch, not only the first.
    from agentbisect.render import console

    pieces = [b"[", b'"' + b"x" * (1 << 20) + b'"', b",", '"\x85\u202e"'.encode(), b"]"]
    out = b"".join(console._escaped_batches(pieces))
    assert out == b'["' + b"x" * (1 << 20) + b'","\\u0085\\u202e"]'


def test_error_messages_are_scrubbed(tmp_path: Path) -> None:
    res = runner.invoke(app, ["bisect", str(MINI_A), "--at-step", "x\u202e\x1b]0;t\x07y"])
    assert res.exit_code == 2
    _assert_safe(res.stderr)


def _with_llm_usages(tmp_path: Path, values: list[Any]) -> tuple[Path, list[Any]]:
    rec = json.loads((UP / "react-tools.recording.json").read_text())
    rows = rec["snapshot"]["recorders"]
    data = next(r for r in rows if r["name"] == "BoundaryEvents")["data"]
    ends = [e for e in data if e["type"] == "llm.end"]
    originals = [copy.deepcopy(e["usage"]) for e in ends]
    for e, v in zip(ends, values, strict=False):
        e["usage"]["input"] = v
    p = tmp_path / "usage.json"
    p.write_text(json.dumps(rec))
    return p, originals


@pytest.mark.parametrize("bad", [-1000, 2**70, 2**53 + 2])
def test_out_of_range_token_counts_stay_out_of_the_totals(tmp_path: Path, bad: int) -> None:
    p, originals = _with_llm_usages(tmp_path, [bad])
    res = runner.invoke(app, ["aggregate", str(p), "--json"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    expected = sum(u["input"] for u in originals[1:])
    assert doc["run"]["tokens"]["input"] == expected
    assert doc["run"]["tokens"]["output"] == sum(u["output"] for u in originals)
    assert "malformed-events" in [f["flag"] for f in doc["honestyFlags"]]


@pytest.mark.parametrize("big", [2**53 - 10_000, 2**53])
def test_the_largest_safe_token_count_is_summed(tmp_path: Path, big: int) -> None:
    p, originals = _with_llm_usages(tmp_path, [big])
    res = runner.invoke(app, ["aggregate", str(p), "--json"])
    doc = json.loads(res.stdout)
    assert "malformed-events" not in [f["flag"] for f in doc["honestyFlags"]]
    if big < 2**53:  # sums past 2**53 are doubles, as upstream's JavaScript sums are
        assert doc["run"]["tokens"]["input"] == big + sum(u["input"] for u in originals[1:])


def _stderr_on_a_terminal(args: list[str]) -> tuple[int, bytes]:
    code, shown, _ = afp_on_a_terminal(*args)
    return code, shown


def test_progress_line_shows_recorded_names_as_plain_text(tmp_path: Path) -> None:
    # A probe is a recorded step id; rich markup in it used to be parsed (and crash the bar).
    rec = tmp_path / "markup.json"
    rec.write_text(MINI_A.read_text().replace('"tool#4"', '"[/oops]tool#4\\u001b]0;pwned\\u0007"'))
    answer = tmp_path / "answer.py"
    # The probe under test lingers, so the bar (refreshed a few times a second) is certain to
    # draw its name: without it a fast machine could finish that probe between two refreshes.
    answer.write_text(
        "import json, sys, time\n"
        "if 'tool#4' in json.load(sys.stdin).get('probe', ''):\n"
        "    time.sleep(0.5)\n"
        "print('Refund APPROVED')\n"
    )
    code, shown = _stderr_on_a_terminal(
        [
            "bisect",
            str(rec),
            "--at-step",
            "llm#6",
            *rerun_until_approved(answer),
            "--json",
        ]
    )
    assert code == 0, shown
    assert b"Traceback" not in shown and b"MarkupError" not in shown
    assert b"[/oops]tool#4" in shown
    assert b"pwned" not in shown
