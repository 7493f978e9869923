"""A small strict parser for ordinary ``afp`` command lines, and the argv rewrite both fronts share.

``parse`` answers only what it fully recognizes — a known command, its known options as
``--name VALUE``, ``--name=VALUE``, ``-x VALUE`` or a flag, its positional arguments (the last
may take several), plain values (see ``table``) — exactly as click and typer would read it. Anything else (help, completion,
the version, ``--``, bundled short flags, an unknown option, a missing or malformed value, a
missing argument or required option) gives ``None``: the caller hands the command line to the
typer app, whose messages and exit codes are then the only ones a user ever sees.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from agentbisect.cli import DEBUG
from agentbisect.core.options import NO, VERBOSE, CommandSpec


def hoist(args: list[str], commands: Collection[str]) -> list[str]:
    """Accept the global switches anywhere: ``DEBUG`` after the subcommand goes to the root;
    ``VERBOSE`` before it goes to the subcommand (``afp -v aggregate X``)."""
    cut = args.index("--") if "--" in args else len(args)
    head, tail = args[:cut], args[cut:]
    if DEBUG.flag in head:
        head = [DEBUG.flag, *(a for a in head if a != DEBUG.flag)]
    at = next((i for i, a in enumerate(head) if a in commands), None)
    if at is not None:
        before = head[:at]
        verbose = [a for a in before if a in VERBOSE.flags]
        if verbose:
            rest = [a for a in before if a not in VERBOSE.flags]
            head = [*rest, head[at], *verbose, *head[at + 1 :]]
    return head + tail


class Call:
    """A recognized command line: the command, its keyword values, and the root ``DEBUG``."""

    __slots__ = ("command", "debug", "kwargs")

    def __init__(self, command: str, kwargs: dict[str, Any], debug: bool) -> None:
        self.command = command
        self.kwargs = kwargs
        self.debug = debug


def parse(
    argv: list[str], names: Collection[str], spec_of: Callable[[str], CommandSpec]
) -> Call | None:
    """The call ``argv`` (without the program name) asks for, or ``None`` to let typer decide.

    ``names`` are the commands; ``spec_of(name)`` gives one's option table (only the command
    asked for is looked up, so only its module is imported).
    """
    args = hoist(argv, names)
    if "--" in args:
        return None
    debug = bool(args) and args[0] == DEBUG.flag
    if debug:
        args = args[1:]
    if not args or args[0] not in names:
        return None  # no command, or a root option other than debug (help, version, …)
    spec = spec_of(args[0])
    kwargs = spec.defaults()
    positional: list[str] = []
    seen: set[str] = set()
    i, n = 1, len(args)
    while i < n:
        token = args[i]
        i += 1
        if token[:1] != "-" or token == "-":
            positional.append(token)
            continue
        name, eq, attached = token.partition("=") if token[:2] == "--" else (token, "", "")
        opt = spec.by_flag.get(name)
        if opt is None:
            return None  # unknown, help, bundled short flags, -xVALUE
        if opt.kind is bool:
            if eq:
                return None  # click: "option does not take a value"
            kwargs[opt.name] = True
            continue
        if eq:
            text = attached
        elif i < n:
            text = args[i]  # click takes the next token as the value, even one like '--x'
            i += 1
        else:
            return None  # click: "option requires an argument"
        value = opt.value(text)
        if value is NO:
            return None
        if opt.multiple:
            if opt.name not in seen:
                kwargs[opt.name] = []
            kwargs[opt.name].append(value)
        else:
            kwargs[opt.name] = value  # given twice: the last one wins, as in click
        seen.add(opt.name)
    rows = spec.args
    many = rows[-1] if rows[-1].multiple else None
    fixed = rows[:-1] if many is not None else rows
    required = sum(1 for a in rows if a.required)
    if (many is None and len(positional) > len(fixed)) or len(positional) < required:
        return None
    for a, value in zip(fixed, positional, strict=False):
        kwargs[a.name] = value
    if many is not None and len(positional) > len(fixed):
        kwargs[many.name] = positional[len(fixed) :]
    if any(opt.required and opt.name not in seen for opt in spec.options):
        return None
    return Call(spec.name, kwargs, debug)
