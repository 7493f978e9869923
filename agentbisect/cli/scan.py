"""``afp scan``: many runs into Parquet tables (its option table and body)."""

from __future__ import annotations

from enum import StrEnum

from agentbisect.bisect.options import EMBEDDER, FAIL_ON, JOBS
from agentbisect.core.options import JSON, OUTPUT, Arg, CommandSpec, Opt, format_opt
from agentbisect.render.formats import SummaryFormat


class Engine(StrEnum):
    local = "local"
    ray = "ray"


GATE = "errors"  # the one thing a scan's gate can trip on

PATHS = Arg(
    "paths",
    "PATH",
    "Runs to scan: files (any format afp reads, gzip too), directories (walked recursively, "
    "regular files only, directory symlinks not followed) and globs ('runs/**/*.json').",
    multiple=True,
)
DIR = OUTPUT.replace(
    required=True,
    metavar="DIR",
    help="The directory the tables go to (made if missing): runs.parquet, calls.parquet, "
    "suspects.parquet and the manifest a second scan reads to skip unchanged files.",
)
SCAN_JOBS = JOBS.replace(
    default=None,
    help="Worker processes on this machine (default: its cores); with the ray "
    "engine and no address, the CPUs of the local Ray instance.",
)
ENGINE = Opt(
    "engine",
    "--engine",
    kind=Engine,
    default=Engine.local,
    help="local (worker processes on this machine, the default) or ray (Ray tasks; pip "
    "install 'agentbisect[ray]').",
)
RAY_ADDRESS = Opt(
    "ray_address",
    "--ray-address",
    metavar="ADDR",
    help="With the ray engine: the cluster to run on (ray://HOST:10001, or auto); every node "
    "must read the files at the same paths. Default: start a local Ray instance.",
)
BISECT = Opt(
    "bisect",
    "--bisect",
    kind=bool,
    help="Also write suspects.parquet: the top suspects of each run's last LLM call "
    "(correlational evidence, as afp bisect ranks them without reruns).",
)
SCAN_EMBEDDER = EMBEDDER.replace(help=f"With {BISECT.flag}: {EMBEDDER.help}")
SCAN_FAIL_ON = FAIL_ON.replace(
    metavar=GATE, help=f"'{GATE}': exit 1 when any file or run could not be read (for CI)."
)
FORMAT = format_opt(SummaryFormat, "The summary: table (the default) or json.")

HELP = f"""Scan many runs into Parquet tables for DuckDB, Polars or pandas: one row per run
(a file holding several traces gives several), one per LLM call, and with {BISECT.flag} the top
suspects of each run. A file that cannot be read is a row with its error, never a stopped scan.

A second scan into the same DIR reads only new and changed files (the manifest: path, size,
mtime, content hash) and drops files no longer there.

Examples:

\b
  afp scan traces/ {DIR.flags[0]} fleet/
  afp scan 'exports/**/*.json.gz' {DIR.flags[0]} fleet/ {BISECT.flag} {SCAN_JOBS.flag} 2
  afp scan /shared/runs {DIR.flags[0]} fleet/ {ENGINE.flag} ray {RAY_ADDRESS.flag} auto
  duckdb -c "select shape, count(*) from 'fleet/runs.parquet' group by 1"
"""

SPEC = CommandSpec(
    "scan",
    HELP,
    PATHS,
    DIR,
    SCAN_JOBS,
    ENGINE,
    RAY_ADDRESS,
    BISECT,
    SCAN_EMBEDDER,
    SCAN_FAIL_ON,
    FORMAT,
    JSON,
)


def run(
    *,
    paths: list[str],
    output: str,
    jobs: int | None,
    engine: Engine,
    ray_address: str | None,
    bisect: bool,
    embedder: str | None,
    fail_on: list[str],
    fmt: SummaryFormat | None,
    as_json: bool,
) -> None:
    from agentbisect.cli.common import pick_json_format
    from agentbisect.core.errors import GateTripped, UsageError

    name = pick_json_format(fmt, as_json)
    for gate in fail_on:
        if gate != GATE:
            raise UsageError(f"{SCAN_FAIL_ON.flag} {gate}: afp scan's only gate is '{GATE}'")
    if ray_address is not None and engine is not Engine.ray:
        raise UsageError(f"{RAY_ADDRESS.flag} needs {ENGINE.flag} ray")
    if embedder is not None and not bisect:
        raise UsageError(f"{SCAN_EMBEDDER.flag} needs {BISECT.flag}")
    try:
        from agentbisect.scan.fleet import scan
    except ImportError as exc:  # pyarrow: the scan extra
        raise UsageError(
            f"afp scan needs pyarrow ({exc.name}): pip install 'agentbisect[scan]'"
        ) from None
    from agentbisect.cli.output import emit
    from agentbisect.render.scan_progress import scan_progress

    with scan_progress() as bar:
        result = scan(
            paths,
            output,
            jobs=jobs,
            engine=engine.value,
            ray_address=ray_address,
            bisect=bisect,
            embedder=embedder,
            on_start=bar.start if bar is not None else None,
            on_file=bar.file if bar is not None else None,
        )
    emit(name, result, None, False)
    if fail_on and result.errors:
        raise GateTripped(
            f"{result.errors} run(s) could not be read ({SCAN_FAIL_ON.flag} {GATE}); the "
            f"error column of {result.tables['runs']} says why"
        )
