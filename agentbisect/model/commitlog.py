"""The commit-log index and the verb-aware value fold ``commitValueAt``/``deepSmartMerge`` (bisect.md §6.2).

Commit values stay raw JSON until a key is folded. ``CommitLog`` keeps, per trace path, the ordered
``(bundle index, verb)`` touches, so a fold costs the touches of one path up to ``idx`` rather than
a scan of the whole log (the spec allows this; the result equals the literal scan).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

import msgspec
from msgspec import Raw

from agentbisect.core.js import ABSENT
from agentbisect.schema.recording import CommitBundle as Bundle

__all__ = ["CommitLog", "deep_smart_merge", "get_path"]

SEP = "\u001f"
_FORBIDDEN = frozenset({"__proto__", "constructor", "prototype"})


_TOP = msgspec.json.Decoder(dict[str, Raw])


def _is_index(seg: str) -> bool:
    return seg.isdigit() and seg.isascii() and (len(seg) == 1 or seg[0] != "0")


def get_path(container: Any, segs: list[str]) -> Any:
    """Walk own keys (list indices as canonical decimal strings); anything missing is ABSENT."""
    cur = container
    for seg in segs:
        if seg in _FORBIDDEN:
            return ABSENT
        if isinstance(cur, dict):
            if seg not in cur:
                return ABSENT
            cur = cur[seg]
        elif isinstance(cur, list):
            if not _is_index(seg):
                return ABSENT
            i = int(seg)
            if i >= len(cur):
                return ABSENT
            cur = cur[i]
        else:
            return ABSENT
    return cur


def _prim_key(v: Any) -> tuple[str, Any] | None:
    # JS Set identity for primitives: 1 and true differ, 1 and 1.0 are the same number.
    if v is None:
        return ("z", None)
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, (int, float)):
        return ("n", float(v) if v == v else "nan")
    if isinstance(v, str):
        return ("s", v)
    return None


def deep_smart_merge(dst: Any, src: Any) -> Any:
    """Upstream ``deepSmartMerge``: lists concatenate minus repeated primitives; objects merge."""
    if isinstance(src, list):
        if not src:
            return []
        if isinstance(dst, list):
            out: list[Any] = []
            seen: set[tuple[str, Any]] = set()
            for item in dst + src:
                k = _prim_key(item)
                if k is not None:
                    if k in seen:
                        continue
                    seen.add(k)
                out.append(item)
            return out
        return list(src)
    if not isinstance(src, dict):
        return src
    res: dict[str, Any] = dict(dst) if isinstance(dst, dict) else {}
    for k, v in src.items():
        res[k] = deep_smart_merge(res.get(k, ABSENT), v)
    return res


class CommitLog:
    """The decoded commit log plus the per-path and per-step indexes the localizer needs."""

    def __init__(self, bundles: list[Bundle]) -> None:
        self.bundles = bundles
        self.last_idx: dict[str, int] = {}
        self.step_bundles: dict[str, list[int]] = {}
        # path -> ([bundle indices], [verbs]) in log order; one entry per trace entry.
        self.touch_idx: dict[str, list[int]] = {}
        self.touch_verb: dict[str, list[str]] = {}
        # path -> bundle indices that wrote it (deduplicated), for writer binding (§3.3).
        self.writers: dict[str, list[int]] = {}
        for i, b in enumerate(bundles):
            rid = b.runtimeStageId
            self.last_idx[rid] = i
            self.step_bundles.setdefault(rid, []).append(i)
            for t in b.trace:
                p = t.path
                lst = self.touch_idx.get(p)
                if lst is None:
                    self.touch_idx[p] = [i]
                    self.touch_verb[p] = [t.verb]
                    self.writers[p] = [i]
                else:
                    lst.append(i)
                    self.touch_verb[p].append(t.verb)
                    w = self.writers[p]
                    if w[-1] != i:
                        w.append(i)
        self._ow: dict[int, dict[str, Raw]] = {}
        self._up: dict[int, dict[str, Raw]] = {}
        self._vals: dict[tuple[int, str, str], Any] = {}

    def __len__(self) -> int:
        return len(self.bundles)

    def _patch(self, i: int, which: str) -> dict[str, Raw]:
        cache = self._ow if which == "overwrite" else self._up
        got = cache.get(i)
        if got is None:
            raw = getattr(self.bundles[i], which)
            got = {}
            if isinstance(raw, Raw) and _first_byte(raw) == b"{":
                got = _TOP.decode(raw)
            cache[i] = got
        return got

    def _get(self, i: int, which: str, segs: list[str]) -> Any:
        if segs[0] in _FORBIDDEN:
            return ABSENT
        top = self._patch(i, which)
        ck = (i, which, segs[0])
        if ck in self._vals:
            val = self._vals[ck]
        else:
            raw = top.get(segs[0])
            val = ABSENT if raw is None else msgspec.json.decode(raw)
            self._vals[ck] = val  # shared: the fold never mutates values, callers get copies
        if val is ABSENT:
            return ABSENT
        return get_path(val, segs[1:]) if len(segs) > 1 else val

    def last_writer_before(self, key: str, before: int) -> int | None:
        """Index of the last bundle before ``before`` whose trace wrote ``key`` exactly."""
        w = self.writers.get(key)
        if not w:
            return None
        j = bisect_right(w, before - 1) - 1
        return w[j] if j >= 0 else None

    def value_at(self, idx: int, key: str, *, copy: bool = True) -> Any:
        """``commitValueAt(log, idx, key)``: the folded value of ``key`` as of bundle ``idx``.

        Decoded patch values are cached and shared between folds, so the result is a detached
        deep copy unless ``copy=False`` (internal read-only callers).
        """
        value = self._fold(idx, key)
        if copy and isinstance(value, (dict, list)):
            return _deep_copy(value)
        return value

    def _fold(self, idx: int, key: str) -> Any:
        end = min(idx, len(self.bundles) - 1)
        idxs = self.touch_idx.get(key)
        if not idxs or end < 0:
            return ABSENT
        n = bisect_right(idxs, end)
        if n == 0:
            return ABSENT
        verbs = self.touch_verb[key]
        start = 0
        for j in range(n - 1, -1, -1):
            if verbs[j] in ("set", "delete"):
                start = j
                break
        segs = key.split(SEP)
        value: Any = ABSENT
        for j in range(start, n):
            verb, b = verbs[j], idxs[j]
            if verb == "set":
                value = self._get(b, "overwrite", segs)
            elif verb == "delete":
                value = ABSENT
            elif verb == "append":
                tail = self._get(b, "overwrite", segs)
                value = value + tail if isinstance(value, list) and isinstance(tail, list) else tail
            else:  # merge, and any unknown verb
                value = deep_smart_merge(value, self._get(b, "updates", segs))
        return value

    def step_paths(self, rid: str) -> list[str]:
        """Distinct trace paths over every bundle of ``rid``, in first-occurrence order."""
        seen: dict[str, None] = {}
        for i in self.step_bundles.get(rid, ()):
            for t in self.bundles[i].trace:
                seen.setdefault(t.path, None)
        return list(seen)


def _first_byte(raw: Raw) -> bytes:
    """The first non-blank byte of a raw JSON value (no copy of the whole value)."""
    mv = memoryview(raw)
    for i in range(min(len(mv), 64)):
        c = mv[i : i + 1].tobytes()
        if c not in b" \t\r\n":
            return c
    return b""


def _deep_copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _deep_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_deep_copy(x) for x in v]
    return v
