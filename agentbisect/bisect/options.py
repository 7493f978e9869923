"""The defaults of bisect's options, declared once: the library (``api.BisectOptions``,
``pipeline.localize``, the causal tier) and ``afp bisect``'s option table read them from here.

A module of its own, importing nothing heavy, so the command line can read the defaults without
loading the library.
"""

from __future__ import annotations

from msgspec import Struct

# The choices of the options that name a strategy, in the order help lists them; the library
# checks its arguments against these and ``afp bisect``'s table builds its choices from them.
RANKINGS = ("evidence-first", "upstream")
SCORERS = ("semantic-alignment", "lexical-overlap")
ATTRIBUTION_SCORES = ("flip", "similarity")


class Defaults(Struct, frozen=True):
    max_depth: int = 12  # slice budget: hops back from the trigger
    max_nodes: int = 80  # slice budget: steps in the backward slice
    max_suspects: int = 12
    max_text_chars: int = 2000  # text of a step the scorers read
    scorer: str = "semantic-alignment"
    samples: int = 3  # seeded reruns per probe
    comparator: str = "similarity"
    flip_threshold: float = 0.8  # similarity below this to the original answer: flipped
    max_ablations: int = 5
    jobs: int = 1
    rerun_timeout: float = 300.0  # seconds
    # 64 masks: see bisect/causal/surrogate.py
    masks: int = 64
    keep_prob: float = 0.5
    mask_seed: int = 0
    attribution_score: str = "flip"


DEFAULTS = Defaults()
