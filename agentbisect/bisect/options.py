"""Bisect's options, declared once: their choices, their defaults and their rows. The library
(``api.BisectOptions``, ``pipeline.localize``, the causal tier) reads the defaults and names an
option in a message by its row (``UPSTREAM.flag``); ``afp bisect``'s table lists the rows.

The options the reports and overviews also name (the trigger, the right answer, ``RERUN``) are
rows of ``agentbisect.core.options``, which renderers may import and this package may not be
imported by.

A module of its own, importing nothing heavy, so the command line can read the rows without
loading the library.
"""

from __future__ import annotations

from enum import StrEnum

from msgspec import Struct

from agentbisect.core.options import RERUN, Opt

# The choices of the options that name a strategy, in the order help lists them; the library
# checks its arguments against these and ``afp bisect``'s table builds its choices from them.
RANKINGS = ("evidence-first", "learned", "upstream")
# the rankings that score each suspect's own text and put the content-backed suspects first
EVIDENCE_RANKINGS = ("evidence-first", "learned")
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
    replay_timeout: float = 60.0  # seconds per request (each retried a few times)
    replay_budget_requests: int = 200  # requests sent (cache hits are free)


DEFAULTS = Defaults()


class Attribution(StrEnum):
    surrogate = "surrogate"


def _choices(name: str, values: tuple[str, ...]) -> type[StrEnum]:
    """The choice type of a strategy option, from the one list of its values above."""
    return StrEnum(name, [(v.replace("-", "_"), v) for v in values])  # type: ignore[return-value]


AttributionScore = _choices("AttributionScore", ATTRIBUTION_SCORES)
Scorer = _choices("Scorer", SCORERS)
Ranking = _choices("Ranking", RANKINGS)

# The rows; ``afp bisect``'s table (cli/bisect.py) puts them in the order its help shows.
UPSTREAM = Opt(
    "upstream",
    "--upstream",
    kind=bool,
    help="Exactly the upstream library's report: mock embedder, upstream ranking, its "
    "honesty flags only, no afp fields.",
)
FAIL_ON = Opt(
    "fail_on",
    "--fail-on",
    default=[],
    metavar="FLAG",
    multiple=True,
    help="Exit 1 when this honesty flag (or 'any') is raised. Repeatable.",
)
CONTROL_DEPS = Opt(
    "control_deps",
    "--control-deps",
    metavar="FILE",
    help="JSON map runtimeStageId -> {deciderId, label?}: the decisions that routed each step.",
)

MAX_DEPTH = Opt(
    "max_depth",
    "--max-depth",
    kind=int,
    default=DEFAULTS.max_depth,
    min=0,
    metavar="N",
    help="Slice budget: follow causes at most N hops back from the trigger.",
)

MAX_NODES = Opt(
    "max_nodes",
    "--max-nodes",
    kind=int,
    default=DEFAULTS.max_nodes,
    min=1,
    metavar="N",
    help="Slice budget: at most N steps in the backward slice.",
)

MAX_SUSPECTS = Opt(
    "max_suspects",
    "--max-suspects",
    kind=int,
    default=DEFAULTS.max_suspects,
    min=0,
    metavar="N",
    help="Report at most N suspects (content-backed ones are kept before structure-only).",
)

EMBEDDER = Opt(
    "embedder",
    "--embedder",
    metavar="mock|wordllama|cmd:COMMAND",
    help="Text embedder for content scores (cmd: JSON texts on stdin, one vector each on "
    "stdout). Default: wordllama when the embed extra is installed, else mock.",
)

RANKING = Opt(
    "ranking",
    "--ranking",
    kind=Ranking,
    help="evidence-first (default: suspects whose own text backs the answer first, by the "
    "evidence score's weighted mean), learned (the same, ordered by a model fitted on "
    "synthetic traces: docs/ranking.md) or upstream (path × semantic score).",
)

NO_CACHE = Opt(
    "no_cache",
    "--no-cache",
    kind=bool,
    help="Neither read nor write the on-disk caches (vectors, replay responses).",
)

SCORER = Opt(
    "scorer",
    "--scorer",
    kind=Scorer,
    default=Scorer(DEFAULTS.scorer),
    help="How suspects' content is scored.",
)

SAMPLES = Opt(
    "samples",
    "--samples",
    kind=int,
    default=DEFAULTS.samples,
    min=2,
    metavar="N",
    help="Seeded reruns per probe.",
)

ORIGINAL_OUTPUT = Opt(
    "original_output",
    "--original-output",
    metavar="TEXT|@FILE",
    help="The wrong answer to compare reruns with; default: the run's final answer.",
)

