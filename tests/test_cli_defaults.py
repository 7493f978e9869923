"""The CLI repeats a few library defaults as literals (so that `afp` starts without importing
numpy); these tests keep the copies honest."""

from __future__ import annotations

import subprocess
import sys

from agentbisect.bisect.causal import probes as causal
from agentbisect.bisect.pipeline.localize import DEFAULTS
from agentbisect.cli import bisect as cli_bisect
from agentbisect.cli import record as cli_record
from agentbisect.model import record


def test_bisect_defaults_match_the_library() -> None:
    assert DEFAULTS["maxDepth"] == cli_bisect.DEFAULT_MAX_DEPTH
    assert DEFAULTS["maxNodes"] == cli_bisect.DEFAULT_MAX_NODES
    assert DEFAULTS["maxSuspects"] == cli_bisect.DEFAULT_MAX_SUSPECTS
    assert cli_bisect.DEFAULT_FLIP_THRESHOLD == causal.DEFAULT_FLIP_THRESHOLD


def test_record_default_matches_the_library() -> None:
    assert cli_record.DEFAULT_MAX_EVENTS == record.DEFAULT_MAX_EVENTS


def test_starting_afp_does_not_import_numpy_or_rich() -> None:
    code = (
        "import sys, agentbisect.cli; "
        "print(sorted(m for m in ('numpy', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
