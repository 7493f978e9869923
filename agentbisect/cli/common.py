"""Small helpers the command modules share: loading with --verbose, flag printing."""

from __future__ import annotations

from agentbisect.render.console import stderr_console
from agentbisect.render.flags import print_flags
from agentbisect.render.text import safe
from agentbisect.run import Run, open_run


def load_run(path: str, verbose: bool) -> Run:
    run = open_run(path)
    if verbose:
        err = stderr_console()
        lo = run.loaded
        gz = ", gzip" if lo.compressed else ""
        err.print(safe(f"afp: read {lo.file} ({lo.size:,} bytes{gz}) as shape {lo.shape_name}"))
        if lo.domain is not None:
            err.print(
                safe(
                    f"afp: {len(run.events)} domain events from the {lo.domain_source}, mode "
                    f"{lo.mode} (decided by {lo.mode_source})"
                )
            )
    return run


def warn_flags(run: Run) -> None:
    """Honesty flags on stderr (used where stdout carries a machine-readable stream)."""
    print_flags(stderr_console(), run.flags)
