"""What ``afp`` shows on a real terminal: run commands in tmux panes of 80×40 and 120×40 and keep
each screen as text under ``docs/img/`` (issue 25: the bisect table on one screen, the aggregate
Calls table's headers whole, warnings broken between words).

    python benchmarks/tmux_captures.py [--out docs/img]       # needs tmux (apt-get install tmux)

Each capture is the pane after the command ended, scrollback included, so a report longer than
the pane would show as such. The default pager stays on: a report that fits is not paged.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = "fixtures/otel/oaiv2-2.4b0-span-only.tool-planted.otlp.json"
RECORDING = "fixtures/upstream/planted-fact.recording.json"
# (name, afp arguments): what the captures show
COMMANDS = (
    ("bisect-otel-trace", ["bisect", TRACE]),
    ("bisect-planted-recording", ["bisect", RECORDING]),
    ("aggregate-otel-trace", ["aggregate", TRACE]),
)
SIZES = ((80, 40), (120, 40))
START, DONE = "__afp_capture_start__", "__afp_capture_done__"


def capture(args: list[str], cols: int, rows: int, script: Path) -> str:
    session = f"afp-capture-{os.getpid()}"
    env = f"PYTHONPATH={shlex.quote(str(ROOT))} PYTHONDONTWRITEBYTECODE=1"
    # a script, so the line typed at the prompt is short and the markers are only printed
    script.write_text(
        f"cd {shlex.quote(str(ROOT))}\necho {START}\n{env} {shlex.quote(sys.executable)} -m "
        "agentbisect " + " ".join(shlex.quote(a) for a in args) + f"\necho {DONE}\n"
    )
    cmd = f"sh {shlex.quote(str(script))}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", str(cols), "-y", str(rows)],
        check=True,
    )
    try:
        subprocess.run(["tmux", "set-option", "-t", session, "history-limit", "5000"], check=True)
        # a plain prompt, so the capture holds only the command's own lines
        subprocess.run(
            ["tmux", "send-keys", "-t", session, "PS1='$ ' TERM=xterm-256color clear", "Enter"],
            check=True,
        )
        time.sleep(0.5)
        subprocess.run(["tmux", "send-keys", "-t", session, cmd, "Enter"], check=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            shown = subprocess.run(
                ["tmux", "capture-pane", "-p", "-S", "-", "-t", session],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            if f"\n{DONE}\n" in shown + "\n":
                break
            time.sleep(0.5)
        else:
            raise SystemExit(f"timed out: {args}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    lines = shown.splitlines()
    start = lines.index(START) + 1
    end = lines.index(DONE)
    return "\n".join(line.rstrip() for line in lines[start:end]) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    args = ap.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux not found: apt-get install tmux", file=sys.stderr)
        return 2
    out = Path(args.out)
    for name, cmd in COMMANDS:
        for cols, rows in SIZES:
            text = capture(cmd, cols, rows, out / ".capture.sh")
            path = out / f"{name}-{cols}x{rows}.txt"
            path.write_text(f"$ afp {' '.join(cmd)}\n" + text, "utf-8")
            n = text.count("\n")
            wide = max((len(line) for line in text.splitlines()), default=0)
            print(f"{path.relative_to(ROOT)}: {n} lines, widest {wide} columns")
    (out / ".capture.sh").unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
