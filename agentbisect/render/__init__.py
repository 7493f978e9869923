"""Renderers: one module per output format, each behind the same small ``Renderer`` interface.

A renderer reads a result (``agentbisect.results``, ``agentbisect.results.bisect``) and writes it;
it computes nothing. ``get_renderer(name)`` imports the module of that name lazily, so that JSON
output never loads rich. Adding a format (say ``html``) is one module here with a
``render(result)`` function, one line in ``RENDERERS``, and one member in the commands' format
Enums (``agentbisect.render.formats``).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Protocol, TypeGuard, cast

if TYPE_CHECKING:
    from agentbisect.results.bisect import BisectResult

__all__ = ["RENDERERS", "Renderer", "get_renderer"]


class Renderer(Protocol):
    """Write one result to stdout (and its warnings/flags where the format puts them)."""

    def render(self, result: object) -> None: ...


RENDERERS: dict[str, str] = {
    "table": "agentbisect.render.table",
    "json": "agentbisect.render.json",
    "jsonl": "agentbisect.render.jsonl",
    "text": "agentbisect.render.text",
    "html": "agentbisect.render.html",
}


def get_renderer(name: str) -> Renderer:
    """The renderer module for a format name (a format option's value)."""
    return cast(Renderer, importlib.import_module(RENDERERS[name]))


def is_bisect_result(result: object) -> TypeGuard[BisectResult]:
    """Whether ``result`` is a ``BisectResult``, asked without importing the localizer (~13 ms):
    only a bisect makes one, and then its module is loaded."""
    module = sys.modules.get("agentbisect.results.bisect")
    return module is not None and isinstance(result, module.BisectResult)


class Unsupported(TypeError):
    """A renderer was handed a result type it has no rendering for (a bug in a command)."""
