"""Shared pytest fixtures: paths to the bundled recordings and upstream outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
UPSTREAM = FIXTURES / "upstream"


@pytest.fixture
def upstream() -> Path:
    return UPSTREAM
