"""Arbitrary nested JSON given to every option that reads a user-supplied JSON file.

Whatever the file holds, afp answers with its normal output (exit 0) or one line on stderr naming
the file (exit 2): never an internal error, a traceback or a crash.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import MINI

MINI_A = str(MINI / "mini-a.json")
# Ids that exist in the recording, so that well-shaped values reach past the shape checks.
IDS = ["seed#0", "ctx#1", "llm#2", "route#3", "tool#4", "llm#6", "promo-fact", "m-7"]
# Every option of every command that reads a JSON file the user supplies.
JSON_FILE_OPTIONS = ["--control-deps", "--missing-context"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(IDS)
)
keys = st.text(max_size=8) | st.sampled_from(
    [*IDS, "available", "sent", "id", "content", "deciderId", "label"]
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=25,
)
nested = st.builds(
    lambda depth, kind, leaf: (
        json.dumps(leaf) if depth == 0 else kind[0] * depth + json.dumps(leaf) + kind[1] * depth
    ),
    st.integers(min_value=0, max_value=3000),
    st.sampled_from([("[", "]"), ('{"a":' * 1, "}")]),
    json_values,
)

runner = CliRunner()


def _run(option: str, text: str, encoding: str) -> tuple[Any, str]:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "option.json"
        f.write_text(text, encoding=encoding)
        res = runner.invoke(app, ["bisect", MINI_A, "--at-step", "llm#6", option, str(f), "--json"])
    return res, str(f)


def _check(option: str, text: str) -> None:
    res, f = _run(option, text, "utf-8")
    # A UTF-8 byte-order mark never changes the answer.
    with_bom, f_bom = _run(option, text, "utf-8-sig")
    assert with_bom.exit_code == res.exit_code, with_bom.stderr
    assert with_bom.stdout == res.stdout
    assert with_bom.stderr.replace(f_bom, f) == res.stderr
    assert res.exit_code in (0, 2), (res.exit_code, res.stderr)
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f in lines[0], res.stderr
    else:
        json.loads(res.stdout)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option=st.sampled_from(JSON_FILE_OPTIONS), value=json_values)
def test_any_json_value_in_an_option_file(option: str, value: Any) -> None:
    _check(option, json.dumps(value))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option=st.sampled_from(JSON_FILE_OPTIONS), text=nested)
def test_nested_json_in_an_option_file(option: str, text: str) -> None:
    _check(option, text)


def _values_after_the_first(value: Any) -> int:
    """Array items and object members after each container's first: one comma before each."""
    if isinstance(value, list):
        return max(len(value) - 1, 0) + sum(_values_after_the_first(v) for v in value)
    if isinstance(value, dict):
        return max(len(value) - 1, 0) + sum(_values_after_the_first(v) for v in value.values())
    return 0


@given(json_values, st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_element_budget_counts_exactly_the_commas_between_values(
    value: Any, pretty: bool
) -> None:
    # Strings (keys too) may hold commas, quotes and escapes; none of theirs may be counted.
    from agentbisect.core.budget import _STRING

    data = json.dumps(value, indent=1 if pretty else None, ensure_ascii=False).encode()
    assert _STRING.sub(b'""', data).count(b",") == _values_after_the_first(value)
