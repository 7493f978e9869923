"""The fast front end: run an ordinary ``afp`` command line without importing typer.

Importing typer (and its click) costs ~20 ms, a third of Node's whole run on an ordinary
recording. ``run`` parses the command line with ``argv.parse``; when it recognizes it, the
command body runs under the same ``flow.call`` and with the same outcomes as under typer (the
group's handling of SIGTERM/SIGHUP is ``agentbisect.__main__``'s, the same lines and codes).
When it does not, or when a shell asks for completions, ``run`` returns ``False`` and the caller
runs the typer app, which then owns every help text, message and exit code.
"""

from __future__ import annotations

import gc
import os
import sys

from agentbisect.cli import MODULES, body_of, spec_of
from agentbisect.cli.argv import parse
from agentbisect.cli.flow import call, state

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
    # The command is done and its output written (-o files are closed and renamed in the
    # command; stdout and stderr are still flushed at exit, as before). Freezing the live
    # objects spares interpreter teardown its full collections over everything the run
    # allocated (~8% of the goal command's instructions); teardown still frees by reference
    # count, and only cyclic garbage left at this point goes uncollected, which no output
    # depends on.
    gc.freeze()
    sys.exit(code)
