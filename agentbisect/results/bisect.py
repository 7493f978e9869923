"""``BisectResult``: a bisect report plus every display fact a renderer needs, computed here.

The report itself stays the upstream-shaped ``ContextBugReport`` (its JSON is the contract); the
parts renderers used to derive by parsing labels back apart (a suspect's identity, its label, its
cost class) are fields of ``SuspectView`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from msgspec import UNSET, Struct, field

from agentbisect.core.js import to_fixed
from agentbisect.core.options import RERUN
from agentbisect.results.report import Confidence, ContextBugReport, Suspect

if TYPE_CHECKING:
    from agentbisect.results import RunOverview


def preview(text: str, words: int = 12) -> str:
    """The first words of a text, on one line, for the table."""
    parts = text.split()
    head = " ".join(parts[:words])
    return head + (" …" if len(parts) > words else "")


# What a report without a verdict advises (the text rendering): afp's options by default; the
# bisect policy chooses (upstream's sentences name its library API)
NO_VERDICT = f"rerun with {RERUN.flag} CMD to test causally"
NO_RESTORE_VERDICT = f"add {RERUN.flag} CMD to test restoring it"


class SuspectView(Struct, frozen=True):
    identity: str  # the tool name, injection id or stage id the suspect is about
    label: str  # "<kind> '<identity>'", as claims and the text rendering write it
    cost_class: str  # both | content-bug | cost-cause | no-detected-effect
    said: str = ""  # the first words of the suspect's own text (evidence-first reports)
    backed: bool = False  # content-backed: the evidence scorer judged its own text
    # the suspect in a trace user's words ("tool result get_refund_policy (call …)"), from its
    # sourceKind; its ``label`` where the report has no sourceKind (upstream parity)
    words: str = ""


class BisectResult(Struct, dict=True):  # dict: room for the cached overview
    report: ContextBugReport
    views: list[SuspectView]
    warnings: list[str] = field(default_factory=list)  # said on stderr, not part of the report
    # The run around the trigger, built only when a renderer reads ``overview`` (the HTML page).
    overview_of: Callable[[], RunOverview] | None = None
    no_verdict: str = NO_VERDICT  # the advice beside a suspect without a verdict
    no_restore_verdict: str = NO_RESTORE_VERDICT  # … beside a dropped candidate without one
    imported: bool = False  # a trace, transcript or export: suspects in the trace's own words
    details: bool = False  # the terminal shows everything (DETAILS), not the one screen
    page: bool = True  # a long terminal report goes through the pager (NO_PAGER turns it off)

    @cached_property
    def overview(self) -> RunOverview | None:
        return self.overview_of() if self.overview_of is not None else None

    @property
    def headline(self) -> str:
        """The one-line verdict a screen starts with: mode, trigger, top suspect, flag count."""
        return self.verdict(short=False)

    def verdict(self, *, short: bool) -> str:
        """The headline; ``short`` (the one-screen table): the confidence first, and without
        the trigger and flag count, which the answer line and the flags line below say."""
        r = self.report
        parts = [r.mode.upper()] if short else [r.mode.upper(), f"trigger {r.step}"]
        if short and r.suspects and r.confidence is not UNSET:
            parts.append(confidence_text(r.confidence, len(r.suspects)))
        if r.suspects:
            top, view = r.suspects[0], self.views[0]
            # (a trace's words name the source; its step id is in the table's step column)
            where = "" if view.words else f" at {top.source}"
            what = f"top suspect {view.words or view.label}{where}, {self.score_text(0)}"
            if top.verdict is not UNSET:
                what += f", {top.verdict.verdict}"
            elif r.mode != "causal":
                what += " (a proxy)"
            else:
                what += " (not rerun-tested)"
            parts.append(what)
            if r.mode == "causal":
                # In a causal report the verdicts are the claim: name what the reruns confirmed,
                # even where the ranking put a never-tested suspect first.
                confirmed = [self.views[i].label for i in self.confirmed]
                parts.append(
                    "confirmed: " + ", ".join(confirmed) if confirmed else "none confirmed"
                )
            if r.confidence is not UNSET and not short:
                parts.append(confidence_text(r.confidence, len(r.suspects)))
        else:
            parts.append("no suspects")
        if short:
            return " · ".join(parts)
        n = len(r.honestyFlags)
        parts.append(f"{n} honesty flag{'s' if n != 1 else ''}" if n else "no honesty flags")
        return " · ".join(parts)

    @property
    def confirmed(self) -> list[int]:
        """Indexes of the suspects whose ablation flipped the answer (the causal claims)."""
        return [
            i
            for i, s in enumerate(self.report.suspects)
            if s.verdict is not UNSET and s.verdict.verdict == "confirmed"
        ]

    def score_text(self, i: int) -> str:
        """The score the ranking used for suspect ``i``; ``≤`` marks a path-only upper bound."""
        r = self.report
        s = r.suspects[i]
        # Evidence rankings (evidence-first, learned) rank by the evidence score, so that is the
        # number to quote; only they attach evidence to a suspect.
        if s.evidence is not UNSET:
            return f"evidence {_short3(s.evidence.score)}"
        bound = "≤" if s.semanticScore is UNSET else ""
        return f"score {_short3(s.score)}{bound}"


def confidence_text(c: Confidence, n: int) -> str:
    """The verdict's confidence: "confident (97 %)", or the shortlist to check."""
    pct = f"{100 * c.probability:.0f} %"
    if c.confident:
        return f"confident ({pct})"
    k = min(c.shortlist, n)
    return f"not confident ({pct}): check #1–#{k}" if k > 1 else f"not confident ({pct})"


