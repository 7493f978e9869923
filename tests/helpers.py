"""Helpers shared by the tests: fixture ids, key-order-aware JSON comparison, common options."""

from __future__ import annotations

import json
import sys
from pathlib import Path
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


def rerun_until_approved(answer: Path) -> list[str]:
    """``afp bisect`` options that rerun ``python ANSWER`` and count an output holding
    ``APPROVED`` as the original behaviour (recorded as ``Refund APPROVED``)."""
    return [
        "--rerun",
        f"{sys.executable} {answer}",
        "--comparator",
        "contains:APPROVED",
        "--original-output",
        "Refund APPROVED",
    ]
