"""``BisectResult``: a bisect report plus every display fact a renderer needs, computed here.

The report itself stays the upstream-shaped ``ContextBugReport`` (its JSON is the contract); the
parts renderers used to derive by parsing labels back apart (a suspect's identity, its label, its
cost class) are fields of ``SuspectView`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from msgspec import UNSET, Struct, field

from agentbisect.core.js import to_fixed
from agentbisect.core.options import RERUN
from agentbisect.results.report import ContextBugReport, Suspect

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


class BisectResult(Struct, dict=True):  # dict: room for the cached overview
    report: ContextBugReport
    views: list[SuspectView]
    warnings: list[str] = field(default_factory=list)  # said on stderr, not part of the report
    # The run around the trigger, built only when a renderer reads ``overview`` (the HTML page).
    overview_of: Callable[[], RunOverview] | None = None
    no_verdict: str = NO_VERDICT  # the advice beside a suspect without a verdict
    no_restore_verdict: str = NO_RESTORE_VERDICT  # … beside a dropped candidate without one

    @cached_property
    def overview(self) -> RunOverview | None:
        return self.overview_of() if self.overview_of is not None else None

    @property
    def headline(self) -> str:
        """The one-line verdict a screen starts with: mode, trigger, top suspect, flag count."""
        r = self.report
        parts = [r.mode.upper(), f"trigger {r.step}"]
        if r.suspects:
            top, view = r.suspects[0], self.views[0]
            what = f"top suspect {view.label} at {top.source}, {self.score_text(0)}"
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
        else:
            parts.append("no suspects")
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
) -> BisectResult:
    views = [
        SuspectView(
            suspect_identity(s),
            suspect_label(s),
            classify_suspect(s),
            preview(s.evidence.text) if s.evidence is not UNSET else "",
            s.evidence is not UNSET,
        )
        for s in report.suspects
    ]
    return BisectResult(
        report, views, list(warnings or []), overview_of, no_verdict, no_restore_verdict
    )
