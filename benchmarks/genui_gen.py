"""Generate N realistic ``GenuiCallRow`` rows (JSON Lines or a SQLite table) for the benchmark.

Turns of 1–6 UI calls across many tools, models, channels and 90 days; attempts and validity
follow the loop's rules (spec §7: a refusal bumps the attempt, an acceptance resets it); about a
quarter of the calls are refused with one of ~40 scrubbed messages, some with no category so the
classifier runs; cost is missing on ~15 % of the turns and latency on some calls.

    python benchmarks/genui_gen.py --rows 1000000 --out rows.jsonl
    python benchmarks/genui_gen.py --rows 1000000 --sqlite rows.db
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import numpy as np

TOOLS = [
    ("ui__render", "tree"),
    ("ui__sandbox", "tree"),
    ("ui__show", "show"),
    *[
        (f"ui__show_{name}", "per-component")
        for name in (
            "chart",
            "card",
            "table",
            "form",
            "map",
            "timeline",
            "kanban",
            "invoice",
            "profile",
            "calendar",
            "gallery",
            "metric",
        )
    ],
]
MODELS = ["claude-x", "claude-x-mini", "gpt-y", "gpt-y-mini", "gemini-z", "llama-w"]
CHANNELS = ["web", "web", "web", "whatsapp", "slack", "telegram"]
_MESSAGES = [
    ("schema", 'invalid UI tree: props.owner: expected string, received "…"'),
    ("schema", "invalid Chart props: series[0].value: must be number"),
    ("schema", 'invalid Card props: title: expected string, received "…"'),
    ("schema", "invalid Table props: rows: must have at least 1 items"),
    ("schema", "invalid Form props: fields[2].kind: does not match any allowed shape"),
    ("schema", "invalid Map props: center.lat is required"),
    ("schema", 'invalid Kanban props: columns[1]: "…" is not a known property'),
    ("unknown_component", 'invalid UI tree: root.type: unknown component "…" (allowed: …)'),
    ("unknown_component", 'component "…" is not available here'),
    ("unknown_component", 'component "…" is not available on this channel'),
    ("tree_limits", "the tree has more than 200 elements"),
    ("tree_limits", "the tree is nested deeper than 12 levels"),
    ("tree_shape", "Card does not take children"),
    ("tree_shape", "children must be an array of elements"),
    ("tree_shape", "root must be an element object"),
    ("sandbox", "SyntaxError: Unexpected token '<'"),
    ("sandbox", "ReferenceError: useState is not defined"),
    ("sandbox", "blocked by Content-Security-Policy: inline script"),
    ("other", "network timeout"),
    ("other", "the component registry is unavailable"),
]
MESSAGES = _MESSAGES + [(cat, f"{msg} (field {i})") for i in range(1, 2) for cat, msg in _MESSAGES]
START = datetime(2026, 5, 1, tzinfo=UTC)


def _rows(n: int, seed: int = 7) -> Iterator[dict[str, object]]:
    """Yield ``n`` row dicts in the order a store would write them (turn by turn)."""
    rng = np.random.default_rng(seed)
    made = 0
    turn = 0
    while made < n:
        turn += 1
        size = int(min(n - made, rng.integers(1, 7)))
        run_id = f"run-{turn:08d}-{rng.integers(1 << 30):08x}"
        thread = f"thread-{turn // 3:07d}"
        actor = f"user:{rng.integers(5000):04d}"
        model = MODELS[int(rng.integers(len(MODELS)))]
        channel = CHANNELS[int(rng.integers(len(CHANNELS)))]
        started = START + timedelta(seconds=float(rng.uniform(0, 90 * 86400)))
        costed = rng.random() > 0.15
        refused = 0
        for step in range(size):
            tool, mode = (
                TOOLS[int(rng.integers(len(TOOLS)))] if step else TOOLS[int(rng.integers(3))]
            )
            is_error = rng.random() < 0.25
            attempt = refused + 1
            row: dict[str, object] = {
                "toolCallId": f"call_{turn:08d}_{step}_{rng.integers(1 << 40):010x}",
                "runId": run_id,
                "threadId": thread,
                "actorRef": actor,
                "agentName": "support-agent",
                "step": step,
                "toolName": tool,
                "channel": channel,
                "mode": mode,
                "modelId": model,
                "attempt": attempt,
                "outcome": "error" if is_error else "ok",
                "validity": "failed" if is_error else ("first_try" if attempt == 1 else "retried"),
            }
            first = float(np.round(rng.uniform(300, 6000), 1))
            if is_error:
                cat, msg = MESSAGES[int(rng.integers(len(MESSAGES)))]
                if rng.random() < 0.8:
                    row["errorCategory"] = cat
                row["errorMessage"] = msg
                refused += 1
                if rng.random() < 0.5:
                    row["firstFrameMs"] = first
            else:
                refused = 0
                row["firstFrameMs"] = first
                row["completeFrameMs"] = float(np.round(first + rng.uniform(10, 3000), 1))
            row["inputTokens"] = int(rng.integers(50, 4000))
            row["outputTokens"] = int(rng.integers(10, 1500))
            if costed:
                row["costUsd"] = float(np.round(rng.uniform(0.0001, 0.05), 6))
                row["costSource"] = "pricing-table"
            row["payloadBytes"] = int(rng.integers(80, 20000))
            created = started + timedelta(seconds=2.5 * step + float(rng.uniform(0, 2)))
            row["createdAt"] = created.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            yield row
            made += 1


def write_jsonl(path: Path, n: int) -> None:
    enc = msgspec.json.Encoder()
    buf = bytearray()
    with path.open("wb") as f:
        for row in _rows(n):
            enc.encode_into(row, buf, -1)
            buf += b"\n"
            if len(buf) > 1 << 22:
                f.write(buf)
                buf.clear()
        f.write(buf)


SQL_COLUMNS = [
    ("tool_call_id", "TEXT NOT NULL"),
    ("run_id", "TEXT NOT NULL"),
    ("thread_id", "TEXT NOT NULL"),
    ("actor_ref", "TEXT NOT NULL"),
    ("agent_name", "TEXT"),
    ("step", "INTEGER NOT NULL"),
    ("tool_name", "TEXT NOT NULL"),
    ("channel", "TEXT NOT NULL"),
    ("mode", "TEXT NOT NULL"),
    ("model_id", "TEXT NOT NULL"),
    ("attempt", "INTEGER NOT NULL"),
    ("outcome", "TEXT NOT NULL"),
    ("validity", "TEXT NOT NULL"),
    ("error_category", "TEXT"),
    ("error_message", "TEXT"),
    ("input_tokens", "INTEGER NOT NULL"),
    ("output_tokens", "INTEGER NOT NULL"),
    ("cost_usd", "REAL"),
    ("cost_source", "TEXT"),
    ("first_frame_ms", "REAL"),
    ("complete_frame_ms", "REAL"),
    ("payload_bytes", "INTEGER NOT NULL"),
    ("payload", "TEXT"),
    ("created_at", "TEXT NOT NULL"),
]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def write_sqlite(path: Path, n: int, table: str = "genui_calls") -> None:
    """A snake_case table like an SQL store would hold (created_at as RFC 3339 text)."""
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    cols = ", ".join(f"{name} {decl}" for name, decl in SQL_COLUMNS)
    con.execute(f"CREATE TABLE {table} ({cols}, PRIMARY KEY (tool_call_id))")
    keys = [_camel(name) for name, _ in SQL_COLUMNS]
    marks = ", ".join("?" for _ in SQL_COLUMNS)
    con.executemany(
        f"INSERT INTO {table} VALUES ({marks})",
        (tuple(row.get(k) for k in keys) for row in _rows(n)),
    )
    con.commit()
    con.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--out", type=Path, help="JSON Lines output path")
    p.add_argument("--sqlite", type=Path, help="SQLite database path (table genui_calls)")
    args = p.parse_args(argv)
    if not args.out and not args.sqlite:
        p.error("give --out and/or --sqlite")
    if args.out:
        write_jsonl(args.out, args.rows)
    if args.sqlite:
        write_sqlite(args.sqlite, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
