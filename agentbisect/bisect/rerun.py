"""A helper for the other side of the rerun protocol: the command you give ``afp bisect``'s
rerun option (``RERUN``).

    from agentbisect.bisect import rerun

    probe = rerun.read_probe()                      # {"specs", "seed", "step", "probe"} from stdin
    messages, skipped = rerun.apply(probe["specs"], my_messages)
    answer = ask_my_model(messages, seed=probe["seed"])
    rerun.write_answer(answer, skipped=skipped)     # {"output", "skipped"?} on stdout

``apply`` is the removal ``afp bisect``'s replay uses (``bisect.causal.removal``): a tool result
becomes a placeholder that keeps the call/result pairing, a system-prompt part or a document is
cut from where it was placed, an earlier LLM output becomes a placeholder, a user message is never
removed. The specs it could not apply go back to afp in ``"skipped"``, and afp reports those
suspects as ``skipped`` — not as ``not-confirmed``, which would read as a real negative.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from agentbisect.bisect.causal.removal import (
    OUTPUT_PLACEHOLDER,
    TOOL_PLACEHOLDER,
    apply,
    spec_label,
)

__all__ = [
    "OUTPUT_PLACEHOLDER",
    "TOOL_PLACEHOLDER",
    "apply",
    "read_probe",
    "spec_label",
    "write_answer",
]


def read_probe(stream: IO[str] | None = None) -> dict[str, Any]:
    """The probe afp wrote on stdin: ``specs`` (or ``restore``), ``seed``, ``step``, ``probe``."""
    probe = json.load(stream if stream is not None else sys.stdin)
    if not isinstance(probe, dict):
        raise ValueError("the probe is not a JSON object")
    probe.setdefault("specs", [])
    return probe


def write_answer(
    output: str,
    *,
    skipped: list[dict[str, Any]] | None = None,
    loops: float | None = None,
    tokens: float | None = None,
    stream: IO[str] | None = None,
) -> None:
    """Print the answer afp reads: the output, the labels of the specs not applied, the cost."""
    answer: dict[str, Any] = {"output": output}
    if skipped:
        answer["skipped"] = [spec_label(s) for s in skipped]
    cost = {k: v for k, v in (("loops", loops), ("tokens", tokens)) if v is not None}
    if cost:
        answer["cost"] = cost
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(answer, ensure_ascii=False) + "\n")
    out.flush()
