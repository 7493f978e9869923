"""The ``afp`` entry point (console script and ``python -m agentbisect``).

It imports nothing heavy before Ctrl-C, SIGTERM and SIGHUP are handled: a signal that arrives
while typer, msgspec or a command module is still being imported ends ``afp`` with one line and
the usual exit code (130, 143, 129), not a traceback.
"""

from __future__ import annotations

import gc
import sys

# The cyclic collector's default (a young-generation pass every 700 allocations, full passes that
# walk every live object) cost a third of the CPU of `afp aggregate` on a 150 MB trace: decoding
# a recording allocates millions of containers that all stay alive until the command ends. One
# pass per 200,000 allocations (as mypy does) still collects cycles, ~0.2% as often.
GC_THRESHOLD = (200_000, 30, 30)


def main(fast: bool = True) -> None:
    """Run ``afp``: an ordinary command line by the fast front end (no typer), anything else
    (help, completion, errors in the command line) by the typer app. ``fast=False`` is for tests
    that compare the two."""
    from agentbisect.core.deep import MAIN_THREAD_DEPTH
    from agentbisect.core.signals import Terminated, install

    gc.set_threshold(*GC_THRESHOLD)
    # Deep input: the loader decodes on a big-stack thread (``core.deep.run_deep``), which puts
    # back the caller's limit; parts decoded later on the main thread may nest this deep in afp
    # (a library caller keeps the limit it set).
    sys.setrecursionlimit(max(sys.getrecursionlimit(), MAIN_THREAD_DEPTH))
    try:
        install()
        if fast:
            from agentbisect.cli.fast import run

            run(sys.argv[1:])  # exits when it ran the command
        from agentbisect.cli import main as cli_main

        cli_main()
    except KeyboardInterrupt:
        sys.stderr.write("afp: interrupted\n")
        sys.exit(130)
    except Terminated as exc:
        sys.stderr.write(f"afp: terminated ({exc.name})\n")
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
