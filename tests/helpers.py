"""Helpers shared by the foundation tests: fixture ids and key-order-aware JSON comparison."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import UPSTREAM

RECORDINGS = [
    "react-tools",
    "react-tools-lean",
    "react-tools-legacy",
    "planted-fact",
    "composition",
]


def recording(rid: str) -> str:
    return str(UPSTREAM / f"{rid}.recording.json")


def expected(rid: str, kind: str) -> Any:
    return json.loads((UPSTREAM / f"{rid}.{kind}.json").read_text())


def ordered(value: Any) -> Any:
    """Re-read JSON with objects as key/value lists, so equality also checks key order."""
    return json.loads(json.dumps(value), object_pairs_hook=list)


def ordered_bytes(data: bytes) -> Any:
    return json.loads(data, object_pairs_hook=list)
