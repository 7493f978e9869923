"""What a suspect *said*: the text its evidence is judged by and the table shows.

An injection, memory or tool suspect says its ``detail.text`` (the injected content, the tool
result). Any other step says what it wrote itself: the string values of its own commits (its
``overwrite``/``updates`` patches, not the folded state, which would also hold what earlier steps
wrote), in order, without repeats. So an earlier LLM call is judged by its output, the run's
seed step by the input it stored. Numbers and booleans are bookkeeping (token counts,
iteration numbers) and are left out, as are the values of plumbing keys (``role``, ``type``,
``id``, ``kind``). The answer under suspicion is the trigger step's own text.
"""

from __future__ import annotations

from typing import Any

from agentbisect.core.js import ABSENT
from agentbisect.model.commitlog import SEP, CommitLog

MAX_EVIDENCE_CHARS = 2000
# message/record plumbing, not content: a history entry's "role", a record's "type" or "id"
_STRUCTURAL_KEYS = frozenset({"role", "type", "id", "kind"})


def _strings(v: Any, out: dict[str, None]) -> None:
    if isinstance(v, str):
        s = v.strip()
        if s:
            out.setdefault(s, None)
    elif isinstance(v, dict):
        for k, x in v.items():
            if k not in _STRUCTURAL_KEYS:
                _strings(x, out)
    elif isinstance(v, list):
        for x in v:
            _strings(x, out)


def own_text(log: CommitLog, rid: str, max_chars: int = MAX_EVIDENCE_CHARS) -> str | None:
    """The strings step ``rid`` wrote in its own bundles, one per line; None if it wrote none."""
    found: dict[str, None] = {}
    for i in log.step_bundles.get(rid, ()):
        for t in log.bundles[i].trace:
            if t.verb == "delete":
                continue
            which = "overwrite" if t.verb in ("set", "append") else "updates"
            v = log._get(i, which, t.path.split(SEP))
            if v is not ABSENT:
                _strings(v, found)
    if not found:
        return None
    return "\n".join(found)[:max_chars]
