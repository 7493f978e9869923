"""Type stub of the compiled core of ``afp aggregate``'s OTLP fast path (``_otlpscan.c``)."""

from collections.abc import Callable
from typing import Any

def aggregate(
    buffer: Any,
    row_type: type,
    clean: Callable[[str], str],
    paragraphs: Callable[[str], tuple[str, ...]],
    system_parts: Callable[[str], tuple[str, ...] | None],
    raw_text: Callable[[bytes], str],
    documents: Callable[[str, str], list[tuple[str, str | None]]],
) -> tuple[Any, ...] | None: ...
def keys() -> list[tuple[str, int, int]]: ...

MIN_DOC_CHARS: int
