"""Nearest-name suggestions for ids and names a user mistyped (step ids, event types, groups)."""

from __future__ import annotations

from collections.abc import Iterable

MAX_SHOWN = 5


def nearest(word: str, candidates: Iterable[str], n: int = MAX_SHOWN) -> list[str]:
    """Up to ``n`` candidates closest to ``word`` (by similarity of the strings), best first."""
    import difflib  # only a mistyped name pays for it (~1 ms at every start otherwise)

    pool = list(dict.fromkeys(candidates))
    return difflib.get_close_matches(word, pool, n=n, cutoff=0.4)


def say_nearest(word: str, candidates: Iterable[str], what: str) -> str:
    """``"nearest <what>: a, b, c"`` or, with no close match, a few of them and how many."""
    pool = list(dict.fromkeys(candidates))
    if not pool:
        return f"there are no {what}s"
    close = nearest(word, pool)
    if close:
        return f"nearest {what}s: {', '.join(close)}"
    shown = ", ".join(pool[:MAX_SHOWN])
    more = f" … ({len(pool)} in all)" if len(pool) > MAX_SHOWN else ""
    return f"{what}s here: {shown}{more}"
