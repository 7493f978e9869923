"""What several command bodies share: loading a run (with ``VERBOSE``), import options, and the
choice of output format from the format option or a shorthand flag."""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING, Any

from agentbisect.core.errors import UsageError
from agentbisect.core.options import FORMAT_FLAGS, JSON
from agentbisect.render.safetext import clean

if TYPE_CHECKING:
    from agentbisect.importers.base import ImportOptions
    from agentbisect.model.run import Run


def load_run(path: str, verbose: bool, options: ImportOptions | None = None) -> Run:
    from agentbisect.importers import open_run

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
    """One ``afp:`` line on stderr (for ``VERBOSE``)."""
    _err("afp: " + line)


def import_options(trace_id: str | None, logs: list[str] | None) -> Any:
    """``ImportOptions`` for ``TRACE_ID``/``LOGS``, or ``None`` when neither was given."""
    if trace_id is None and not logs:
        return None
    from agentbisect.importers.base import ImportOptions

    return ImportOptions(trace_id=trace_id, logs=list(logs or []))


def pick_format(fmt: Enum | None, shorthand: str | None, flag: str, default: str) -> str:
    """The format name from the format option or one shorthand flag (``JSON``), never both."""
    if fmt is not None and shorthand is not None and fmt.value != shorthand:
        raise UsageError(f"give {FORMAT_FLAGS[0]} or {flag}, not both")
    if fmt is not None:
        return str(fmt.value)
    return shorthand if shorthand is not None else default


def pick_json_format(fmt: Enum | None, as_json: bool) -> str:
    """``pick_format`` for the commands whose only shorthand is ``JSON`` and default ``table``."""
    return pick_format(fmt, "json" if as_json else None, JSON.flag, "table")
