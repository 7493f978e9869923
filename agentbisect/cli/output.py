"""``-o FILE`` and ``--force`` as typer options (what they do: ``agentbisect.commands.output``)."""

from __future__ import annotations

import typer

OUTPUT_OPT = typer.Option(
    None,
    "-o",
    "--output",
    metavar="FILE",
    help="Write the report to FILE (atomically) instead of stdout.",
)
FORCE_OPT = typer.Option(False, "--force", help="With -o: replace an existing regular file.")
