#!/usr/bin/env python3
"""A deterministic fake rerun command with known ground truth, for ``afp bisect --rerun``.

It speaks the rerun protocol: one JSON request ``{"specs": [...], "seed", "step", "probe"}`` on
stdin, one answer ``{"output": ..., "cost": {"loops", "tokens"}}`` on stdout. The output contains
``APPROVED`` (the original, wrong answer) while the ground truth says the wrong answer survives,
and ``DECLINED`` once the ablation removed its cause; compare with ``contains:APPROVED``.

Ground truth (``--truth``), over the ids the specs remove (tool names, injection and memory ids):
- ``one:A``      the wrong answer needs A: removing A flips.
- ``or:A,B,..``  each of them suffices: only removing all of them flips (leave-one-out sees nothing).
- ``and:A,B,..`` all of them are needed: removing any one flips.
- ``coin``       every output is a seeded coin flip, whatever was removed.
- ``none``       nothing ever flips.
``--noise F`` flips a seeded fraction F of the outputs. Randomness is a hash of (``--noise-seed``,
probe, seed), so the same request always gets the same answer.

Usage: ``python tests/fake_rerun.py --truth or:promo-fact,lookup [--noise 0.1] [--noise-seed 0]``.
The same logic is importable (``Truth``) for in-process tests and the benchmark.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from typing import Any

WRONG = "Refund APPROVED: the promo covers the order."
RIGHT = "Refund DECLINED: the order is outside the 30-day window."


def removed_ids(payload: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for spec in payload.get("specs", []):
        for key in ("ignoredTools", "excludeInjectionIds", "excludeMemoryIds"):
            out.update(spec.get(key, []))
    return out


def _uniform(*parts: object) -> float:
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


@dataclass(frozen=True)
class Truth:
    rule: str  # one | or | and | coin | none
    culprits: tuple[str, ...] = ()
    noise: float = 0.0
    noise_seed: int = 0

    @classmethod
    def parse(cls, text: str, noise: float = 0.0, noise_seed: int = 0) -> Truth:
        rule, _, ids = text.partition(":")
        culprits = tuple(i for i in ids.split(",") if i)
        if rule not in ("one", "or", "and", "coin", "none"):
            raise ValueError(f"unknown truth {text!r}")
        if rule in ("one", "or", "and") and not culprits:
            raise ValueError(f"truth {rule} needs ids: {rule}:A[,B...]")
        return cls(rule, culprits, noise, noise_seed)

    def wrong_answer_survives(self, removed: set[str], seed: int, probe: str) -> bool:
        if self.rule == "coin":
            return _uniform(self.noise_seed, "coin", probe, seed) < 0.5
        gone = [c in removed for c in self.culprits]
        if self.rule == "one" or self.rule == "and":
            survives = not any(gone)
        elif self.rule == "or":
            survives = not all(gone)
        else:
            survives = True
        if self.noise and _uniform(self.noise_seed, "noise", probe, seed) < self.noise:
            survives = not survives
        return survives

    def answer(self, payload: dict[str, Any], seed: int, probe: str) -> dict[str, Any]:
        removed = removed_ids(payload)
        text = WRONG if self.wrong_answer_survives(removed, seed, probe) else RIGHT
        # cost: a context with fewer sources is cheaper, so totals are checkable
        return {"output": text, "cost": {"loops": 1, "tokens": 1000 - 10 * len(removed)}}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--noise-seed", type=int, default=0)
    args = ap.parse_args()
    truth = Truth.parse(args.truth, args.noise, args.noise_seed)
    req = json.loads(sys.stdin.read())
    print(json.dumps(truth.answer(req, int(req["seed"]), str(req["probe"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
