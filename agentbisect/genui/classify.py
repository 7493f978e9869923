"""Error classification and scrubbing of UI-tool error messages (spec §6).

``GenuiErrorCategory`` upstream lives in a file that was not found, so the category table is ours
([I] in the spec): ordered regexes built from the real refusal texts of the genui tools, first
match wins, applied to the lower-cased message.
"""

from __future__ import annotations

import re
from functools import lru_cache

# (category, pattern) in priority order. The patterns are the spec's table verbatim; they see the
# message lower-cased, and give the same answer on raw and on scrubbed text.
_TABLE: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (category, re.compile(pattern))
    for category, pattern in (
        (
            "unknown_component",
            r"unknown component|is not available here"
            r"|not available (?:in this conversation|on this channel)",
        ),
        (
            "tree_limits",
            r"more than \d+ elements|nested deeper than \d+ levels|nested too deeply",
        ),
        (
            "tree_shape",
            r"must be an element object|does not take children|must be an array of elements"
            r"|must be \{ ?component, props ?\}|must be a component name",
        ),
        (
            "sandbox",
            r"<script|content-security-policy|\bcsp\b|syntaxerror|unexpected token"
            r"|is not defined|\bjsx\b",
        ),
        (
            "schema",
            r"^invalid .+ props:|^invalid ui tree:|\bmust be\b|is required|is not a known property"
            r"|does not match any allowed shape|must match|must have at (?:least|most)"
            r"|expected .+, received",
        ),
    )
)

CATEGORIES: tuple[str, ...] = (*(c for c, _ in _TABLE), "other")

# Spec §6 step 1, verbatim: double-quoted (with escapes), single-quoted and backtick spans. The
# look-arounds keep apostrophes inside words (`doesn't`) from opening a quote.
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|(?<![\w])\'[^\'\n]*\'(?![\w])|`[^`\n]*`')
_PLACEHOLDER = '"…"'
MAX_MESSAGE = 300


@lru_cache(maxsize=65536)
def classify_error(message: str) -> str:
    """The category of a UI tool's error message; ``"other"`` when nothing matches.

    Cached: a real table repeats a few dozen distinct messages across millions of rows.
    """
    lowered = message.lower()
    for category, pattern in _TABLE:
        if pattern.search(lowered):
            return category
    return "other"


@lru_cache(maxsize=65536)
def scrub_error(message: str) -> str:
    """``message`` with every quoted value replaced by ``"…"``, at most 300 code points.

    Idempotent: ``"…"`` maps to itself, and a cut message already ends within the limit.
    """
    scrubbed = QUOTED.sub(_PLACEHOLDER, message)
    if len(scrubbed) > MAX_MESSAGE:
        scrubbed = scrubbed[: MAX_MESSAGE - 1] + "…"
    return scrubbed


__all__ = ["CATEGORIES", "MAX_MESSAGE", "QUOTED", "classify_error", "scrub_error"]
