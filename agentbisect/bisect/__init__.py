"""Context bisect: the contextual-bug localizer (``afp bisect``), as bisect.md specifies.

``localize(run, at_step=...)`` returns a ``ContextBugReport``. Modules, each implementing one
section of the spec: ``slice`` (§3), ``weigh`` (§4), ``texts`` (§4.3), ``embed``/``influence``
(§5), ``classify`` (§6.1), ``paths`` (§6.3-6.4), ``suspects`` (§6.5-6.7), ``ablation``
(§6.8-6.9), ``flags`` (§7, §9.1 stats), ``causal`` (§8), ``report`` (§9.1). afp's own
extension: ``surrogate`` (attribution over random ablation masks, issue 13) fitted by ``lasso``. What the localizer
reads of a recording (§1) is on ``agentbisect.model.run.Run``; the commit-log fold (§6.2) is
``agentbisect.model.commitlog``; the §9.3 text rendering is ``agentbisect.render.text``.
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
