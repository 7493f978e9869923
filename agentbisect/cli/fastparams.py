"""Accept plain option values without building typer's pydantic validators (a start-up cut).

Typer ≥ 0.2x coerces every parameter of the invoked command through a pydantic ``TypeAdapter``,
built on first use: importing pydantic and building ~20 adapters costs 40–80 ms per ``afp`` run,
more than the whole analysis of an ordinary recording. For the values our options actually take —
a string, a list of strings, a decimal integer or float within the option's ``min``/``max``, a
``--format``-style Enum member named exactly or case-insensitively as typer would match it —
the answer is known without pydantic, so this module returns it directly. Anything else (a value
that does not parse, is out of range or names no choice; a parser, path, file or other
annotation) goes to
typer's own coercion unchanged, so every error message is typer's.

It wraps a private typer hook (``_TyperParameter.get_runtime_param``). When that hook is absent
(older typer, which has no pydantic step, or a future one that changed it), nothing is patched and
typer behaves as it always did; ``tests/test_startup.py`` fails if the cut silently stops working.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from agentbisect.commands.spec import FLOAT_RE, INT_RE

_NO = object()
# typer's own hook, kept so tests can compare the cut against it.
TYPER_GET_RUNTIME_PARAM: Any = None


def _choice(enum: type[Enum], case_sensitive: bool, value: Any) -> Any:
    """typer's choice rule (member as is; else the first member whose value matches, casefolded
    when case-insensitive), for a command without a token normalizer."""
    if isinstance(value, enum):
        return value
    if type(value) is not str:
        return _NO
    want = value if case_sensitive else value.casefold()
    for member in enum:
        name = str(member.value)
        if (name if case_sensitive else name.casefold()) == want:
            return member
    return _NO  # typer lists the choices


def _plain(annotation: Any, info: Any, value: Any) -> Any:
    """The coerced value when it is certain without pydantic, else ``_NO``."""
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None:
        return _NO
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _choice(annotation, bool(getattr(info, "case_sensitive", True)), value)
    if annotation is str:
        return value if type(value) is str else _NO
    if annotation is int or annotation is float:
        if type(value) is str:
            if not re.fullmatch(INT_RE if annotation is int else FLOAT_RE, value):
                return _NO
            number: int | float = annotation(value)
        elif type(value) is annotation or (annotation is float and type(value) is int):
            number = annotation(value)
        else:
            return _NO
        if getattr(info, "clamp", False):
            return _NO
        lo, hi = getattr(info, "min", None), getattr(info, "max", None)
        if (lo is not None and number < lo) or (hi is not None and number > hi):
            return _NO  # typer words the range error
        return number
    if annotation == list[str] and isinstance(value, list | tuple):
        return list(value) if all(type(v) is str for v in value) else _NO
    return _NO


class _PlainFirst:
    """A runtime param that answers plain values itself and defers the rest to typer."""

    __slots__ = ("_descriptor", "_typer")

    def __init__(self, descriptor: Any) -> None:
        self._descriptor = descriptor
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:  # typer's rule for an absent value, before any validation
            return () if multi else None
        if (
            not (multi and isinstance(value, str))
            and getattr(ctx, "token_normalize_func", None) is None
        ):
            got = _plain(self._descriptor.annotation, self._descriptor.parameter_info, value)
            if got is not _NO:
                return got
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(self._descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)


def install() -> bool:
    """Patch typer's parameter class once; return whether the cut is active."""
    try:
        from typer import _coercion, core
    except ImportError:
        return False
    cls = getattr(core, "_TyperParameter", None)
    if (
        cls is None
        or not hasattr(cls, "get_runtime_param")
        or not hasattr(_coercion, "build_runtime_param")
    ):
        return False
    if getattr(cls, "_afp_plain_first", False):
        return True
    global TYPER_GET_RUNTIME_PARAM
    TYPER_GET_RUNTIME_PARAM = cls.get_runtime_param

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            self._runtime_param = _PlainFirst(self.type_descriptor)
        return self._runtime_param

    cls.get_runtime_param = get_runtime_param
    cls._afp_plain_first = True
    return True
