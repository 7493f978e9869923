"""The Parquet tables ``afp scan`` writes: their schemas (one declaration each, read by the
writer, the reader of a previous scan and the README's column list) and the streaming writer.

Rows are buffered per table and written as a row group every ``ROW_GROUP`` rows, so memory
holds one group per table whatever the number of files. Every table is written to a temp name
in DIR and renamed into place only when the whole scan is done (``TableSet.commit``); an
interrupted or failed scan removes its temp files and leaves the previous tables as they were.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agentbisect.core.errors import UsageError
from agentbisect.core.files import check_target, commit_temp, temp_beside

ROW_GROUP = 4096  # rows per row group: small enough to bound memory, large enough to query fast
META_KEY = b"afp.scan"  # key-value metadata: the scan's settings and generation (manifest.py)
NOTE_KEY = b"afp.note"
SUSPECTS_NOTE = (
    "correlational: suspects ranked by afp bisect's evidence without reruns; score and "
    "evidence_score are proxies, not causal verdicts"
)

_STR = pa.string()
_INT = pa.int64()
_LIST = pa.list_(pa.string())

RUNS = pa.schema(
    [
        ("path", _STR),
        ("run_id", _STR),
        ("shape", _STR),
        ("llm_calls", _INT),
        ("tool_calls", _INT),
        ("input_tokens", _INT),
        ("output_tokens", _INT),
        ("duration_ms", pa.float64()),
        ("started_at", pa.timestamp("ms", tz="UTC")),
        ("models", _LIST),
        ("tools", _LIST),
        ("flags", _LIST),
        ("final_answer", _STR),
        ("error", _STR),
        ("bisect_error", _STR),
    ]
)
CALLS = pa.schema(
    [
        ("path", _STR),
        ("run_id", _STR),
        ("llm_index", _INT),
        ("step_id", _STR),
        ("model", _STR),
        ("input_tokens", _INT),
        ("output_tokens", _INT),
        ("duration_ms", pa.float64()),
        ("tool_calls_requested", _INT),
    ]
)
SUSPECTS = pa.schema(
    [
        ("path", _STR),
        ("run_id", _STR),
        ("trigger", _STR),
        ("rank", _INT),
        ("source_kind", _STR),
        ("identity", _STR),
        ("tool", _STR),
        ("evidence", _STR),
        ("score", pa.float64()),
        ("evidence_score", pa.float64()),
    ]
)
MANIFEST = pa.schema(
    [
        ("path", _STR),
        ("size", _INT),
        ("mtime_ns", _INT),
        ("sha256", _STR),
    ]
)
# table name -> file name in DIR and schema; the manifest is written last (see TableSet.commit)
TABLES: dict[str, tuple[str, pa.Schema]] = {
    "runs": ("runs.parquet", RUNS),
    "calls": ("calls.parquet", CALLS),
    "suspects": ("suspects.parquet", SUSPECTS),
    "manifest": ("manifest.parquet", MANIFEST),
}


def table_path(directory: str, table: str) -> str:
    return os.path.join(directory, TABLES[table][0])


def read_meta(path: str) -> dict[bytes, bytes] | None:
    """The key-value metadata of an existing table in DIR, ``None`` when there is none; a file
    that is not one of afp scan's tables (not Parquet, another schema) is a usage error: scan
    replaces only its own tables."""
    table = next(t for t, (name, _) in TABLES.items() if os.path.basename(path) == name)
    try:
        check_target(path, force=True)  # a regular file, or nothing
    except UsageError as exc:
        raise UsageError(f"{exc.message}; afp scan replaces only its own tables") from None
    if not os.path.lexists(path):
        return None
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as exc:
        raise UsageError(
            f"{path}: not a Parquet file afp scan wrote ({_short(exc)}); move it away or "
            "scan into another directory"
        ) from None
    want = TABLES[table][1]
    if not schema.remove_metadata().equals(want) or META_KEY not in (schema.metadata or {}):
        raise UsageError(
            f"{path}: a Parquet file of another schema (expected afp scan's {table} table: "
            f"{', '.join(want.names)}); move it away or scan into another directory"
        )
    return dict(schema.metadata or {})


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def iter_rows(path: str, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The record batches of a previous scan's table, one row group at a time."""
    pf = pq.ParquetFile(path)
    try:
        yield from pf.iter_batches(batch_size=ROW_GROUP, columns=columns)
    finally:
        pf.close()


class TableWriter:
    """One table streamed to a temp file beside its final name, a row group at a time."""

    def __init__(self, directory: str, table: str, metadata: dict[bytes, bytes]) -> None:
        self.final = table_path(directory, table)
        if table == "suspects":  # the table says what its scores are, wherever it is read
            metadata = {**metadata, NOTE_KEY: SUSPECTS_NOTE.encode()}
        self.schema = TABLES[table][1].with_metadata(metadata)
        self.temp = temp_beside(self.final)
        self._rows: list[dict[str, Any]] = []
        self.count = 0
        try:
            self._writer: pq.ParquetWriter | None = pq.ParquetWriter(
                self.temp, self.schema, compression="zstd"
            )
        except BaseException:
            self.discard()
            raise

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        self._rows.extend(rows)
        if len(self._rows) >= ROW_GROUP:
            self._flush()

    def add_batch(self, batch: pa.RecordBatch) -> None:
        """Rows kept from the previous scan, as read (no conversion to Python values)."""
        self._flush()
        if batch.num_rows and self._writer is not None:
            self._writer.write_batch(batch.replace_schema_metadata(self.schema.metadata))
            self.count += batch.num_rows

    def _flush(self) -> None:
        if self._rows and self._writer is not None:
            self._writer.write_table(pa.Table.from_pylist(self._rows, schema=self.schema))
            self.count += len(self._rows)
        self._rows = []

    def close(self) -> None:
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def discard(self) -> None:
        if getattr(self, "_writer", None) is not None:
            with contextlib.suppress(Exception):
                self._writer.close()  # type: ignore[union-attr]
            self._writer = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temp)


class TableSet:
    """The writers of one scan; ``commit`` renames them into place, the manifest last, and
    removes a table this scan does not write (suspects, when ``BISECT`` is off)."""

    def __init__(self, directory: str, tables: list[str], metadata: dict[bytes, bytes]) -> None:
        self.directory = directory
        self.writers: dict[str, TableWriter] = {}
        try:
            for t in tables:
                self.writers[t] = TableWriter(directory, t, metadata)
        except BaseException:
            self.discard()
            raise

    def __getitem__(self, table: str) -> TableWriter:
        return self.writers[table]

    def commit(self) -> None:
        for w in self.writers.values():
            w.close()
        for t in TABLES:
            if t not in self.writers and t != "manifest":
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(table_path(self.directory, t))
        for t in sorted(self.writers, key=lambda t: t == "manifest"):
            commit_temp(self.writers[t].temp, self.writers[t].final)

    def discard(self) -> None:
        for w in self.writers.values():
            w.discard()
