"""Options shared by several commands, so that they read and behave the same everywhere."""

from __future__ import annotations

import typer

FILE_ARG = typer.Argument(..., help="Recording file (JSON or gzip JSON), or - for stdin.")
JSON_OPT = typer.Option(False, "--json", help="Print JSON instead of tables.")
VERBOSE_OPT = typer.Option(False, "--verbose", "-v", help="Say which shape was read, on stderr.")
