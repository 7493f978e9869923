"""Text extraction from the commit log (bisect.md §4.3): ``stepOutputText`` and
``edgeKeyText``, capped in UTF-16 code units. Results are cached: they are pure functions of the
log and are asked for repeatedly (weighing, refinement, ancestors).
"""

from __future__ import annotations

from agentbisect.core.js import ABSENT, cap_utf16, safe_stringify
from agentbisect.model.commitlog import CommitLog

MAX_TEXT_CHARS = 2000


class Texts:
    def __init__(self, log: CommitLog, max_chars: int = MAX_TEXT_CHARS) -> None:
        self.log = log
        self.max_chars = max_chars
        self._step: dict[str, str | None] = {}
        self._edge: dict[tuple[str, str], str | None] = {}

    def step_output(self, rid: str) -> str | None:
        """``path=value`` lines over every path the step ever wrote, folded at its last commit."""
        if rid in self._step:
            return self._step[rid]
        text: str | None = None
        last = self.log.last_idx.get(rid)
        if last is not None:
            paths = self.log.step_paths(rid)
            if paths:
                parts: list[str] = []
                size = 0
                for p in paths:
                    # every line only matters up to the cap: stringify no further than that
                    value = self.log.value_at(last, p, copy=False)
                    line = p + "=" + safe_stringify(value, self.max_chars)
                    parts.append(line)
                    size += len(line) + 1
                    if size > self.max_chars:
                        break
                text = cap_utf16("\n".join(parts), self.max_chars)
        self._step[rid] = text
        return text

    def edge_key(self, parent_id: str, key: str) -> str | None:
        """The parent's folded value of ``key`` as of its last commit; None when absent."""
        k = (parent_id, key)
        if k in self._edge:
            return self._edge[k]
        text: str | None = None
        last = self.log.last_idx.get(parent_id)
        if last is not None:
            v = self.log.value_at(last, key, copy=False)
            if v is not ABSENT:
                text = cap_utf16(safe_stringify(v, self.max_chars), self.max_chars)
        self._edge[k] = text
        return text
