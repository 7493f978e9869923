"""The ``afp`` command line: one module per command (its option table ``SPEC`` and its body
``run``), the fast front end (``fast``, ``argv``), the typer app built from the same tables
(``typer_app``), and the error → exit-code flow (``flow``). See docs/architecture.md.

Importing this package, a table or a body loads no CLI framework (nor rich or numpy); only
``typer_app`` imports typer, for what the fast front end leaves to it (help, completion, errors).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentbisect.core.options import Opt

if TYPE_CHECKING:
    from agentbisect.core.options import CommandSpec

__all__ = [
    "DEBUG",
    "HELP_FLAGS",
    "MODULES",
    "ROOT_OPTIONS",
    "VERSION",
    "app",
    "body_of",
    "main",
    "spec_of",
]

# command name -> module in this package; one line per command
MODULES = {
    "aggregate": "aggregate",
    "bisect": "bisect",
    "call": "call",
    "diff": "diff",
    "events": "events",
    "genui-stats": "genui_stats",
    "record": "record",
    "scan": "scan",
}

# The root options (given before the command), declared once like a command's: the fast parser
# hoists and reads DEBUG, the error flow names it, and the typer app declares all three from here.
DEBUG = Opt(
    "debug",
    "--debug",
    kind=bool,
    help="Show tracebacks instead of one-line errors (also after the command).",
)
VERSION = Opt("version", "--version", "-V", kind=bool, help="Print afp's version and exit.")
ROOT_OPTIONS = (DEBUG, VERSION)
HELP_FLAGS = ("-h", "--help")  # the help option is click's own; only its spellings are ours


def spec_of(name: str) -> CommandSpec:
    spec: CommandSpec = importlib.import_module(f"agentbisect.cli.{MODULES[name]}").SPEC
    return spec


def body_of(name: str) -> Callable[..., Any]:
    body: Callable[..., Any] = importlib.import_module(f"agentbisect.cli.{MODULES[name]}").run
    return body


def __getattr__(name: str) -> Any:
    if name == "app":  # `from agentbisect.cli import app` builds the typer app on first use
        from agentbisect.cli.typer_app import app

        return app
    raise AttributeError(name)


def main() -> None:
    """Run ``afp`` through the typer app (the console script enters through
    ``agentbisect.__main__``, which tries the fast front end first)."""
    from agentbisect.cli.typer_app import app

    try:
        app(prog_name="afp")
    except KeyboardInterrupt:  # raised outside a command (while parsing options)
        sys.stderr.write("afp: interrupted\n")
        sys.exit(130)
