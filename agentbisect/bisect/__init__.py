"""Context bisect: the contextual-bug localizer (``afp bisect``), as bisect.md specifies.

``localize(run, at_step=...)`` returns a ``ContextBugReport``: ``pipeline/`` slices, weighs and
ranks (§3-§7), ``evidence/`` judges what each suspect said, ``embed/`` holds the embedders (§5),
``causal/`` the reruns (§8) and afp's surrogate attribution over random ablation masks, and
``api.bisect_run`` everything ``afp bisect`` does around them.
"""

from typing import TYPE_CHECKING, Any

from agentbisect.bisect.pipeline.localize import DEFAULTS, TriggerError, localize
from agentbisect.model.steps import control_deps_from_json
from agentbisect.results.report import ContextBugReport, report_json

if TYPE_CHECKING:
    from agentbisect.bisect.causal.probes import MissingContext, RerunOptions, bisect_culprits

# The causal tier's names are resolved on first use (PEP 562): a correlational bisect, the
# CLI's everyday case, never imports it.
_CAUSAL = frozenset({"MissingContext", "RerunOptions", "bisect_culprits"})


def __getattr__(name: str) -> Any:
    if name in _CAUSAL:
        from agentbisect.bisect.causal import probes as causal

        return getattr(causal, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULTS",
    "ContextBugReport",
    "MissingContext",
    "RerunOptions",
    "TriggerError",
    "bisect_culprits",
    "control_deps_from_json",
    "localize",
    "report_json",
]
