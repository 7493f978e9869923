"""``-o FILE`` for the report commands: whatever the chosen renderer writes goes to FILE instead of
stdout, with ``afp record``'s rules — written atomically, never over an input, never over an
existing file without ``FORCE``, and only ever replacing a regular file."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence

from agentbisect.core.errors import UsageError
from agentbisect.core.options import FORMAT_FLAGS, OUTPUT


def check_output(output: str | None, force: bool, inputs: Sequence[str]) -> None:
    """Refuse a bad ``-o`` before any work is done (reruns can take minutes)."""
    if output is None:
        return
    from agentbisect.core.files import check_target

    for path in inputs:
        if path != "-" and _same_file(path, output):
            raise UsageError(f"{OUTPUT.flags[0]} {output}: refusing to overwrite the input {path}")
    check_target(output, force=force)  # the rules every file afp writes follows


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # either is missing (or a dangling link): they cannot be the same file
        return False


def emit(name: str, result: object, output: str | None, force: bool) -> None:
    """Render ``result`` in format ``name`` to stdout, or to ``output``."""
    from agentbisect.render import get_renderer
    from agentbisect.render.console import stdout_is_terminal

    renderer = get_renderer(name)
    if output is None:
        if name == "html" and stdout_is_terminal():
            raise UsageError(
                f"{FORMAT_FLAGS[0]} html writes a page: give {OUTPUT.flags[0]} FILE (or redirect stdout)"
            )
        renderer.render(result)
        return
    from agentbisect.core.files import write_atomic

    buf = io.BytesIO()
    text = io.TextIOWrapper(buf, encoding="utf-8", newline="", write_through=True)
    saved = sys.stdout
    sys.stdout = text
    try:
        renderer.render(result)
        text.flush()
    finally:
        sys.stdout = saved
    write_atomic(output, buf.getvalue(), force=force)
