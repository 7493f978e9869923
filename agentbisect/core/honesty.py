"""The honesty vocabulary: one ``HonestyFlag`` type and the registry of every flag name afp raises.

A flag is a limit of the evidence, carried as data on every result (tables and JSON alike). Each
name is registered here once, with a one-line meaning and where it comes from; ``afp bisect``'s gate option
choices and the README table are derived from this registry, and a test checks that no module
raises a name that is not in it.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

__all__ = ["FLAGS", "FlagInfo", "HonestyFlag", "dedupe", "flag", "names"]


class HonestyFlag(msgspec.Struct):
    """A limit of the evidence: a registered kebab-case name and a sentence saying what it means.

    ``flag``/``note`` are the upstream report's JSON keys, so the same object serves the loader,
    the run model, the record summary and the bisect report.
    """

    flag: str
    note: str


class FlagInfo(Struct, frozen=True):
    name: str
    meaning: str
    source: str  # who raises it: upstream | loader | run | record | bisect | importer


_ALL = (
    # --- raised by the upstream localizer (their names, their order, first in a bisect report)
    FlagInfo("slice-truncated", "the causal slice was cut by its depth/node budget", "upstream"),
    FlagInfo("untracked-sources", "slice nodes also read untracked inputs (args/env)", "upstream"),
    FlagInfo(
        "no-control-deps", "no control-dependence lookup: routing decisions missing", "upstream"
    ),
    FlagInfo(
        "no-read-tracking", "no stageReads: read-to-write edges cannot be followed", "upstream"
    ),
    FlagInfo("no-llm-call-ids", "no LLM-call ids: the ranking is structure-only", "upstream"),
    FlagInfo(
        "baseline-unstable", "the un-ablated baseline flips: verdicts inconclusive", "upstream"
    ),
    # --- raised by afp's own bisect extensions (never on an upstream-parity report)
    FlagInfo(
        "surrogate-unreliable",
        "surrogate attribution: held-out R² below 0.5, the weights are not trustworthy",
        "bisect",
    ),
    FlagInfo(
        "mock-embedder",
        "similarities come from the mock embedder: character-count geometry, not meaning",
        "bisect",
    ),
    # --- raised while reading a file
    FlagInfo(
        "redacted", "the trace was written with redaction: content fields hold markers", "loader"
    ),
    FlagInfo("events-unreadable", "the typed event stream is not an array", "loader"),
    FlagInfo("structure-absent", "the recording has no structure (chart)", "loader"),
    FlagInfo("snapshot-absent", "the recording has no snapshot: no commit log", "loader"),
    FlagInfo("snapshot-unreadable", "the snapshot is not an object", "loader"),
    FlagInfo("commit-log-unreadable", "the commit log is not an array", "loader"),
    FlagInfo("duplicate-boundary-rows", "several BoundaryEvents rows; the first is used", "loader"),
    FlagInfo("boundaries-absent", "no BoundaryEvents row: no boundaries, index or strip", "loader"),
    FlagInfo("boundaries-unreadable", "the BoundaryEvents row's data is not an array", "loader"),
    FlagInfo("null-holes", "null items in an event array were skipped", "loader"),
    FlagInfo("non-object-events", "non-object items in an event array were skipped", "loader"),
    FlagInfo("unknown-event-types", "events of unknown types: kept, ignored by analyses", "loader"),
    FlagInfo("malformed-events", "events of known types that could not be read", "loader"),
    FlagInfo("malformed-typed-events", "typed events that could not be read", "loader"),
    FlagInfo(
        "ts-stamped-now", "capture flow events without ts were stamped at conversion", "loader"
    ),
    # --- derived by the run model
    FlagInfo("commit-axis-absent", "recorded without commit tracking: no index, no strip", "run"),
    FlagInfo("unclosed-ranges", "boundary ranges never closed (crash, pause, partial)", "run"),
    FlagInfo("duplicate-range-keys", "a range was reopened under a key still open", "run"),
    FlagInfo("phantom-ranges", "ranges end before they start (corrupt positions)", "run"),
    FlagInfo("unpositioned-events", "boundary events without a commit position", "run"),
    FlagInfo("unindexable-events", "boundary events lacking the id needed to pair them", "run"),
    FlagInfo("lean-no-content", "lean boundary bundle: structure only, no payloads", "run"),
    FlagInfo("typed-half-rebuilt", "LLM/tool events rebuilt from the typed stream", "run"),
    FlagInfo("events-dropped", "the event cap dropped typed events", "run"),
    FlagInfo("run-incomplete", "the producer says the run was not complete", "run"),
    FlagInfo("multiple-runs", "typed events span several runs; the snapshot holds the last", "run"),
    FlagInfo("llm-calls-without-id", "llm_start events without meta.runtimeStageId skipped", "run"),
    # --- raised by `afp record` about its output
    FlagInfo("lean-input", "the input was lean: the output stays lean", "record"),
    FlagInfo("drops-unknown", "a bare recording cannot say whether events were dropped", "record"),
    FlagInfo(
        "drops-unproven", "only this cut's drops are counted; the index is not proven", "record"
    ),
    # --- raised by the trace and transcript importers (what the source could not provide)
    FlagInfo(
        "synthesized-commit-axis",
        "the commit axis is span start order, made by the importer",
        "importer",
    ),
    FlagInfo(
        "content-not-captured",
        "LLM calls carry no message content: bisect ranks by structure",
        "importer",
    ),
    FlagInfo(
        "matched-by-content",
        "sources linked to their producer by identical content, not id",
        "importer",
    ),
    FlagInfo(
        "matched-by-structure", "sources linked to their producer by position only", "importer"
    ),
    FlagInfo(
        "malformed-attribute",
        "span attributes of the wrong type or unparsable JSON, dropped",
        "importer",
    ),
    FlagInfo(
        "duplicate-span-ids", "spans repeating an earlier span id; the first was kept", "importer"
    ),
    FlagInfo("orphan-spans", "spans whose parent is not in the trace, kept at the top", "importer"),
    FlagInfo("parent-cycle", "parent links formed a cycle; cut at one span", "importer"),
    FlagInfo("span-outside-parent", "spans outside their parent's time range", "importer"),
    FlagInfo(
        "malformed-span-time",
        "spans with a missing, unparsable or reversed start/end time: kept, no latency or duration",
        "importer",
    ),
    FlagInfo(
        "malformed-event-time",
        "span events or log records with a missing, unparsable or out-of-span time: kept, order a guess",
        "importer",
    ),
    FlagInfo("unknown-span-kind", "spans with an unspecified or unknown span kind", "importer"),
    FlagInfo("unjoined-log-records", "log records naming no span of the trace, unused", "importer"),
    FlagInfo("import-unreadable", "the recording's import key is unreadable; ignored", "loader"),
    FlagInfo("no-token-usage", "the source has no token counts: token totals are 0", "importer"),
)

FLAGS: dict[str, FlagInfo] = {f.name: f for f in _ALL}


def flag(name: str, note: str) -> HonestyFlag:
    """A flag of a registered name (an unregistered name is a bug, caught here and in tests)."""
    if name not in FLAGS:
        raise KeyError(f"unregistered honesty flag {name!r}: add it to agentbisect/core/honesty.py")
    return HonestyFlag(name, note)


def names(*sources: str) -> list[str]:
    """Registered names, in registry order, optionally only those of the given sources."""
    return [f.name for f in _ALL if not sources or f.source in sources]


def dedupe(flags: list[HonestyFlag]) -> list[HonestyFlag]:
    """The first flag of each name, in order (one condition is said once)."""
    seen: set[str] = set()
    out = []
    for f in flags:
        if f.flag not in seen:
            seen.add(f.flag)
            out.append(f)
    return out


def markdown_table() -> str:
    """The README's flag table (generated, so that it cannot drift from the registry)."""
    rows = ["| flag | meaning | raised by |", "|---|---|---|"]
    rows += [f"| `{f.name}` | {f.meaning} | {f.source} |" for f in _ALL]
    return "\n".join(rows)
