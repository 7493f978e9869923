"""The typer application object, global options, and the one place errors become exit codes."""

from __future__ import annotations

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
from agentbisect.commands import MODULES, flow
from agentbisect.commands.argv import hoist
from agentbisect.core.signals import Terminated, raising_on_termination
from agentbisect.render.console import silence_stdout

_say = flow.say


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
        return hoist(args, MODULES)


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


def _version(value: bool) -> None:
    if value:
        from agentbisect.core.version import __version__

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
    flow.state.debug = debug


F = TypeVar("F", bound=Callable[..., Any])


def guarded(fn: F) -> F:
    """Wrap a command so that our errors print one line and exit with their code
    (``commands.flow.call``, the mapping the fast front end uses too).

    Tests drive commands through typer's CliRunner, so the mapping lives here (in every command)
    rather than around ``app()`` in ``main``.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        code = flow.call(functools.partial(fn, *args), kwargs)
        if code:
            raise typer.Exit(code)

    return wrapper  # type: ignore[return-value]
