"""``afp scan``'s result: what was written where, and the fleet at a glance (runs, errors, the
most frequent honesty flags, the tools most often among the top suspects)."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field


class ScanResult(Struct, kw_only=True):
    directory: str
    tables: dict[str, str]  # table name -> file written
    files: int  # files given or found
    read: int  # files read this time (new or changed)
    reused: int  # files whose rows were kept from the previous scan (unchanged)
    dropped: int  # files of the previous scan no longer given or found
    runs: int  # rows of the runs table
    errors: int  # runs rows with an error (files or runs that could not be read)
    calls: int  # rows of the calls table
    flags: list[tuple[str, int]]  # honesty-flag names by the number of runs raising them
    first_errors: list[str] = field(default_factory=list)  # a few error messages, as written
    # with BISECT: the suspects' tools by how many runs have them among their top suspects
    suspect_tools: list[tuple[str, int]] | None = None
    not_localized: int = 0  # runs read but not localized (BISECT), their reason in the table
    engine: str = "local"
    jobs: int = 1
    seconds: float = 0.0
    rescan_reason: str | None = None  # why every file was read again (settings changed …)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "directory": self.directory,
            "tables": self.tables,
            "files": self.files,
            "read": self.read,
            "reused": self.reused,
            "dropped": self.dropped,
            "runs": self.runs,
            "errors": self.errors,
            "calls": self.calls,
            "flags": [{"flag": f, "runs": n} for f, n in self.flags],
            "firstErrors": self.first_errors,
            "engine": self.engine,
            "jobs": self.jobs,
            "seconds": round(self.seconds, 3),
        }
        if self.suspect_tools is not None:
            out["suspectTools"] = {
                "note": "correlational: how often a tool's result ranks among a run's top "
                "suspects (evidence scores are proxies, not causal verdicts)",
                "tools": [{"tool": t, "runs": n} for t, n in self.suspect_tools],
                "notLocalized": self.not_localized,
            }
        if self.rescan_reason is not None:
            out["rescanReason"] = self.rescan_reason
        return out
