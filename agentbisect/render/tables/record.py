"""``afp record``'s summary as aligned lines on stderr (stdout stays free for pipes)."""

from __future__ import annotations

from typing import Any

from agentbisect.render.console import stderr_console
from agentbisect.render.flags import print_flags
from agentbisect.render.safetext import safe
from agentbisect.results import RecordSummary


def record_summary(s: RecordSummary) -> None:
    err = stderr_console()

    def line(label: str, value: Any) -> None:
        text = safe(f"{label:<12} ")
        text.append_text(safe(value))
        err.print(text)

    line("read", s.shape_in)
    line("wrote", f"{s.file_out}: {s.shape_out}, detail {s.detail}")
    line("typed", f"{s.typed_in} in, {s.typed_out} out")
    line(
        "domain", (f"{s.domain_in} in, " if s.domain_in is not None else "") + f"{s.domain_out} out"
    )
    line("boundaries", f"{s.boundaries} run/subflow events")
    line(
        "ranges",
        "none (no commit axis)" if s.ranges is None else f"{s.ranges} ({s.unclosed} unclosed)",
    )
    line("bytes", f"{s.bytes_in} before, {s.bytes_out} after")
    print_flags(err, s.flags)
