"""What the real ``langsmith-fetch`` writes with ``--format pretty`` (its default; fixtures made
by running the CLI against a fake API, ``fixtures/exports/generate.py langsmith-pretty``) is text
for people — sections under rules, no tool-call ids, LangChain's serialized messages shown as
"constructor" with no content — so afp refuses it in one line that says to fetch with
``--format json``, exit 2, whatever the command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentbisect.importers.langsmith import fetch_pretty
from tests.conftest import FIXTURES, afp_proc

PRETTY = sorted((FIXTURES / "exports").glob("langsmith.*.pretty.txt"))


@pytest.mark.parametrize("path", PRETTY, ids=lambda p: p.name)
def test_pretty_output_is_refused_with_a_pointer_to_the_json_form(path: object) -> None:
    for command in (["aggregate"], ["bisect", "--at-llm", "-1"]):
        proc = afp_proc(command[0], str(path), *command[1:])
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert str(path) in proc.stderr
        assert "--format pretty" in proc.stderr and "--format json" in proc.stderr


def test_both_real_forms_are_present() -> None:
    assert [p.name for p in PRETTY] == [
        "langsmith.refund-agent.fetch-metadata.pretty.txt",
        "langsmith.refund-agent.fetch.pretty.txt",
    ]
    assert all(fetch_pretty(p.read_bytes()) for p in PRETTY)


SECTIONS = (b"Message 1: ", b"RUN METADATA\n", b"FEEDBACK\n")


@given(st.sampled_from([b"", b"=" * 60 + b"\n"]), st.sampled_from([b"", *SECTIONS]), st.binary())
def test_only_a_rule_then_a_section_heading_is_taken_for_it(
    rule: bytes, section: bytes, rest: bytes
) -> None:
    data = rule + section + rest
    if b"\r" not in data[:200] and not data.startswith(b"\xef\xbb\xbf"):
        assert fetch_pretty(data) == (bool(rule) and (section + rest).startswith(SECTIONS))
