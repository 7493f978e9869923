#!/usr/bin/env python3
"""A replay rerun command for ``afp bisect --rerun``: answers from ``planted-fact.rerun-log.json``.

Usage: ``python tests/rerun_replay.py REPORT [--log FILE] [--state FILE]``, where REPORT is the
log's report name (``causal``, ``causal-baseline-unstable``, ``causal-default-comparator-cost``).
It reads the afp request ``{"specs", "seed", "step", "probe"}`` from stdin and prints the logged
``{"output", "cost"?}`` of the call with the same ``(specs, seed)``. With ``--state FILE`` it also
checks call order: the n-th call must be the n-th logged call of REPORT (the state file counts).
Exits 2 (with a message on stderr) when the request matches no logged call.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

LOG = (
    Path(__file__).resolve().parent.parent / "fixtures" / "upstream" / "planted-fact.rerun-log.json"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--log", default=str(LOG))
    ap.add_argument("--state")
    args = ap.parse_args()
    req = json.loads(sys.stdin.read())
    calls = [
        c for c in json.loads(Path(args.log).read_text())["calls"] if c["report"] == args.report
    ]
    if args.state:
        state = Path(args.state)
        n = int(state.read_text() or "0") if state.exists() else 0
        state.write_text(str(n + 1))
        if n >= len(calls):
            print(f"call {n} is beyond the {len(calls)} logged calls", file=sys.stderr)
            return 2
        want = calls[n]
        if want["specs"] != req["specs"] or want["seed"] != req["seed"]:
            print(
                f"call {n} out of order: got specs={req['specs']} seed={req['seed']}, "
                f"logged specs={want['specs']} seed={want['seed']}",
                file=sys.stderr,
            )
            return 2
    for c in calls:
        if c["specs"] == req["specs"] and c["seed"] == req["seed"]:
            answer = {"output": c["output"]}
            if "cost" in c:
                answer["cost"] = c["cost"]
            print(json.dumps(answer))
            return 0
    print(f"no logged call for specs={req['specs']} seed={req['seed']}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
