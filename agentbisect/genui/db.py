"""Read genui rows from a database (``DB``): ``sqlite:///path.db`` or ``postgresql://…``.

Columns map to row fields by name, camelCase or snake_case, case-insensitively (PostgreSQL folds
unquoted identifiers to lower case). We select the mapped columns in the row Struct's field order
(NULL for absent optional fields) so each cursor tuple converts positionally, in C, into the typed
row — the same validation the file path gets.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import msgspec

from agentbisect.core.errors import InputError, UsageError
from agentbisect.core.options import DB, QUERY, TABLE
from agentbisect.genui.columns import Columns, ColumnsBuilder, RowOutOfRange
from agentbisect.genui.load import field_and_problem
from agentbisect.schema.genui import REQUIRED_ROW_FIELDS, ROW_FIELDS, GenuiCallRowTuple

DEFAULT_TABLE = "genui_calls"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?")
_ROWS = list[GenuiCallRowTuple]
# PostgreSQL type OIDs that need a cast so they convert like their JSON counterparts.
_PG_TIMESTAMP = 1114  # timestamp without time zone: read as UTC (see _pg_expression)
_PG_NUMERIC = 1700  # numeric: psycopg gives Decimal; the row wants float
# Rows fetched and converted at a time: each chunk's tuples and typed rows are dropped before the
# next is fetched, so memory is reused instead of holding a million of each (the CHUNK_ROWS
# reasoning in genui.columns). Measured on 1M SQLite rows: 128–512 are equally fast; from 1,024
# on, fetch and convert slow down sharply (about 2× at 2,048: the freed memory goes back to the
# OS between chunks and must be faulted in again).
FETCH_ROWS = 256


def _normal(name: str) -> str:
    return name.replace("_", "").lower()


_FIELD_BY_NORMAL = {_normal(f): f for f in ROW_FIELDS}


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def _quote_identifier(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise UsageError(f"{TABLE.flag} {name!r}: expected a name like genui_calls or schema.table")
    return ".".join(f'"{part}"' for part in name.split("."))


def map_columns(columns: Sequence[str], source: str) -> dict[str, str]:
    """``{row field: column name}`` for every column that names a row field."""
    mapping: dict[str, str] = {}
    for column in columns:
        fieldname = _FIELD_BY_NORMAL.get(_normal(column))
        if fieldname is None:
            continue  # extra columns are ignored, like extra JSON fields
        if fieldname in mapping:
            raise InputError(
                source, f"columns {mapping[fieldname]!r} and {column!r} both map to {fieldname}"
            )
        mapping[fieldname] = column
    missing = sorted(REQUIRED_ROW_FIELDS - mapping.keys(), key=ROW_FIELDS.index)
    if missing:
        names = ", ".join(missing)
        raise InputError(source, f"no column for required field(s) {names} (camel or snake case)")
    return mapping


def _select(mapping: dict[str, str], inner: str, expression: Any = None) -> str:
    """``SELECT`` of every row field in Struct order over ``inner`` (a table or a subquery)."""
    parts = []
    for fieldname in ROW_FIELDS:
        column = mapping.get(fieldname)
        if column is None:
            parts.append("NULL")
        else:
            quoted = '"' + column.replace('"', '""') + '"'
            parts.append(expression(fieldname, quoted) if expression else quoted)
    return f"SELECT {', '.join(parts)} FROM {inner}"


def convert_rows(tuples: list[Any], source: str, offset: int = 0) -> list[GenuiCallRowTuple]:
    """Cursor tuples (in ``ROW_FIELDS`` order) → typed rows; errors name the row and field.

    ``offset`` is the number of rows before ``tuples`` in the result set (for the row number).
    """
    try:
        return msgspec.convert(tuples, _ROWS)
    except msgspec.ValidationError as exc:
        match = re.search(r"at `\$\[(\d+)\]\[(\d+)\]", str(exc))
        _, problem = field_and_problem(exc)
        if match is None:
            raise InputError(source, problem) from None
        row, column = offset + int(match.group(1)), int(match.group(2))
        raise InputError(f"{source} row {row + 1}", f"{ROW_FIELDS[column]}: {problem}") from None


def _fetched(cur: Any, source: str) -> Iterator[list[GenuiCallRowTuple]]:
    """The cursor's rows converted ``FETCH_ROWS`` at a time, row numbers counted across chunks."""
    done = 0
    while tuples := cur.fetchmany(FETCH_ROWS):
        yield convert_rows(tuples, source, done)
        done += len(tuples)


