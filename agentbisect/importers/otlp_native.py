"""``afp aggregate``'s OTLP fast path in compiled code, for the traces it can answer.

``agentbisect._otlpscan`` (C, built by ``pip install``; optional) reads a mapped OTLP/JSON file
of one *flat* trace — a root span whose children are LLM calls, tool calls (each with its call
id), retrievals or other spans, in the current GenAI conventions — and returns the same ``Facts`` the Python
walk (``otlp_walk``) finds, without a Python object per JSON value: on a 100,000-span trace the
difference between ~3× and well under 1× a bare ``msgspec.json.decode`` of the file.

It declines (``None``) whatever it does not reproduce exactly: nested spans, messages matched by
content, a tool span without a call id, any unknown key or malformed value.
``otlp_aggregate`` then asks the Python walk, which declines in turn to the full import. The
text rules whose semantics are Python's (``clean``, paragraph splitting, the system-instruction
parts, a value shown as JSON, a retrieval's documents) are called back from C, so they keep one definition
(``importers/texts.py``). ``tests/test_otlp_native.py`` holds the result equal to the full path's.

``ENABLED = False`` turns it off (the differential tests compare the paths that way).
"""

from __future__ import annotations

import mmap
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec

from agentbisect.boundary.calls import LlmCallRow
from agentbisect.importers.otlp_result import Facts, NoCommits, assemble
from agentbisect.importers.texts import (
    as_text,
    clean,
    instruction_parts,
    retrieved_documents,
    split_paragraphs,
)

if TYPE_CHECKING:
    from agentbisect.results import AggregateResult

_otlpscan: ModuleType | None
try:
    from agentbisect import _otlpscan
except ImportError:  # (built without a C compiler: the Python paths answer)
    _otlpscan = None

AVAILABLE: bool = _otlpscan is not None
ENABLED: bool = True
ANSWERED = 0  # how many results it gave (tests check that it engages)


def _paragraphs(text: str) -> tuple[str, ...]:
    return tuple(split_paragraphs(text))


def _raw_text(raw: bytes) -> str:
    return as_text(msgspec.json.decode(raw))


def result(file: str, mm: mmap.mmap, show_all: bool, drill: str | None) -> AggregateResult | None:
    """The ``afp aggregate`` result of the mapped ``file``, or ``None`` where it declines."""
    global ANSWERED
    if not ENABLED or _otlpscan is None:
        return None
    found: Any = _otlpscan.aggregate(
        mm, LlmCallRow, clean, _paragraphs, instruction_parts, _raw_text, retrieved_documents
    )
    if found is None:
        return None
    try:
        answer = assemble(file, len(mm), Facts(*found), show_all, drill)
    except NoCommits:
        return None
    ANSWERED += 1
    return answer
