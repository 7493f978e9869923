"""The one place errors become exit codes, shared by both front ends (typer's and the fast one).

``call`` runs a command body: our error family prints one line and exits with its code, a closed
pipe is a quiet 0, Ctrl-C is 130, running out of memory is one line and 2, anything else is an
"internal error" line (a traceback too with the root ``DEBUG`` option) and 2.
``cli.typer_app.command_of`` wraps it for typer; ``cli.fast`` calls it directly.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable
from typing import Any

from agentbisect.cli import DEBUG
from agentbisect.core.errors import AgentbisectError
from agentbisect.render import notes
from agentbisect.render.console import flush_stdout, silence_stdout


class _State:
    debug: bool = False


state = _State()  # the root DEBUG option, set by whichever front end parsed it

# Errors writing to stdout that are the destination's fault, not afp's.
_OUTPUT_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EBADF}
)


def say(message: str) -> None:
    """``afp: MESSAGE`` on stderr; messages can quote recorded text, so it is scrubbed first.
    Warnings held back until now come first, cut so the whole message is ≤ 3 lines."""
    notes.error(message)


def _traceback_if_debug() -> None:
    if state.debug:
        import traceback

        traceback.print_exc(file=sys.stderr)


def call(body: Callable[..., Any], kwargs: dict[str, Any]) -> int:
    """Run ``body(**kwargs)`` and return the exit code, having said what went wrong.

    The command's warnings are held until it ends (``render.notes``): all of them when it
    succeeds, at most two lines before its error line when it fails.
    """
    with notes.held():
        return _call(body, kwargs)


def _call(body: Callable[..., Any], kwargs: dict[str, Any]) -> int:
    try:
        return _call_body(body, kwargs)
    except MemoryError:
        # Said here, outside the handler that caught it: the traceback (and the frames holding
        # what filled the memory) is let go first, so saying so cannot run out of memory too.
        _traceback_if_debug()
    # (imported here, once the memory is let go: the input reader is not a start-up import)
    from agentbisect.core.inputbytes import too_large_message

    say(too_large_message(_input_name(kwargs)))
    return 2


def _input_name(kwargs: dict[str, Any]) -> str:
    name = kwargs.get("file") or kwargs.get("input_path") or "the input"
    return "<stdin>" if name == "-" else str(name)


def _call_body(body: Callable[..., Any], kwargs: dict[str, Any]) -> int:
    try:
        body(**kwargs)
        flush_stdout()
        return 0
    except AgentbisectError as exc:
        # Debugging adds the traceback; the exit code stays the error's (2 for bad input),
        # so a script does not mistake a debugged input error for a tripped gate (1).
        _traceback_if_debug()
        say(exc.message)
        return exc.exit_code
    except BrokenPipeError:
        # `afp events … | head -1`: the reader left; that is not an error.
        silence_stdout()
        return 0
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except MemoryError:
        raise  # (for ``_call``)
    except Exception as exc:  # a bug: still no traceback unless asked for
        _traceback_if_debug()
        if isinstance(exc, RecursionError):
            # Deep input met a decode outside the deep-stack thread (load.MAIN_THREAD_DEPTH).
            say(
                f"{_input_name(kwargs)}: nests too deeply to be analysed "
                f"(a value decoded after loading is over {sys.getrecursionlimit():,} levels)"
            )
        elif isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRNOS:
            # Every file afp writes reports its own errors: what is left is stdout, full or
            # failing (`>/dev/full`). Point it at /dev/null so the exit flush cannot fail again.
            silence_stdout()
            say(f"cannot write the output to stdout ({exc.strerror or exc})")
        else:
            say(
                f"internal error: {type(exc).__name__}: {exc} (rerun with {DEBUG.flag} for details)"
            )
        return 2
