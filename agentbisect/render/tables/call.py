"""``afp call`` on a terminal: where the request came from, its parameters, then every message
the model was sent and the answer the run recorded (recorded text scrubbed by ``safetext``)."""

from __future__ import annotations

import json
from typing import Any

from agentbisect.render.console import stdout_console
from agentbisect.render.safetext import safe
from agentbisect.results.call import CallResult


def _message_lines(m: dict[str, Any]) -> list[str]:
    lines = []
    content = m.get("content")
    if isinstance(content, str) and content:
        lines.append(content)
    elif content is not None and not isinstance(content, str):
        lines.append(json.dumps(content, ensure_ascii=False))
    for c in m.get("tool_calls") or []:
        fn = c.get("function") or {}
        lines.append(
            f"→ tool call {c.get('id', '')}: {fn.get('name', '')}({fn.get('arguments', '')})"
        )
    return lines


def render_call(result: CallResult) -> None:
    from rich.table import Table

    out = stdout_console()
    where = f"LLM call {result.step}"
    if result.llm_index is not None:
        where += f" (index {result.llm_index})"
    out.print(safe(f"{where} — {result.file}, rebuilt from {result.origin}", "bold"))
    params = {k: v for k, v in result.request.items() if k not in ("messages", "tools")}
    for k, v in params.items():
        out.print(safe(f"  {k}: {json.dumps(v, ensure_ascii=False)}"))
    tools = result.request.get("tools") or []
    if tools:
        names = [
            ((t.get("function") or {}).get("name") or "?") if isinstance(t, dict) else "?"
            for t in tools
        ]
        out.print(safe(f"  tools: {', '.join(names)}"))
    table = Table(show_lines=True, expand=False)
    table.add_column("#", justify="right")
    table.add_column("role")
    table.add_column("content", overflow="fold")
    for i, m in enumerate(result.request.get("messages", [])):
        role = str(m.get("role", ""))
        if m.get("tool_call_id"):
            role += f"\n{m['tool_call_id']}"
        table.add_row(str(i), safe(role), safe("\n".join(_message_lines(m)), keep_newlines=True))
    table.add_row(
        "",
        safe("response\n(recorded)", "bold"),
        safe("\n".join(_message_lines(result.response)) or "(empty)", keep_newlines=True),
    )
    out.print(table)
