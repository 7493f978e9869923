"""The fast front end: run an ordinary ``afp`` command line without importing typer.

Importing typer (and its click) costs ~20 ms, a third of Node's whole run on an ordinary
recording. ``run`` parses the command line with ``argv.parse``; when it recognizes it, the
command body runs under the same ``flow.call`` and with the same outcomes as under typer (the
group's handling of SIGTERM/SIGHUP is ``agentbisect.__main__``'s, the same lines and codes).
When it does not, or when a shell asks for completions, ``run`` returns ``False`` and the caller
runs the typer app, which then owns every help text, message and exit code.
"""

from __future__ import annotations

import os
import sys

from agentbisect.commands import MODULES, body_of, spec_of
from agentbisect.commands.argv import parse
from agentbisect.commands.flow import call, state

# click's shell-completion request: `_AFP_COMPLETE=… afp` (the program name is always afp).
COMPLETE_VAR = "_AFP_COMPLETE"


def run(argv: list[str]) -> bool:
    """Run ``afp ARGV`` and exit if the fast parser recognizes it; else return ``False``."""
    if os.environ.get(COMPLETE_VAR):
        return False
    parsed = parse(argv, MODULES, spec_of)
    if parsed is None:
        return False
    state.debug = parsed.debug
    code = call(body_of(parsed.command), parsed.kwargs)
    sys.exit(code)
