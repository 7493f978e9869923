"""The ``afp`` commands without a CLI framework: one module per command, each holding its option
table (``SPEC``) and its body (``run``), which both front ends call — typer's app in
``agentbisect.cli`` and the fast one in ``commands.main`` (see docs/architecture.md).

Nothing here imports typer, click, rich or numpy at module level; bodies import what they use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agentbisect.commands.spec import CommandSpec

# command name -> module in this package
MODULES = {
    "aggregate": "aggregate",
    "bisect": "bisect",
    "events": "events",
    "genui-stats": "genui_stats",
    "record": "record",
}


def spec_of(name: str) -> CommandSpec:
    spec: CommandSpec = importlib.import_module(f"agentbisect.commands.{MODULES[name]}").SPEC
    return spec


def body_of(name: str) -> Callable[..., Any]:
    body: Callable[..., Any] = importlib.import_module(f"agentbisect.commands.{MODULES[name]}").run
    return body
