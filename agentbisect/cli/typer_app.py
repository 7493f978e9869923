"""The typer app, built from the commands' option tables (``cli/<command>.py: SPEC``), its global
options, and usage errors as one line and exit code 2 (a command's own errors: ``flow.call``)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

try:  # recent typer vendors click; older typer uses click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from agentbisect.cli import DEBUG, HELP_FLAGS, MODULES, VERSION, body_of, flow, spec_of
from agentbisect.cli.argv import hoist
from agentbisect.core.options import Arg, CommandSpec, Opt
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
        args = hoist(list(sys.argv[1:] if args is None else args), MODULES)
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
            _say(f"{message} (see '{where} {HELP_FLAGS[-1]}')")
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


app = typer.Typer(
    cls=AfpGroup,
    name="afp",
    help="Forensics for recorded AI-agent runs — agentfootprint recordings, OpenTelemetry traces "
    "(GenAI, OpenInference, any-agent) and chat transcripts: events, rollups, context bisect.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": list(HELP_FLAGS)},
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
    debug: bool = typer.Option(False, *DEBUG.flags, help=DEBUG.help),
    version: bool = typer.Option(
        False, *VERSION.flags, callback=_version, is_eager=True, help=VERSION.help
    ),
) -> None:
    flow.state.debug = debug


def _parameter(row: Arg | Opt) -> inspect.Parameter:
    """One row as the typer parameter it declares (annotation and ``typer.Argument``/``Option``)."""
    kind: Any = list[str] if row.multiple else getattr(row, "kind", str)
    default = ... if row.required else row.default
    info: Any
    if isinstance(row, Arg):
        info = typer.Argument(default, metavar=row.metavar, help=row.help)
    else:
        info = typer.Option(
            default,
            *row.flags,
            metavar=row.metavar,
            min=row.min,
            max=row.max,
            case_sensitive=row.case_sensitive,
            help=row.help,
        )
    annotation = kind | None if default is None else kind
    return inspect.Parameter(
        row.name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation
    )


def command_of(spec: CommandSpec, body: Callable[..., Any]) -> Callable[..., None]:
    """The typer callback of a command: ``spec``'s rows as its parameters, calling ``body`` with
    them under ``flow.call`` (the error mapping the fast front end uses too)."""

    def command(**kwargs: Any) -> None:
        code = flow.call(body, kwargs)
        if code:
            raise typer.Exit(code)

    rows: list[Arg | Opt] = [*spec.args, *spec.options]
    params = [_parameter(row) for row in rows]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


for _name in MODULES:
    _spec = spec_of(_name)
    app.command(_name, help=_spec.help)(command_of(_spec, body_of(_name)))
