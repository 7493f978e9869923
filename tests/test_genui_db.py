"""``afp genui-stats --db``: SQLite always; PostgreSQL when ``AFP_TEST_POSTGRES_URL`` is set."""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from agentbisect.core.errors import InputError, UsageError
from agentbisect.genui import summarize
from agentbisect.genui.db import map_columns, read_db_chunks, redact
from tests.test_genui_cli import one_line_error
from tests.test_genui_summary import SPEC_8A, as_json, expected

runner = CliRunner()
RAW = [json.loads(line) for line in SPEC_8A.read_text().splitlines()]
SNAKE = [
    "tool_call_id", "run_id", "thread_id", "actor_ref", "agent_name", "step", "tool_name",
    "channel", "mode", "model_id", "attempt", "outcome", "validity", "error_category",
    "error_message", "input_tokens", "output_tokens", "cost_usd", "cost_source",
    "first_frame_ms", "complete_frame_ms", "payload_bytes", "payload", "created_at",
]  # fmt: skip


def read_db(url: str, table: str | None = None, query: str | None = None) -> list[Any]:
    return [row for chunk in read_db_chunks(url, table, query) for row in chunk]


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def make_sqlite(
    path: Path, columns: list[str], rows: list[dict[str, Any]], table: str = "genui_calls"
) -> str:
    con = sqlite3.connect(path)
    quoted = ", ".join(f'"{c}"' for c in columns)
    con.execute(f'CREATE TABLE "{table}" ({quoted}, extra TEXT)')
    marks = ", ".join("?" for _ in columns)
    con.executemany(
        f'INSERT INTO "{table}" ({quoted}) VALUES ({marks})',
        [tuple(r.get(camel(c) if "_" in c else c) for c in columns) for r in rows],
    )
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def test_sqlite_snake_case_table_gives_the_spec_example(tmp_path: Path) -> None:
    url = make_sqlite(tmp_path / "g.db", SNAKE, RAW)
    res = runner.invoke(app, ["genui-stats", "--db", url, "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout) == expected("spec-8a.expected.json")


def test_sqlite_camel_case_columns_query_and_table(tmp_path: Path) -> None:
    url = make_sqlite(tmp_path / "g.db", [camel(c) for c in SNAKE], RAW, table="ui_rows")
    assert as_json(summarize(read_db(url, table="ui_rows"))) == expected("spec-8a.expected.json")
    rows = read_db(url, query="SELECT * FROM ui_rows WHERE \"createdAt\" >= '2026-07-21';")
    assert [r.tool_call_id for r in rows] == ["tc-4", "tc-5", "tc-6", "tc-7", "tc-8", "tc-8"]
    res = runner.invoke(
        app, ["genui-stats", "--db", url, "--table", "ui_rows", "--json",
              "--from", "2026-07-21", "--to", "2026-07-21"],
    )  # fmt: skip
    want = expected("spec-8b.expected-partial.json")
    got = json.loads(res.stdout)
    assert {k: got[k] for k in want} == want


def test_sqlite_errors_are_one_line(tmp_path: Path) -> None:
    bad = [dict(r) for r in RAW]
    bad[4]["createdAt"] = "2026-07-21 08:00:00"  # naive
    url = make_sqlite(tmp_path / "bad.db", SNAKE, bad)
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", url]))
    assert err == (
        f"afp: {url} (genui_calls) row 5: createdAt: naive timestamp: it needs Z or an offset "
        "such as +02:00"
    )
    missing = make_sqlite(tmp_path / "missing.db", [c for c in SNAKE if c != "run_id"], RAW)
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", missing]))
    assert "no column for required field(s) runId" in err
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", url, "--table", "nope"]))
    assert "no such table: nope" in err
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", url, "--table", "x; drop"]))
    assert "expected a name like genui_calls" in err
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", url, "--query", "SELEC 1"]))
    assert "cannot read" in err
    err = one_line_error(
        runner.invoke(app, ["genui-stats", "--db", url, "--table", "t", "--query", "SELECT 1"])
    )
    assert "--table or --query, not both" in err
    nofile = f"sqlite:///{tmp_path / 'absent.db'}"
    assert "cannot open database" in one_line_error(
        runner.invoke(app, ["genui-stats", "--db", nofile])
    )
    assert not (tmp_path / "absent.db").exists()  # read-only: never creates a database
    assert "three slashes" in one_line_error(
        runner.invoke(app, ["genui-stats", "--db", "sqlite://x"])
    )


def test_column_mapping_rules() -> None:
    mapping = map_columns([camel(c).lower() for c in SNAKE] + ["whatever"], "src")
    assert mapping["createdAt"] == "createdat"  # PostgreSQL folds unquoted names
    with pytest.raises(InputError, match="both map to toolCallId"):
        map_columns([*SNAKE, "toolCallId"], "src")
    with pytest.raises(UsageError, match="unsupported URL"):
        read_db("oracle://x")
    assert redact("postgresql://u:pw@h:5/db") == "postgresql://u:***@h:5/db"


# --- PostgreSQL ------------------------------------------------------------------------------

PG_URL = os.environ.get("AFP_TEST_POSTGRES_URL")
needs_pg = pytest.mark.skipif(
    not PG_URL,
    reason="AFP_TEST_POSTGRES_URL is not set (.ci/postgres.sh could not start a PostgreSQL "
    "server here); the SQLite path covers --db",
)


@pytest.fixture
def pg_table() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg", reason="psycopg missing: pip install '.[postgres]'")
    name = f"genui_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_URL, autocommit=True) as con:
        con.execute(
            f"CREATE TABLE {name} (tool_call_id text PRIMARY KEY, run_id text, thread_id text, "
            "actor_ref text, agent_name text, step int, tool_name text, channel text, mode text, "
            "model_id text, attempt int, outcome text, validity text, error_category text, "
            "error_message text, input_tokens bigint, output_tokens bigint, "
            "cost_usd numeric(12,6), cost_source text, first_frame_ms double precision, "
            '"completeFrameMs" double precision, payload_bytes int, payload text, '
            "created_at timestamptz, naive_at timestamp)"
        )
        for r in RAW:  # a store keys by toolCallId: the replayed tc-8 overwrites
            values = [r.get(camel(c)) for c in SNAKE]
            values[SNAKE.index("complete_frame_ms")] = r.get("completeFrameMs")
            con.execute(
                f"INSERT INTO {name} VALUES ({', '.join(['%s'] * 25)}) "
                "ON CONFLICT (tool_call_id) DO NOTHING",
                [*values, r["createdAt"].replace("Z", "")],
            )
        yield name
        con.execute(f"DROP TABLE {name}")


@needs_pg
def test_postgres_table_gives_the_spec_example(pg_table: str) -> None:
    assert PG_URL is not None
    res = runner.invoke(app, ["genui-stats", "--db", PG_URL, "--table", pg_table, "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout) == expected("spec-8a.expected.json")


@needs_pg
def test_postgres_query_with_a_zone_less_timestamp_column(pg_table: str) -> None:
    assert PG_URL is not None
    cols = ", ".join(c for c in SNAKE if c not in ("created_at", "complete_frame_ms"))
    query = f'SELECT {cols}, "completeFrameMs", naive_at AS "createdAt" FROM {pg_table}'
    res = runner.invoke(
        app, ["genui-stats", "--db", PG_URL, "--query", query, "--json",
              "--from", "2026-07-21", "--to", "2026-07-21"],
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    want = expected("spec-8b.expected-partial.json")
    got = json.loads(res.stdout)
    assert {k: got[k] for k in want} == want


@needs_pg
def test_postgres_errors_are_one_line(pg_table: str) -> None:
    assert PG_URL is not None
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", PG_URL, "--table", "absent_x"]))
    assert "cannot read" in err and "absent_x" in err


def test_sqlite_read_in_small_chunks_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentbisect.genui import db

    url = make_sqlite(tmp_path / "g.db", SNAKE, RAW)
    monkeypatch.setattr(db, "FETCH_ROWS", 2)
    res = runner.invoke(app, ["genui-stats", "--db", url, "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout) == expected("spec-8a.expected.json")
    assert [r.tool_call_id for r in read_db(url)] == [r["toolCallId"] for r in RAW]
    # The row number of a bad row counts the chunks before it.
    bad = [dict(r) for r in RAW]
    bad[4]["createdAt"] = "2026-07-21 08:00:00"
    url = make_sqlite(tmp_path / "bad.db", SNAKE, bad)
    err = one_line_error(runner.invoke(app, ["genui-stats", "--db", url]))
    assert err.startswith(f"afp: {url} (genui_calls) row 5: createdAt: naive timestamp")
