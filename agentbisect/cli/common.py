"""Small helpers the command modules share: loading a run with --verbose."""

from __future__ import annotations

import sys

from agentbisect.render.safetext import clean
from agentbisect.run import ImportOptions, Run, open_run


def load_run(path: str, verbose: bool, options: ImportOptions | None = None) -> Run:
    run = open_run(path, options)
    if verbose:
        lo = run.loaded
        gz = ", gzip" if lo.compressed else ""
        _err(f"afp: read {lo.file} ({lo.size:,} bytes{gz}) as shape {lo.shape_name}")
        if lo.domain is not None:
            _err(
                f"afp: {len(run.events)} domain events from the {lo.domain_source}, mode "
                f"{lo.mode} (decided by {lo.mode_source})"
            )
    return run


def _err(line: str) -> None:
    sys.stderr.write(clean(line) + "\n")


def say(line: str) -> None:
    """One ``afp:`` line on stderr (for --verbose)."""
    _err("afp: " + line)
