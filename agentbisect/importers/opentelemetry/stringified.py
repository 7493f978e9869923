"""Attribute values a tracing backend wrote as text, read back as the type their convention gives.

Zipkin keeps every tag as a string (the OpenTelemetry → Zipkin mapping writes ``300`` as
``"300"`` and a string array as the JSON text ``["stop"]``), and Jaeger keeps arrays as JSON
text. A value is converted back only where a semantic convention declares the key's type (token
counts, request parameters, finish reasons, document scores); any other text stays text, because
nothing says it was anything else. Text that does not parse as the declared type is kept as it
was, for the conventions reader to judge (a token count that is not a number is flagged there).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec

# GenAI, OpenInference and the AI SDK's integer attributes (the ones afp reads or replays).
_INTS = frozenset(
    {
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.prompt_tokens",
        "gen_ai.usage.completion_tokens",
        "gen_ai.usage.total_tokens",
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.request.max_tokens",
        "gen_ai.request.seed",
        "gen_ai.request.choice.count",
        "gen_ai.memory.record.count",
        "llm.token_count.prompt",
        "llm.token_count.completion",
        "llm.token_count.total",
        "ai.usage.inputTokens",
        "ai.usage.outputTokens",
        "ai.usage.promptTokens",
        "ai.usage.completionTokens",
    }
)
_FLOATS = frozenset(
    {
        "gen_ai.request.temperature",
        "gen_ai.request.top_p",
        "gen_ai.request.top_k",
        "gen_ai.request.frequency_penalty",
        "gen_ai.request.presence_penalty",
        "gen_ai.evaluation.score.value",
    }
)
_STRING_ARRAYS = frozenset(
    {
        "gen_ai.response.finish_reasons",
        "gen_ai.request.stop_sequences",
        "gen_ai.request.encoding_formats",
    }
)
# OpenInference's indexed documents: retrieval.documents.N.document.score is a double.
_INDEXED_FLOAT = re.compile(r"retrieval\.documents\.\d+\.document\.score")
_INT_TEXT = re.compile(r"-?\d{1,19}")
# Text up to this length is kept once per file by the readers (keys, names, short values repeat
# on every span), as the OTLP/JSON reader keeps it.
SHARE_UP_TO = 64


def _int(text: str) -> Any:
    return int(text) if _INT_TEXT.fullmatch(text.strip()) else text


def _float(text: str) -> Any:
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def _string_array(text: str) -> Any:
    if text[:1] != "[":
        return text
    try:
        items = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text
    return items if isinstance(items, list) else text


@functools.lru_cache(maxsize=4096)
def converter(key: str) -> Callable[[str], Any] | None:
    """How text of ``key`` is read back as its declared type; None when no convention declares
    one (then the text stays text). Cached: a trace repeats its few keys on every span."""
    if key in _INTS:
        return _int
    if key in _FLOATS or (key.endswith(".score") and _INDEXED_FLOAT.fullmatch(key)):
        return _float
    if key in _STRING_ARRAYS:
        return _string_array
    return None


def retyped(key: str, value: str) -> Any:
    """``value`` (text as the backend stored it) as the type the conventions give ``key``."""
    convert = converter(key)
    return value if convert is None else convert(value)
