"""`afp events --format json` in a pipe streams the recorded events into one array: the same bytes
the joined array had (tests/test_cli_foundation.py checks the JSON Lines form)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from msgspec import Raw

from agentbisect.importers import open_run
from tests.helpers import recording


def _afp(*args: str) -> bytes:
    proc = subprocess.run(
        [sys.executable, "-m", "agentbisect", *args], capture_output=True, check=True, timeout=120
    )
    return proc.stdout


@pytest.mark.parametrize(
    ("name", "extra", "types"),
    [
        ("react-tools", [], None),
        ("composition", ["--type", "llm.*"], ("llm.start", "llm.end")),
        ("react-tools", ["--type", "no.such"], ()),
    ],
)
def test_the_array_is_the_recorded_events_joined(
    name: str, extra: list[str], types: tuple[str, ...] | None
) -> None:
    run = open_run(recording(name))
    raws = run.loaded.domain.raws() if run.loaded.domain is not None else []
    kept = [
        bytes(r) for r, e in zip(raws, run.events, strict=True) if types is None or e.type in types
    ]
    assert _afp("events", recording(name), "--format", "json", *extra) == (
        b"[" + b",".join(kept) + b"]\n"
    )


def test_a_table_never_splits_the_row_into_raw_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the JSON outputs write the recorded bytes: a table of a 30 MB run used to decode the
    boundary row a second time for them (~15 ms, ~170 M instructions) and throw them away."""
    from agentbisect.model.loaded import DomainEvents
    from tests.conftest import cli

    split = DomainEvents.raws
    calls: list[int] = []

    def counted(self: DomainEvents) -> list[Raw]:
        calls.append(1)
        return split(self)

    monkeypatch.setattr(DomainEvents, "raws", counted)
    table = cli("events", recording("react-tools"), "--table", "--limit", "3")
    assert table.exit_code == 0, table.stderr
    assert "3 of " in table.stdout and calls == []
    lines = cli("events", recording("react-tools"), "--json", "--limit", "3")
    assert lines.exit_code == 0, lines.stderr
    assert len(lines.stdout.splitlines()) == 3 and calls  # the JSON outputs still use them
