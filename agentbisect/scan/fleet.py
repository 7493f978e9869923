"""``scan``: PATHs into DIR's tables — find the files, reuse what the manifest says is
unchanged, run ``one_file`` on the rest (``engines``), stream every row into the tables, keep
the tally the closing summary shows, and rename the tables into place only at the end."""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from agentbisect.core.errors import UsageError
from agentbisect.core.files import kind_of
from agentbisect.results.scan import ScanResult
from agentbisect.scan import engines, manifest
from agentbisect.scan.one_file import FileOutcome, FileTask
from agentbisect.scan.tables import TableSet, iter_rows, table_path
from agentbisect.scan.walk import expand

TOP = 5  # flags and tools the summary names
FIRST_ERRORS = 3


class Tally:
    """The summary's counts, kept as rows are written (never the rows themselves)."""

    def __init__(self) -> None:
        self.runs = self.errors = self.calls = self.not_localized = 0
        self.flags: Counter[str] = Counter()
        self.tools: Counter[tuple[tuple[Any, Any], str]] = Counter()  # ((path, run), tool)
        self.first_errors: list[str] = []

    def add_runs(self, errors: list[str | None], flags: list[list[str]], bisect: list[Any]) -> None:
        self.runs += len(errors)
        for e in errors:
            if e is not None:
                self.errors += 1
                if len(self.first_errors) < FIRST_ERRORS:
                    self.first_errors.append(e)
        for names in flags:
            self.flags.update(set(names or []))
        self.not_localized += sum(1 for b in bisect if b is not None)

    def add_suspects(self, keys: list[tuple[Any, Any]], tools: list[str | None]) -> None:
        # a tool counts once per run however many of its results are among the top suspects
        self.tools.update({(k, t) for k, t in zip(keys, tools, strict=True) if t})


def prepare_dir(directory: str) -> None:
    """DIR made if missing; one line and exit 2 when it is a file or cannot be written."""
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        try:
            os.makedirs(directory)
        except OSError as exc:
            raise UsageError(f"cannot create {directory}: {exc.strerror or exc}") from None
        return
    except OSError as exc:
        raise UsageError(f"cannot use {directory}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(
            f"{directory} is {kind_of(st.st_mode)}, not a directory; afp scan writes its tables "
            "into a directory"
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write into {directory}: permission denied")


def scan(
    paths: list[str],
    directory: str,
    *,
    jobs: int | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    bisect: bool = False,
    embedder: str | None = None,
    on_start: Callable[[int], None] | None = None,
    on_file: Callable[[int, int], None] | None = None,
) -> ScanResult:
    """Scan ``paths`` into ``directory``. ``on_start(files)`` hears how many files there are to
    read; ``on_file(runs, errors)`` hears each file read (for a progress bar)."""
    started = time.perf_counter()
    prepare_dir(directory)
    config = manifest.settings(bisect, embedder)
    prev = manifest.previous(directory, config)  # refuses foreign tables before writing
    jobs = jobs or engines.default_jobs()
    files = list(expand(paths, skip_dir=directory))
    tasks: list[FileTask] = []
    kept: dict[str, tuple[int, int, str]] = {}  # path -> manifest row of rows reused as they are
    for path in files:
        entry = manifest.unchanged(path, prev)
        if entry is not None:
            kept[path] = entry
        else:
            old = prev.entries.get(path)
            tasks.append(FileTask(path, old[2] if old else None, bisect, embedder))
    if on_start is not None:
        on_start(len(tasks))
    meta, _ = manifest.stamp(config)
    names = ["runs", "calls", *(["suspects"] if bisect else []), "manifest"]
    tally = Tally()
    out = TableSet(directory, names, meta)
    read = 0
    try:
        if engine == "ray":
            outcomes = engines.run_ray(tasks, jobs, ray_address)
        else:
            outcomes = engines.run_local(tasks, jobs)
        for o in outcomes:
            if o.reused:
                kept[o.path] = (o.size, o.mtime_ns, o.sha256 or "")
            else:
                read += 1
                _write(out, tally, o)
            if on_file is not None:
                on_file(len(o.runs), sum(1 for r in o.runs if r.get("error") is not None))
        _keep(directory, out, tally, kept, bisect)
        out["manifest"].add(
            {"path": p, "size": s, "mtime_ns": m, "sha256": h} for p, (s, m, h) in kept.items()
        )
        out.commit()
    except BaseException:
        out.discard()
        raise
    found = set(files)
    dropped = sum(1 for p in prev.entries if p not in found)
    return ScanResult(
        directory=directory,
        tables={t: table_path(directory, t) for t in names},
        files=len(files),
        read=read,
        reused=len(files) - read,  # unchanged by size and mtime, or by content
        dropped=dropped,
        runs=tally.runs,
        errors=tally.errors,
        calls=tally.calls,
        flags=tally.flags.most_common(TOP),
        first_errors=tally.first_errors,
        suspect_tools=_tools(tally) if bisect else None,
        not_localized=tally.not_localized,
        engine=engine,
        jobs=jobs,
        seconds=time.perf_counter() - started,
        rescan_reason=prev.reason,
        warnings=_embedder_notice(bisect, embedder),
    )


def _embedder_notice(bisect: bool, embedder: str | None) -> list[str]:
    """The notice ``afp bisect`` gives when its default embedder falls back to the mock, once
    for the whole scan (each run's report would say it again)."""
    if not bisect or embedder is not None:
        return []
    from agentbisect.bisect.embed.choose import MOCK_NOTICE, default_embedder_name

    return [MOCK_NOTICE] if default_embedder_name() == "mock" else []


def _tools(tally: Tally) -> list[tuple[str, int]]:
    by_tool: Counter[str] = Counter(t for _, t in tally.tools)
    return by_tool.most_common(TOP)


def _write(out: TableSet, tally: Tally, o: FileOutcome) -> None:
    out["runs"].add(o.runs)
    tally.add_runs(
        [r.get("error") for r in o.runs],
        [r.get("flags") or [] for r in o.runs],
        [r.get("bisect_error") for r in o.runs],
    )
    out["calls"].add(o.calls)
    tally.calls += len(o.calls)
    if "suspects" in out.writers:
        out["suspects"].add(o.suspects)
        tally.add_suspects(
            [(s["path"], s["run_id"]) for s in o.suspects], [s.get("tool") for s in o.suspects]
        )
    if o.sha256 is not None:  # a file that could not be opened is tried again next time
        out["manifest"].add(
            [{"path": o.path, "size": o.size, "mtime_ns": o.mtime_ns, "sha256": o.sha256}]
        )


def _keep(directory: str, out: TableSet, tally: Tally, kept: dict[str, Any], bisect: bool) -> None:
    """Copy the previous scan's rows of the files kept, a row group at a time."""
    if not kept:
        return
    wanted = pa.array(list(kept), type=pa.string())
    for table in ["runs", "calls", *(["suspects"] if bisect else [])]:
        for batch in iter_rows(table_path(directory, table)):
            rows = batch.filter(pc.is_in(batch.column("path"), value_set=wanted))
            if not rows.num_rows:
                continue
            out[table].add_batch(rows)
            if table == "runs":
                tally.add_runs(
                    rows.column("error").to_pylist(),
                    rows.column("flags").to_pylist(),
                    rows.column("bisect_error").to_pylist(),
                )
            elif table == "calls":
                tally.calls += rows.num_rows
            else:
                paths, ids = rows.column("path").to_pylist(), rows.column("run_id").to_pylist()
                tally.add_suspects(
                    list(zip(paths, ids, strict=True)), rows.column("tool").to_pylist()
                )
