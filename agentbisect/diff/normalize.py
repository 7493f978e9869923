"""When two recorded texts are the same: formatting, ids and times set aside.

Two runs of the same task always differ in their ids (trace, span, call, request ids) and their
times; a JSON value may be re-encoded with other spacing or key order. ``canonical`` is the text
as shown (JSON re-encoded one way, whitespace runs made one space); ``masked`` is what is
compared (ids and times replaced by placeholders, a leading ``[id]`` label of a document
dropped, as one format writes it and another does not). Two sources or outputs are *the same*
when their masked texts are equal; a difference left only in the canonical text is immaterial.
"""

from __future__ import annotations

import json
import re
from typing import Any

# keys whose values are ids or times in any JSON a tool returns (request_id, createdAt, ts, …)
_ID_KEY = re.compile(
    r"(?:^|[_\-.])(?:id|ids|uuid|guid|trace|span|request|req|nonce|etag)$"
    r"|[a-z](?:Id|ID|Ids|Uuid)$"
    r"|^(?:ts|timestamp|time|datetime|created|updated|modified|fetched|generated)$"
    r"|(?:^|[_\-.])(?:ts|timestamp|time|datetime)$"
    r"|(?:_at|At)$",
)
_MASKS = (
    # UUIDs, and long hexadecimal ids (trace and span ids, hashes)
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<id>"),
    (r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{16,}\b", "<id>"),
    # the prefixed ids of model APIs and services: call_…, chatcmpl-…, req_…, toolu_…, run-…
    (
        r"\b(?:call|chatcmpl|req|request|resp|msg|run|span|trace|toolu|tool|evt|cmpl|sess)"
        r"[_\-](?=[A-Za-z0-9]*[0-9])[A-Za-z0-9][A-Za-z0-9_\-]{5,}\b",
        "<id>",
    ),
    # ISO 8601 date-times (a bare date is content: a delivery date, a deadline)
    (
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+\-]\d{2}:?\d{2})?\b",
        "<time>",
    ),
    # epoch times in seconds or milliseconds (2001-2286)
    (r"\b1\d{9}(?:\d{3})?(?:\.\d+)?\b", "<time>"),
)
ID_PATTERNS = tuple(re.compile(p) for p, _ in _MASKS)
# a JSON member as ``canonical`` writes it: its key and its scalar value
_MEMBER = re.compile(r'"((?:[^"\\]|\\.)*)": ("(?:[^"\\]|\\.)*"|-?[\d.eE+\-]+|true|false|null)')
_DOC_LABEL = re.compile(r"^\[[^\]\s]{1,120}\]\s+")
_SPACE = re.compile(r"\s+")
_DIGIT = re.compile(r"\d")


def _json_value(text: str) -> Any:
    """The JSON object or array ``text`` holds, else None (a string stays a string)."""
    t = text.strip()
    if not t or t[0] not in "[{":
        return None
    try:
        return json.loads(t)
    except ValueError:
        return None


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def canonical(text: str) -> str:
    """``text`` as shown and diffed: JSON re-encoded with sorted keys, whitespace runs as one
    space (a text whose lines matter keeps them: only runs of spaces and tabs are folded)."""
    value = _json_value(text)
    if value is not None:
        return _dump(value)
    return re.sub(r"[ \t]+", " ", text.replace("\r\n", "\n")).strip()


def _mask_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: ("<id>" if _ID_KEY.search(k) and not isinstance(v, dict | list) else _mask_json(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask_json(v) for v in value]
    if isinstance(value, str):
        return mask_text(value)
    return value


def id_key_regions(text: str) -> list[tuple[int, int]]:
    """Where a canonical text holds what ``masked`` sets aside besides the id and time patterns:
    the values of id and time keys of JSON (``request_id``, …), a document's leading label."""
    if _json_value(text) is None:
        label = _DOC_LABEL.match(text)
        return [label.span()] if label else []
    return [m.span(2) for m in _MEMBER.finditer(text) if _ID_KEY.search(m.group(1))]


def mask_text(text: str) -> str:
    """``text`` with ids and times replaced by placeholders and whitespace folded."""
    # every id and time pattern holds a digit: a text without one is searched no further (most
    # prose; the patterns cost a long run's diff more than its alignment did)
    if _DIGIT.search(text):
        for rx, (_, placeholder) in zip(ID_PATTERNS, _MASKS, strict=True):
            text = rx.sub(placeholder, text)
    return _SPACE.sub(" ", text).strip()


def masked(text: str) -> str:
    """What is compared: ``text``'s JSON masked by key and value, or its text masked, without a
    leading ``[id]`` document label."""
    value = _json_value(text)
    if value is not None:
        return _dump(_mask_json(value))
    return mask_text(_DOC_LABEL.sub("", text.strip()))


def same(a: str, b: str) -> bool:
    """Whether two texts are the same once formatting, ids and times are set aside."""
    return a == b or masked(a) == masked(b)