def _sources(table: str | None, query: str | None) -> tuple[str, str]:
    """``(FROM clause, label for messages)``."""
    if query is not None:
        if table is not None:
            raise UsageError(f"give {TABLE.flag} or {QUERY.flag}, not both")
        body = query.strip().rstrip(";")
        if not body:
            raise UsageError(f"{QUERY.flag} is empty")
        return f"({body}) AS genui_rows", "query"
    name = table or DEFAULT_TABLE
    return _quote_identifier(name), name


def _sqlite_path(url: str) -> str:
    # sqlite:///relative/path.db and sqlite:////absolute/path.db (the SQLAlchemy convention).
    path = unquote(url[len("sqlite:///") :])
    if not path:
        raise UsageError(f"{DB.flag} sqlite:///PATH: the path is missing")
    return path


def _sqlite_chunks(
    url: str, table: str | None, query: str | None
) -> Iterator[list[GenuiCallRowTuple]]:
    path = _sqlite_path(url)
    inner, label = _sources(table, query)
    source = f"{url} ({label})"
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # missing or unreadable: sqlite's own message says which
    if mode is not None and not stat.S_ISREG(mode):
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise InputError(url, f"cannot open database: {path} is {what}, not an SQLite file")
    try:
        # Read-only: a forensics tool must never create or change the database it reads.
        con = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputError(url, f"cannot open database: {exc}") from None
    try:
        cur = con.execute(f"SELECT * FROM {inner} LIMIT 0")
        mapping = map_columns([d[0] for d in cur.description], source)
        yield from _fetched(con.execute(_select(mapping, inner)), source)
    except sqlite3.DatabaseError as exc:
        raise InputError(source, f"cannot read: {exc}") from None
    finally:
        con.close()


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise UsageError(
            f"{DB.flag} postgresql://… needs the psycopg driver: pip install 'agentbisect[postgres]'"
        ) from None
    return psycopg


def _postgres_chunks(
    url: str, table: str | None, query: str | None
) -> Iterator[list[GenuiCallRowTuple]]:
    psycopg = _import_psycopg()
    inner, label = _sources(table, query)
    shown = redact(url)
    source = f"{shown} ({label})"
    try:
        with psycopg.connect(url, connect_timeout=10) as con:
            con.read_only = True
            with con.cursor() as cur:
                cur.execute(f"SELECT * FROM {inner} LIMIT 0")
                description = cur.description or []
                mapping = map_columns([d.name for d in description], source)
                types = {d.name: d.type_code for d in description}

                def expression(fieldname: str, quoted: str) -> str:
                    type_code = types.get(mapping[fieldname])
                    if type_code == _PG_TIMESTAMP:
                        # A zone-less timestamp column: stores write UTC there, and SQL has no
                        # offset to check, so read it as UTC (text columns still need one).
                        return f"({quoted} AT TIME ZONE 'UTC')"
                    if type_code == _PG_NUMERIC:
                        return f"{quoted}::float8"
                    return quoted

                cur.execute(_select(mapping, inner, expression))
                yield from _fetched(cur, source)
    except psycopg.Error as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(source, f"cannot read: {first_line}") from None


def read_db_chunks(
    url: str, table: str | None = None, query: str | None = None
) -> Iterator[list[GenuiCallRowTuple]]:
    """Typed rows from ``url`` (``sqlite:///path`` or ``postgresql://…`` / ``postgres://…``),
    in chunks of at most ``FETCH_ROWS``. The URL is checked before the first chunk is asked for.
    """
    scheme = url.split(":", 1)[0].lower()
    if scheme == "sqlite":
        if not url.startswith("sqlite:///"):
            raise UsageError(f"{DB.flag} {url}: expected sqlite:///PATH (three slashes)")
        return _sqlite_chunks(url, table, query)
    if scheme in ("postgresql", "postgres"):
        return _postgres_chunks(url, table, query)
    raise UsageError(
        f"{DB.flag} {redact(url)}: unsupported URL; expected sqlite:///PATH or postgresql://…"
    )


def read_db_columns(url: str, table: str | None = None, query: str | None = None) -> Columns:
    """The columns of the rows at ``url``, read chunk by chunk (each chunk dropped when read)."""
    builder = ColumnsBuilder()
    try:
        for chunk in read_db_chunks(url, table, query):
            builder.add(chunk)
    except RowOutOfRange as exc:
        raise InputError(
            f"{redact(url)} row {exc.index + 1}", f"{exc.field}: {exc.problem}"
        ) from None
    return builder.build()


__all__ = [
    "DEFAULT_TABLE",
    "FETCH_ROWS",
    "map_columns",
    "read_db_chunks",
    "read_db_columns",
    "redact",
]
