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


def _group(source: str, *rows: tuple[str, str]) -> tuple[FlagInfo, ...]:
    return tuple(FlagInfo(name, meaning, source) for name, meaning in rows)


_ALL = (
    # --- raised by the upstream localizer (their names, their order, first in a bisect report)
    *_group(
        "upstream",
        ("slice-truncated", "the causal slice was cut by its depth/node budget"),
        ("untracked-sources", "slice nodes also read untracked inputs (args/env)"),
        ("no-control-deps", "no control-dependence lookup: routing decisions missing"),
        ("no-read-tracking", "no stageReads: read-to-write edges cannot be followed"),
        ("no-llm-call-ids", "no LLM-call ids: the ranking is structure-only"),
        ("baseline-unstable", "the un-ablated baseline flips: verdicts inconclusive"),
    ),
    # --- raised by afp's own bisect extensions (never on an upstream-parity report)
    *_group(
        "bisect",
        (
            "surrogate-unreliable",
            "surrogate attribution: held-out R² below 0.5, the weights are not trustworthy",
        ),
        (
            "mock-embedder",
            "similarities come from the mock embedder: character-count geometry, not meaning",
        ),
    ),
    # --- raised while reading a file
    *_group(
        "loader",
        ("redacted", "the trace was written with redaction: content fields hold markers"),
        ("events-unreadable", "the typed event stream is not an array"),
        ("structure-absent", "the recording has no structure (chart)"),
        ("snapshot-absent", "the recording has no snapshot: no commit log"),
        ("snapshot-unreadable", "the snapshot is not an object"),
        ("commit-log-unreadable", "the commit log is not an array"),
        ("duplicate-boundary-rows", "several BoundaryEvents rows; the first is used"),
        ("boundaries-absent", "no BoundaryEvents row: no boundaries, index or strip"),
        ("boundaries-unreadable", "the BoundaryEvents row's data is not an array"),
        ("null-holes", "null items in an event array were skipped"),
        ("non-object-events", "non-object items in an event array were skipped"),
        ("unknown-event-types", "events of unknown types: kept, ignored by analyses"),
        ("malformed-events", "events of known types that could not be read"),
        ("malformed-typed-events", "typed events that could not be read"),
        ("ts-stamped-now", "capture flow events without ts were stamped at conversion"),
    ),
    # --- derived by the run model
    *_group(
        "run",
        ("commit-axis-absent", "recorded without commit tracking: no index, no strip"),
        ("unclosed-ranges", "boundary ranges never closed (crash, pause, partial)"),
        ("duplicate-range-keys", "a range was reopened under a key still open"),
        ("phantom-ranges", "ranges end before they start (corrupt positions)"),
        ("unpositioned-events", "boundary events without a commit position"),
        ("unindexable-events", "boundary events lacking the id needed to pair them"),
        ("lean-no-content", "lean boundary bundle: structure only, no payloads"),
        ("typed-half-rebuilt", "LLM/tool events rebuilt from the typed stream"),
        ("events-dropped", "the event cap dropped typed events"),
        ("run-incomplete", "the producer says the run was not complete"),
        ("multiple-runs", "typed events span several runs; the snapshot holds the last"),
        ("llm-calls-without-id", "llm_start events without meta.runtimeStageId skipped"),
    ),
    # --- raised by `afp record` about its output
    *_group(
        "record",
        ("lean-input", "the input was lean: the output stays lean"),
        ("drops-unknown", "a bare recording cannot say whether events were dropped"),
        ("drops-unproven", "only this cut's drops are counted; the index is not proven"),
    ),
    # --- raised by the trace and transcript importers (what the source could not provide)
    *_group(
        "importer",
        ("synthesized-commit-axis", "the commit axis is span start order, made by the importer"),
        ("content-not-captured", "LLM calls carry no message content: bisect ranks by structure"),
        ("output-not-captured", "LLM calls carry their input but not their output (reply, calls)"),
        (
            "tool-results-without-spans",
            "tool results fed to the model that no tool step holds, as messages",
        ),
        (
            "tool-steps-from-messages",
            "tool steps rebuilt from chat messages (no tool span): no timing or errors of their own",
        ),
        ("no-genai-spans", "no span of the trace follows a convention afp reads: nothing read"),
        ("matched-by-content", "sources linked to their producer by identical content, not id"),
        ("matched-by-structure", "sources linked to their producer by position only"),
        ("malformed-attribute", "span attributes of the wrong type or unparsable JSON, dropped"),
        ("duplicate-span-ids", "spans repeating an earlier span id; the first was kept"),
        ("orphan-spans", "spans whose parent is not in the trace, kept at the top"),
        ("parent-cycle", "parent links formed a cycle; cut at one span"),
        ("span-outside-parent", "spans outside their parent's time range"),
        (
            "malformed-span-time",
            "spans with a missing, unparsable or reversed start/end time: kept, no latency or duration",
        ),
        (
            "malformed-event-time",
            "span events or log records with a missing, unparsable or out-of-span time: kept, order a guess",
        ),
        ("unknown-span-kind", "spans with an unspecified or unknown span kind"),
        ("spans-ignored", "spans of operations afp does not read, named with their counts"),
        ("tool-results-from-logs", "tool results read from a later call's logged messages, by id"),
        ("tool-results-from-calls", "tool results read from a later call's input messages, by id"),
        ("requests-from-agent", "LLM requests read from the agent's record of its conversation"),
        ("messages-without-content", "input messages recorded as a role alone, no content"),
        ("nested-llm-spans", "LLM spans inside another LLM span read as one request, counted once"),
        ("unjoined-log-records", "log records naming no span of the trace, unused"),
        (
            "content-by-reference",
            "content stored outside the trace (*_ref attributes): not fetched, not read",
        ),
        ("records-ignored", "GenAI span events or log records afp does not read, counted"),
    ),
    *_group(
        "loader",
        ("import-unreadable", "the recording's import key is unreadable; ignored"),
    ),
    *_group(
        "importer",
        ("no-token-usage", "the source has no token counts: token totals are 0"),
    ),
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
