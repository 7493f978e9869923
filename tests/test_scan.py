"""``afp scan`` (issue 27): many runs into Parquet tables — one row per run, every file a row,
the counts of ``afp aggregate``, suspects with ``afp bisect``'s source kinds, the manifest that
makes a second scan incremental, bad DIRs refused whole, and the README's DuckDB queries."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.bisect.pipeline.source_kind import SOURCE_KINDS
from tests.conftest import CAPTURE, FIXTURES, PLANTED, ROOT, afp_proc, cli

OTEL = FIXTURES / "otel"
TWO = OTEL / "oaiv2-2.4b0-span-only.two-traces.otlp.json"
PLANTED_TRACE = OTEL / "openinference.tool-planted.otlp.json"
TRANSCRIPT = OTEL / "transcript.tool-planted.messages.json"
LANGFUSE = FIXTURES / "exports" / "langfuse.refund-agent.json"


def runs_dir(tmp_path: Path) -> Path:
    """A small fleet: a recording, a capture, a two-trace OTLP file, a transcript, a Langfuse
    export, a gzip copy, a note that is no run, and things a walk must not open or follow."""
    src = tmp_path / "runs"
    (src / "otel").mkdir(parents=True)
    (src / "more").mkdir()
    for f in (PLANTED, CAPTURE, LANGFUSE):
        shutil.copy(f, src / f.name)
    for f in (TWO, PLANTED_TRACE, TRANSCRIPT):
        shutil.copy(f, src / "otel" / f.name)
    (src / "more" / "trace.otlp.json.gz").write_bytes(gzip.compress(PLANTED_TRACE.read_bytes()))
    (src / "more" / "notes.txt").write_text("not a run\n")
    os.mkfifo(src / "more" / "pipe")  # never opened: it would block
    os.symlink(src / "otel", src / "more" / "loop")  # a directory symlink: not followed
    return src


def table(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return sorted(rows, key=lambda r: json.dumps(r, default=str, sort_keys=True))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Any]:
    tmp = tmp_path_factory.mktemp("fleet")
    src = runs_dir(tmp)
    out = tmp / "fleet"
    res = cli("scan", str(src), "-o", str(out), "--jobs", "1", "--json")
    assert res.exit_code == 0, res.stderr
    return src, out, json.loads(res.stdout)


def test_one_row_per_run_and_every_file_a_row(fleet: tuple[Path, Path, Any]) -> None:
    src, out, summary = fleet
    runs = table(out / "runs.parquet")
    by_file: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by_file.setdefault(os.path.relpath(r["path"], src), []).append(r)
    # the FIFO is not opened and the directory symlink not followed: 8 files, 9 runs
    assert sorted(by_file) == sorted(
        [
            PLANTED.name,
            CAPTURE.name,
            LANGFUSE.name,
            f"otel/{TWO.name}",
            f"otel/{PLANTED_TRACE.name}",
            f"otel/{TRANSCRIPT.name}",
            "more/trace.otlp.json.gz",
            "more/notes.txt",
        ]
    )
    assert summary["files"] == 8 and summary["runs"] == len(runs) == 9
    two = by_file[f"otel/{TWO.name}"]
    truth = json.loads(TWO.with_name(TWO.name.replace(".otlp.json", ".truth.json")).read_text())
    assert len(two) == 2 and len({r["run_id"] for r in two}) == 2
    assert all("multiple-runs" not in r["flags"] for r in two)  # each read as --trace-id reads it
    assert truth  # (the generator's record of the file)
    (note,) = by_file["more/notes.txt"]
    assert note["error"].startswith(str(src / "more" / "notes.txt")) and note["shape"] is None
    assert summary["errors"] == 1 and summary["firstErrors"] == [note["error"]]
    # gzip reads as the plain file
    plain = {k: v for k, v in by_file[f"otel/{PLANTED_TRACE.name}"][0].items() if k != "path"}
    gz = {k: v for k, v in by_file["more/trace.otlp.json.gz"][0].items() if k != "path"}
    assert plain == gz
    # a transcript has no clock
    (tr,) = by_file[f"otel/{TRANSCRIPT.name}"]
    assert tr["started_at"] is None and tr["duration_ms"] is None and tr["error"] is None


def test_types_are_stable(fleet: tuple[Path, Path, Any]) -> None:
    _, out, _ = fleet
    runs = pq.read_schema(out / "runs.parquet")
    for col in ("llm_calls", "tool_calls", "input_tokens", "output_tokens"):
        assert runs.field(col).type == pa.int64()
    for col in ("models", "tools", "flags"):
        assert runs.field(col).type == pa.list_(pa.string())
    assert runs.field("started_at").type == pa.timestamp("ms", tz="UTC")
    calls = pq.read_schema(out / "calls.parquet")
    assert all(
        calls.field(c).type == pa.int64()
        for c in ("llm_index", "input_tokens", "output_tokens", "tool_calls_requested")
    )
    assert all(re.fullmatch(r"[a-z0-9_]+", n) for n in runs.names + calls.names)


@pytest.mark.parametrize("fixture", [PLANTED, CAPTURE, TWO, LANGFUSE])
def test_counts_are_afp_aggregate_s(fleet: tuple[Path, Path, Any], fixture: Path) -> None:
    src, out, _ = fleet
    con = duckdb.connect()
    for path in src.rglob(fixture.name):
        rows = con.execute(
            "SELECT run_id, llm_calls, tool_calls, input_tokens, output_tokens, models FROM "
            f"'{out}/runs.parquet' WHERE path = ? ORDER BY run_id",
            [str(path)],
        ).fetchall()
        assert rows
        for run_id, llm, tools, tin, tout, models in rows:
            args = ["aggregate", str(fixture), "--json"]
            if fixture in (TWO, LANGFUSE):
                args += ["--trace-id", run_id]
            agg = json.loads(cli(*args).stdout)
            assert (llm, tools) == (agg["run"]["llmCalls"], agg["run"]["toolCalls"])
            assert (tin, tout) == (agg["run"]["tokens"]["input"], agg["run"]["tokens"]["output"])
            assert models == list(dict.fromkeys(c["model"] for c in agg["llmCalls"] if c["model"]))
            calls = con.execute(
                f"SELECT llm_index, step_id, input_tokens FROM '{out}/calls.parquet' "
                "WHERE path = ? AND run_id IS NOT DISTINCT FROM ? ORDER BY llm_index",
                [str(path), run_id],
            ).fetchall()
            assert calls == [(c["index"], c["step"], c["tokensIn"]) for c in agg["llmCalls"]]


def test_readme_queries_run_in_duckdb(fleet: tuple[Path, Path, Any], tmp_path: Path) -> None:
    src, _, _ = fleet
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### `afp scan`", 1)[1].split("\n### ", 1)[0]
    queries = re.findall(r"```sql\n(.*?)```", section, re.S)
    assert len(queries) >= 5
    res = cli("scan", str(src), "-o", str(tmp_path / "fleet"), "--bisect", "--embedder", "mock")
    assert res.exit_code == 0, res.stderr
    con = duckdb.connect()
    here = os.getcwd()
    os.chdir(tmp_path)  # the README's queries name 'fleet/…'
    try:
        results = [con.execute(q).fetchall() for q in queries]
    finally:
        os.chdir(here)
    assert results[0] == [(str(src / "more" / "notes.txt"), results[0][0][1])]
    assert all(results[1:])  # every query finds rows in this fleet
    tools = dict(results[4])
    assert set(tools) <= {"get_refund_policy", "lookup_order", "issue_refund"}


def test_bisect_suspects_use_bisect_s_source_kinds(fleet: tuple[Path, Path, Any]) -> None:
    src, out, _ = fleet
    target = src / "otel" / PLANTED_TRACE.name
    res = cli("scan", str(target), "-o", str(out.parent / "b"), "--bisect", "--embedder", "mock")
    assert res.exit_code == 0, res.stderr
    rows = [r for r in table(out.parent / "b" / "suspects.parquet")]
    rows.sort(key=lambda r: r["rank"])
    report = json.loads(cli("bisect", str(target), "--json", "--embedder", "mock").stdout)
    want = [(s["source"], s["sourceKind"]) for s in report["suspects"][: len(rows)]]
    assert [(r["identity"], r["source_kind"]) for r in rows] == want
    assert {r["source_kind"] for r in rows} <= set(SOURCE_KINDS)
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) == 5
    assert all(r["trigger"] == report["step"] for r in rows)
    assert "correlational" in res.stdout


def test_second_scan_reads_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentbisect.scan import one_file
    from agentbisect.scan.fleet import scan

    src = tmp_path / "runs"
    src.mkdir()
    for f in (PLANTED, CAPTURE, PLANTED_TRACE):
        shutil.copy(f, src / f.name)
    out = str(tmp_path / "fleet")
    opened: list[str] = []
    real = one_file.read_input

    def counting(path: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(one_file, "read_input", counting)
    first = scan([str(src)], out, jobs=1)
    assert (first.read, first.reused, first.runs) == (3, 0, 3) and len(opened) == 3
    before = table(Path(out) / "runs.parquet")

    opened.clear()
    again = scan([str(src)], out, jobs=1)
    assert (again.read, again.reused, again.dropped) == (0, 3, 0) and opened == []
    assert table(Path(out) / "runs.parquet") == before

    # same content, new mtime: hashed (opened), rows kept; new content: scanned again
    os.utime(src / CAPTURE.name, ns=(1, 1))
    (src / PLANTED_TRACE.name).write_bytes(TWO.read_bytes())
    (src / PLANTED.name).unlink()
    opened.clear()
    third = scan([str(src)], out, jobs=1)
    assert sorted(opened) == sorted([CAPTURE.name, PLANTED_TRACE.name])
    assert (third.read, third.reused, third.dropped, third.runs) == (1, 1, 1, 3)
    runs = table(Path(out) / "runs.parquet")
    assert {os.path.basename(r["path"]) for r in runs} == {CAPTURE.name, PLANTED_TRACE.name}
    manifest = table(Path(out) / "manifest.parquet")
    cap = next(m for m in manifest if m["path"].endswith(CAPTURE.name))
    assert cap["mtime_ns"] == 1 and len(cap["sha256"]) == 64


def test_jobs_2_writes_the_tables_jobs_1_does(tmp_path: Path) -> None:
    src = runs_dir(tmp_path)
    for jobs in ("1", "2"):
        res = cli("scan", str(src), "-o", str(tmp_path / jobs), "--jobs", jobs)
        assert res.exit_code == 0, res.stderr
    for name in ("runs.parquet", "calls.parquet"):
        assert table(tmp_path / "1" / name) == table(tmp_path / "2" / name)


def test_the_fast_front_end_takes_several_paths_and_globs(tmp_path: Path) -> None:
    proc = afp_proc(
        "scan",
        str(PLANTED),
        str(OTEL / "openinference.*.otlp.json"),
        str(tmp_path / "missing.json"),
        "-o",
        str(tmp_path / "fleet"),
        "--jobs",
        "1",
        "--fail-on",
        "errors",
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "could not be read" in proc.stderr
    runs = table(tmp_path / "fleet" / "runs.parquet")
    globbed = sorted(OTEL.glob("openinference.*.otlp.json"))
    assert len(globbed) == 2
    assert len(runs) == 1 + 2 + 1  # the missing file is a row with its error
    assert [r["error"] for r in runs if r["error"]] == [
        f"{tmp_path / 'missing.json'}: no such file"
    ]
    ok = afp_proc("scan", str(PLANTED), "-o", str(tmp_path / "fleet"), "--jobs", "1")
    assert ok.returncode == 0 and ok.stderr == "" and "runs" in ok.stdout


def test_a_bad_dir_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    res = cli("scan", str(PLANTED), "-o", str(a_file))
    assert res.exit_code == 2 and "not a directory" in res.stderr
    assert "is a regular file" in res.stderr  # (it said "a special file")
    assert res.stderr.count("\n") == 1
    under = cli("scan", str(PLANTED), "-o", str(a_file / "sub"))
    assert under.exit_code == 2 and under.stderr.count("\n") == 1

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    pq.write_table(pa.table({"x": [1]}), foreign / "runs.parquet")
    (foreign / "calls.parquet").write_text("not parquet")
    before = sorted(os.listdir(foreign))
    res = cli("scan", str(PLANTED), "-o", str(foreign))
    assert res.exit_code == 2 and "another schema" in res.stderr
    assert res.stderr.count("\n") == 1
    assert sorted(os.listdir(foreign)) == before  # no temp file left, nothing replaced
    (foreign / "runs.parquet").unlink()
    res = cli("scan", str(PLANTED), "-o", str(foreign))
    assert res.exit_code == 2 and "calls.parquet: not a Parquet file" in res.stderr


def test_a_failed_scan_leaves_the_previous_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentbisect.scan import fleet

    out = tmp_path / "fleet"
    assert cli("scan", str(PLANTED), "-o", str(out)).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(fleet, "_write", interrupted)
    res = cli("scan", str(CAPTURE), "-o", str(out), "--jobs", "1")
    assert res.exit_code == 130
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_options_that_need_another(tmp_path: Path) -> None:
    out = str(tmp_path / "f")
    res = cli("scan", str(PLANTED), "-o", out, "--ray-address", "auto")
    assert res.exit_code == 2 and "--engine ray" in res.stderr
    res = cli("scan", str(PLANTED), "-o", out, "--fail-on", "flags")
    assert res.exit_code == 2 and "only gate" in res.stderr
    res = cli("scan", str(PLANTED), "-o", out, "--embedder", "mock")
    assert res.exit_code == 2 and "--bisect" in res.stderr
    assert not os.path.exists(out)


def test_a_terminal_shows_progress_and_a_summary(tmp_path: Path) -> None:
    from tests.conftest import afp_on_a_terminal

    src = runs_dir(tmp_path)
    (src / "more" / "pipe").unlink()
    code, shown, out = afp_on_a_terminal(
        "scan",
        str(src),
        "-o",
        str(tmp_path / "fleet"),
        "--jobs",
        "1",
        "--bisect",
        "--embedder",
        "mock",
    )
    assert code == 0
    drawn = shown.decode()
    assert "8/8" in drawn and "runs/s" in drawn and "1 errors" in drawn
    summary = out.decode()
    assert "9 (1 with an error)" in summary and "most frequent: " in summary
    assert "tools most often among the top suspects: " in summary
    assert "get_refund_policy (" in summary and "lookup_order (" in summary
    assert "correlational" in summary


def test_the_output_directory_is_never_read_as_runs(tmp_path: Path) -> None:
    shutil.copy(PLANTED, tmp_path / PLANTED.name)
    for _ in range(2):
        res = cli("scan", str(tmp_path), "-o", str(tmp_path / "fleet"), "--json")
        assert res.exit_code == 0, res.stderr
        assert json.loads(res.stdout)["files"] == 1
    suspects = cli(
        "scan", str(PLANTED), "-o", str(tmp_path / "b"), "--bisect", "--embedder", "mock"
    )
    assert suspects.exit_code == 0
    meta = pq.read_schema(tmp_path / "b" / "suspects.parquet").metadata
    assert meta[b"afp.note"].startswith(b"correlational")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "a/c", "b/d"]),
            st.sampled_from(["file", "fifo", "link-to-dir", "link-to-file", "dangling"]),
        ),
        max_size=10,
    )
)
def test_a_walk_opens_regular_files_once_and_follows_no_directory_link(
    entries: list[tuple[str, str]],
) -> None:
    import tempfile

    from agentbisect.scan.walk import expand

    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp) / "top"
        (top / "a" / "c").mkdir(parents=True)
        (top / "b" / "d").mkdir(parents=True)
        outside = Path(tmp) / "outside"
        outside.mkdir()
        (outside / "far.json").write_text("{}")
        want = set()
        for i, (where, kind) in enumerate(entries):
            p = top / where / f"e{i}"
            if kind == "file":
                p.write_text("{}")
                want.add(str(p))
            elif kind == "fifo":
                os.mkfifo(p)
            elif kind == "link-to-dir":
                os.symlink(outside, p)
            elif kind == "link-to-file":
                os.symlink(outside / "far.json", p)
                want.add(str(p))
            else:
                os.symlink(Path(tmp) / "nowhere", p)
        found = list(expand([str(top), str(top / "a")]))
        assert len(found) == len(set(found)) and set(found) == want
