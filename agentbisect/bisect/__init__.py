"""Context bisect: the contextual-bug localizer (``afp bisect``), as bisect.md specifies.

``localize(loaded_or_artifacts, at_step=...)`` returns a ``ContextBugReport``. Modules, each
implementing one section of the spec: ``artifacts`` (§1), ``slice`` (§3), ``weigh`` (§4),
``texts`` (§4.3), ``embed``/``influence`` (§5), ``classify`` (§6.1), ``fold`` (§6.2), ``paths``
(§6.3-6.4), ``suspects`` (§6.5-6.7), ``ablation`` (§6.8-6.9), ``flags`` (§7, §9.1 stats),
``causal`` (§8), ``report`` (§9.1), ``render_text`` (§9.3).
"""

from agentbisect.bisect.artifacts import Artifacts, artifacts_from_loaded, control_deps_from_json
from agentbisect.bisect.causal import MissingContext, RerunOptions, bisect_culprits
from agentbisect.bisect.localize import DEFAULTS, TriggerError, localize
from agentbisect.bisect.report import ContextBugReport, report_json

__all__ = [
    "DEFAULTS",
    "Artifacts",
    "ContextBugReport",
    "MissingContext",
    "RerunOptions",
    "TriggerError",
    "artifacts_from_loaded",
    "bisect_culprits",
    "control_deps_from_json",
    "localize",
    "report_json",
]