def _short3(x: float) -> str:
    """Three decimals without trailing zeros, rounded as the tables round (``toFixed``: ties
    half-up, where Python's ``round`` goes half-even), so the headline quotes the table's number."""
    s = to_fixed(x, 3)
    return s.rstrip("0").rstrip(".") if "." in s else s


def suspect_identity(s: Suspect) -> str:
    d = s.detail
    if d is not UNSET:
        if d.toolName is not UNSET:
            return d.toolName
        if d.injectionId is not UNSET:
            return d.injectionId
    return s.source


def suspect_label(s: Suspect) -> str:
    return f"{s.kind} '{suspect_identity(s)}'"


# The call id a tool result names is cut to this many characters (ids run to ~30)
CALL_ID_CHARS = 12


def source_words(s: Suspect) -> str:
    """The suspect in a trace user's words, from its ``sourceKind`` and detail: tool result
    (tool and call), system prompt (part n), document (id), LLM output, user message."""
    kind = s.sourceKind
    d = s.detail
    ident = suspect_identity(s)
    if kind == "tool-result":
        calls = s.ablation.toolCallIds if s.ablation is not UNSET else UNSET
        call = calls[0] if calls is not UNSET and calls else ""
        if len(call) > CALL_ID_CHARS:
            call = call[: CALL_ID_CHARS - 1] + "…"
        if call and not call.startswith("call"):
            call = f"call {call}"
        return f"tool result {ident}" + (f" ({call})" if call else "")
    if kind == "system-prompt":
        part = (
            re.search(r"\.p(\d+)$", d.injectionId)
            if d is not UNSET and isinstance(d.injectionId, str)
            else None
        )
        return f"system prompt (part {part.group(1)})" if part else f"system prompt {ident}"
    if kind == "document":
        return f"document {ident}"
    if kind == "llm-output":
        return f"LLM output ({s.source})"
    if kind == "user-message":
        n = s.ablation.messageIndex if s.ablation is not UNSET else UNSET
        return f"user message ({f'message {n}' if isinstance(n, int) else s.source})"
    return suspect_label(s)


def passage(
    text: str, spans: list[tuple[int, int]], best: int | None, width: int
) -> tuple[str, list[tuple[int, int]], int]:
    """At most ``width`` characters of ``text`` on one line, centred on ``spans[best]`` (the
    start without highlights), cut at spaces, "…" where text was left out. Returns it, the
    spans inside it as offsets into it, and the index in ``spans`` of the first of them.
    Whitespace becomes spaces one for one, so offsets keep their place."""
    flat = re.sub(r"\s", " ", text)
    if len(flat) <= width:
        lo, hi = 0, len(flat)
    else:
        room = max(1, width - 2)  # the two ellipses
        lo = 0
        if best is not None:
            a, b = spans[best]
            lo = max(0, min((a + b) // 2 - room // 2, len(flat) - room, a))
        hi = min(len(flat), lo + room)
        if lo > 0:  # start after a space, unless that would cut into the best span
            cut = flat.find(" ", lo, lo + 20)
            if cut != -1 and (best is None or cut < spans[best][0]):
                lo = cut + 1
        if hi < len(flat):  # end at a space, unless that would cut into the best span
            cut = flat.rfind(" ", max(lo, hi - 20), hi)
            if cut != -1 and (best is None or cut >= spans[best][1]):
                hi = cut
    while lo < hi and flat[lo] == " ":
        lo += 1
    while hi > lo and flat[hi - 1] == " ":
        hi -= 1
    head = "…" if lo > 0 else ""
    tail = "…" if hi < len(flat) else ""
    shift = lo - len(head)
    inside = [(n, a, b) for n, (a, b) in enumerate(spans) if a < hi and b > lo]
    marks = [(max(a, lo) - shift, min(b, hi) - shift) for _, a, b in inside]
    return head + flat[lo:hi] + tail, marks, inside[0][0] if inside else 0


def classify_suspect(s: Suspect) -> str:
    """Cost class of a judged suspect: did removing it flip the outcome, reduce cost, both?"""
    flips = s.verdict is not UNSET and s.verdict.verdict == "confirmed"
    cost_cause = s.cost is not UNSET and s.cost.reducedCostOnRemoval and s.cost.stable
    if flips and cost_cause:
        return "both"
    if flips:
        return "content-bug"
    if cost_cause:
        return "cost-cause"
    return "no-detected-effect"


def bisect_result(
    report: ContextBugReport,
    *,
    warnings: list[str] | None = None,
    overview_of: Callable[[], RunOverview] | None = None,
    no_verdict: str = NO_VERDICT,
    no_restore_verdict: str = NO_RESTORE_VERDICT,
    imported: bool = False,
) -> BisectResult:
    views = []
    for s in report.suspects:
        ev = s.evidence
        views.append(
            SuspectView(
                suspect_identity(s),
                suspect_label(s),
                classify_suspect(s),
                preview(ev.text) if ev is not UNSET else "",
                ev is not UNSET,
                source_words(s) if s.sourceKind is not UNSET and imported else "",
            )
        )
    return BisectResult(
        report,
        views,
        list(warnings or []),
        overview_of,
        no_verdict,
        no_restore_verdict,
        imported=imported,
    )
