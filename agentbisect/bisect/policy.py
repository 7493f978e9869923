"""``Policy``: every decision that differs between upstream parity (``options.UPSTREAM``) and afp's own
defaults, in one object passed down the bisect pipeline instead of an ``upstream`` flag.

``UPSTREAM`` gives exactly the upstream library's report: the mock embedder and the upstream
ranking pinned, upstream's flags and report fields only, upstream's path format and wording.
``OURS`` is afp's: the default embedder and ranking (each an option), afp's report fields, its
own and the recording's honesty flags, every key on an imported run's path hops, and sentences
that name afp's options.
"""

from __future__ import annotations

from msgspec import Struct

from agentbisect.bisect import options
from agentbisect.bisect.options import EMBEDDER, RANKING
from agentbisect.core.errors import UsageError
from agentbisect.core.options import EXPECTED
from agentbisect.results.bisect import NO_RESTORE_VERDICT, NO_VERDICT


class Policy(Struct, frozen=True):
    option: str  # the option that selects it, as messages spell it
    embedder: str | None  # the pinned embedder; None: the embedder option, else the default
    ranking: str | None  # the pinned ranking; None: the ranking option, else evidence-first
    afp_options: bool  # afp's own options allowed: expected, culprits, attribution
    afp_fields: bool  # afp's report fields: embedder, ranking, evidenceScoring, contrastive
    afp_flags: bool  # afp's own flags (mock-embedder) and the recording's; else upstream's only
    import_paths: bool  # an imported run's path hops name every key, its stages get specs
    default_trigger: bool  # no trigger option and no quality data: the last LLM call, said so
    no_verdict: str  # the text rendering's advice for a suspect without a verdict
    no_restore_verdict: str  # … and for a dropped-context candidate without one

    def check(self, *, embedder: object, ranking: str | None, expected: str | None) -> None:
        """Refuse an embedder or ranking other than the pinned one, or an afp-only option."""
        if self.embedder is not None and isinstance(embedder, str) and embedder != self.embedder:
            raise UsageError(
                f"{self.option} pins the {self.embedder} embedder: drop {EMBEDDER.flag}"
            )
        if self.ranking is not None and ranking not in (None, self.ranking):
            raise UsageError(f"{self.option} pins the {self.ranking} ranking: drop {RANKING.flag}")
        if expected is not None:
            self.extension(EXPECTED.flag)

    def extension(self, option: str) -> None:
        """Refuse ``option``, one of afp's own, unless this policy allows them."""
        if not self.afp_options:
            raise UsageError(
                f"{option} is an afp extension: it cannot be combined with {self.option}"
            )


UPSTREAM = Policy(
    option=options.UPSTREAM.flag,
    embedder="mock",
    ranking="upstream",
    afp_options=False,
    afp_fields=False,
    afp_flags=False,
    import_paths=False,
    default_trigger=False,
    no_verdict="supply an AblationRunner to test causally",
    no_restore_verdict="supply a restoration runner",
)
OURS = Policy(
    option="",  # selected by leaving UPSTREAM out; it refuses nothing
    embedder=None,
    ranking=None,
    afp_options=True,
    afp_fields=True,
    afp_flags=True,
    import_paths=True,
    default_trigger=True,
    no_verdict=NO_VERDICT,
    no_restore_verdict=NO_RESTORE_VERDICT,
)


def policy_for(upstream: bool) -> Policy:
    return UPSTREAM if upstream else OURS
