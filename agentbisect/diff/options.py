"""The options of ``afp diff``'s analysis (defaults equal the CLI's)."""

from __future__ import annotations

from msgspec import Struct

from agentbisect.bisect.options import DEFAULTS


class DiffOptions(Struct):
    """The options of ``diff_runs``: the embedder of the scores and the comparator, the
    comparator's threshold, and the replay endpoint of the causal check."""

    embedder: str | None = None  # mock | wordllama | cmd:COMMAND; None: the default
    no_cache: bool = False
    flip_threshold: float = DEFAULTS.flip_threshold
    replay: str | None = None  # base URL: restore each top difference and ask again
    replay_model: str | None = None
    replay_key_env: str | None = None
    replay_timeout: float = DEFAULTS.replay_timeout
