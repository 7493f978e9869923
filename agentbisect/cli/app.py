"""The typer application object, global options, and the one place errors become exit codes."""

from __future__ import annotations

import errno
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from typer.core import TyperGroup

try:  # recent typer vendors click; older typer uses click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from agentbisect.cli import fastparams
from agentbisect.errors import AgentbisectError
from agentbisect.render.console import flush_stdout, silence_stdout
from agentbisect.render.safetext import clean
from agentbisect.signals import Terminated, raising_on_termination


class AfpGroup(TyperGroup):
    """The ``afp`` group: a usage error (bad option, bad choice) is one line and exit 2, like
    every other error; the reader leaving a pipe early is not an error (exit 0)."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        args = self._hoist(list(sys.argv[1:] if args is None else args))
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            # SIGTERM/SIGHUP unwind like Ctrl-C: every `finally` runs (rerun groups killed, temp
            # files removed) before the exit code says which signal it was.
            with raising_on_termination():
                rv = super().main(args, prog_name, complete_var, False, **extra)
        except Terminated as exc:
            _say(f"terminated ({exc.name})")
            sys.exit(exc.exit_code)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click_errors.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "afp"
            message = exc.format_message().replace("Value error, ", "")  # pydantic noise
            _say(f"{message} (see '{where} --help')")
            sys.exit(exc.exit_code)
        except click_errors.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except typer.Abort:
            _say("aborted")
            sys.exit(1)
        except BrokenPipeError:
            silence_stdout()
            sys.exit(0)
        sys.exit(rv if isinstance(rv, int) else 0)

    def _hoist(self, args: list[str]) -> list[str]:
        """Accept the global switches anywhere: ``--debug`` after the subcommand goes to the root;
        ``-v``/``--verbose`` before it goes to the subcommand (``afp -v aggregate X``)."""
        cut = args.index("--") if "--" in args else len(args)
        head, tail = args[:cut], args[cut:]
        if "--debug" in head:
            head = ["--debug", *(a for a in head if a != "--debug")]
        at = next((i for i, a in enumerate(head) if a in self.commands), None)
        if at is not None:
            before = head[:at]
            verbose = [a for a in before if a in ("-v", "--verbose")]
            if verbose:
                rest = [a for a in before if a not in ("-v", "--verbose")]
                head = [*rest, head[at], *verbose, *head[at + 1 :]]
        return head + tail


fastparams.install()

app = typer.Typer(
    cls=AfpGroup,
    name="afp",
    help="Forensics for recorded agentfootprint agent runs (events, rollups, context bisect).",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class _State:
    debug: bool = False


state = _State()


def _version(value: bool) -> None:
    if value:
        from agentbisect import __version__

        sys.stdout.write(f"afp {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    debug: bool = typer.Option(
        False,
        "--debug",
        help="Show tracebacks instead of one-line errors (also after the command).",
    ),
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_version,
        is_eager=True,
        help="Print afp's version and exit.",
    ),
) -> None:
    state.debug = debug


F = TypeVar("F", bound=Callable[..., Any])

# Errors writing to stdout that are the destination's fault, not afp's.
_OUTPUT_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EBADF}
)


def _say(message: str) -> None:
    # Messages can quote recorded text (step ids, file content): scrub before the terminal sees it.
    sys.stderr.write("afp: " + clean(message) + "\n")
    sys.stderr.flush()


def _traceback_if_debug() -> None:
    if state.debug:
        import traceback

        traceback.print_exc(file=sys.stderr)


def guarded(fn: F) -> F:
    """Wrap a command so that our errors print one line and exit with their code.

    Tests drive commands through typer's CliRunner, so the mapping lives here (in every command)
    rather than around ``app()`` in ``main``.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
            flush_stdout()
            return result
        except AgentbisectError as exc:
            # --debug adds the traceback; the exit code stays the error's (2 for bad input),
            # so a script does not mistake a debugged input error for a tripped gate (1).
            _traceback_if_debug()
            _say(exc.message)
            raise typer.Exit(exc.exit_code) from None
        except BrokenPipeError:
            # `afp events … | head -1`: the reader left; that is not an error.
            silence_stdout()
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            _say("interrupted")
            raise typer.Exit(130) from None
        except (typer.Exit, typer.Abort):
            raise
        except Exception as exc:  # a bug: still no traceback unless asked for
            _traceback_if_debug()
            if isinstance(exc, RecursionError):
                # Deep input met a decode outside the deep-stack thread (load.MAIN_THREAD_DEPTH).
                name = kwargs.get("file") or kwargs.get("input_path") or "the input"
                _say(
                    f"{'<stdin>' if name == '-' else name}: nests too deeply to be analysed "
                    f"(a value decoded after loading is over {sys.getrecursionlimit():,} levels)"
                )
            elif isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRNOS:
                # Every file afp writes reports its own errors: what is left is stdout, full or
                # failing (`>/dev/full`). Point it at /dev/null so the exit flush cannot fail again.
                silence_stdout()
                _say(f"cannot write the output to stdout ({exc.strerror or exc})")
            else:
                _say(
                    f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)"
                )
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]
