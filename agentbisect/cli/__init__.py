"""The ``afp`` command: the typer app with every subcommand registered, and its entry point."""

from __future__ import annotations

import sys

# Importing a command module registers its command on `app`; one line per command.
from agentbisect.cli import aggregate as _aggregate  # noqa: F401
from agentbisect.cli import bisect as _bisect  # noqa: F401
from agentbisect.cli import events as _events  # noqa: F401
from agentbisect.cli import genui_stats as _genui_stats  # noqa: F401
from agentbisect.cli import record as _record  # noqa: F401
from agentbisect.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Run ``afp`` (the console script enters through ``agentbisect.__main__``)."""
    try:
        app(prog_name="afp")
    except KeyboardInterrupt:  # raised outside a command (while parsing options)
        sys.stderr.write("afp: interrupted\n")
        sys.exit(130)