COMPARATOR = Opt(
    "comparator",
    "--comparator",
    default=DEFAULTS.comparator,
    metavar="similarity|contains:WORD|regex:PATTERN",
    help="When a rerun's answer counts as changed.",
)

FLIP_THRESHOLD = Opt(
    "flip_threshold",
    "--flip-threshold",
    kind=float,
    default=DEFAULTS.flip_threshold,
    metavar="R",
    help="similarity comparator: an answer less similar than R to the original flipped.",
)

MAX_ABLATIONS = Opt(
    "max_ablations",
    "--max-ablations",
    kind=int,
    default=DEFAULTS.max_ablations,
    min=0,
    metavar="N",
    help="Rerun-test at most the top N suspects.",
)

CULPRITS = Opt(
    "culprits",
    "--culprits",
    kind=bool,
    help="Also search for the set of suspects that together flip it.",
)

MISSING_CONTEXT = Opt(
    "missing_context",
    "--missing-context",
    metavar="FILE",
    help='JSON {"available": [{id, content?}], "sent": [{id}]}: test what was never sent.',
)

JOBS = Opt(
    "jobs",
    "--jobs",
    kind=int,
    default=DEFAULTS.jobs,
    min=1,
    metavar="N",
    help="Parallel reruns per probe.",
)

RERUN_TIMEOUT = Opt(
    "rerun_timeout",
    "--rerun-timeout",
    kind=float,
    default=DEFAULTS.rerun_timeout,
    min=0.001,
    metavar="SECONDS",
    help="Kill a rerun (and its process group) after SECONDS.",
)

ATTRIBUTION = Opt(
    "attribution",
    "--attribution",
    kind=Attribution,
    help="surrogate: rerun once per random ablation mask and fit a sparse linear model; "
    f"a weight per source, sets that act together (needs {RERUN.flag}; not with "
    f"{UPSTREAM.flag}).",
)

MASKS = Opt(
    "masks",
    "--masks",
    kind=int,
    default=DEFAULTS.masks,
    min=10,
    metavar="N",
    help="Ablation masks (= reruns) for the surrogate.",
)

KEEP_PROB = Opt(
    "keep_prob",
    "--keep-prob",
    kind=float,
    default=DEFAULTS.keep_prob,
    metavar="P",
    help="Chance each source is kept in a mask (0 < P < 1).",
)

MASK_SEED = Opt(
    "mask_seed",
    "--mask-seed",
    kind=int,
    default=DEFAULTS.mask_seed,
    metavar="SEED",
    help="Seed of the mask draw.",
)

ATTRIBUTION_SCORE = Opt(
    "attribution_score",
    "--attribution-score",
    kind=AttributionScore,
    default=AttributionScore(DEFAULTS.attribution_score),
    help="What the surrogate fits: flip (the comparator, 0/1) or similarity (1 − cosine).",
)

REPLAY = Opt(
    "replay",
    "--replay",
    metavar="URL",
    help="Causal mode without your agent: rebuild the trigger LLM call's request from the run and "
    "send it once per probe and seed, with the probe's sources removed, to the OpenAI-compatible "
    f"URL/chat/completions (instead of {RERUN.flag}).",
)

REPLAY_MODEL = Opt(
    "replay_model",
    "--replay-model",
    metavar="NAME",
    help="Replay with this model (default: the one the run recorded).",
)

REPLAY_KEY_ENV = Opt(
    "replay_key_env",
    "--replay-key-env",
    metavar="NAME",
    help="Send the API key held by environment variable NAME (default: OPENAI_API_KEY, sent "
    "only to https or loopback URLs).",
)

REPLAY_TIMEOUT = Opt(
    "replay_timeout",
    "--replay-timeout",
    kind=float,
    default=DEFAULTS.replay_timeout,
    min=0.001,
    metavar="SECONDS",
    help="Give up on one replay request after SECONDS (timeouts are retried a few times).",
)

REPLAY_BUDGET_REQUESTS = Opt(
    "replay_budget_requests",
    "--replay-budget-requests",
    kind=int,
    default=DEFAULTS.replay_budget_requests,
    min=0,
    metavar="N",
    help="Send at most N replay requests (cache hits are free); suspects left untested are "
    "inconclusive.",
)

REPLAY_BUDGET_TOKENS = Opt(
    "replay_budget_tokens",
    "--replay-budget-tokens",
    kind=int,
    min=1,
    metavar="N",
    help="Stop replaying before the requests' tokens would pass N.",
)
