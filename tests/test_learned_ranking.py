"""Issue 29: the ranking corpus is what it claims (size, domains, splits, shapes, culprit kinds), its
generated traces name the planted source as the importers do, ``--ranking learned`` orders by the
packaged model exactly as the benchmark computes it, and the fit finds a signal that decides."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "ranking"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import ranking_scenarios  # noqa: E402
from ranking_cases import is_planted, measure  # noqa: E402

from agentbisect.bisect.embed.choose import resolve_embedder  # noqa: E402
from agentbisect.bisect.evidence.features import FEATURES, PRIOR, rows  # noqa: E402
from agentbisect.bisect.evidence.learned import model, probabilities  # noqa: E402
from agentbisect.bisect.pipeline.localize import localize  # noqa: E402
from agentbisect.importers import load  # noqa: E402
from agentbisect.model.run import Run  # noqa: E402
from tests.conftest import cli  # noqa: E402

SAMPLE = ROOT / "fixtures" / "ranking"
TRUTHS = sorted(SAMPLE.glob("*.truth.json"))
CASES = [
    (t, fmt)
    for t in (json.loads(p.read_text("utf-8")) for p in TRUTHS)
    for fmt in ("genai", "openinference", "transcript")
]


def test_corpus_is_big_varied_and_split_by_domain() -> None:
    every = ranking_scenarios.every()
    assert len(every) >= 300
    assert len({s.domain for s in every}) >= 40
    assert len({s.id for s in every}) == len(every)
    splits = json.loads((ROOT / "benchmarks" / "ranking" / "splits.json").read_text("utf-8"))
    named = [d for k in ("train", "dev", "test") for d in splits[k]]
    assert len(named) == len(set(named)), "a domain in two splits"
    assert {s.domain for s in every} == set(named)
    for s in every:
        assert s.domain in splits[s.split]
    assert set(Counter(s.shape for s in every)) == set(ranking_scenarios.SHAPES)
    kinds = Counter(s.culprit_kind for s in every)
    assert set(kinds) == set(ranking_scenarios.CULPRITS)
    assert min(kinds.values()) >= len(every) // 5  # every kind well represented


def test_every_answer_repeats_a_figure_only_the_planted_source_states_for_its_tier() -> None:
    for s in ranking_scenarios.every():
        figures = {w.strip(".,()") for w in s.answer.split() if w.strip(".,()").isdigit()}
        assert figures, s.id
        assert figures & {w.strip(".,()\"'") for w in s.planted_text.split()}, s.id


@pytest.mark.parametrize(
    ("truth", "fmt"), CASES, ids=lambda v: v if isinstance(v, str) else v["scenario"]
)
def test_sample_planted_source_is_found_where_the_truth_says(
    truth: dict[str, Any], fmt: str
) -> None:
    case = truth["formats"][fmt]
    run = Run(load(str(SAMPLE / case["file"])))
    assert run.import_meta is not None
    step = run.import_meta.llmCallIds[-1]
    suspects = localize(run, at_step=step, embedder="mock", max_suspects=10**6).suspects
    hits = [s for s in suspects if is_planted(s, case["planted"], run.import_meta)]
    assert len(hits) == 1
    want = {
        "tool": "tool-result",
        "document": "document",
        "system": "system-prompt",
        "llm": "llm-output",
    }
    if fmt == "transcript" and truth["culpritKind"] == "document":
        want["document"] = "system-prompt"  # a transcript has no retrieval: a system paragraph
    assert hits[0].sourceKind == want[truth["culpritKind"]]


@pytest.mark.parametrize(
    ("truth", "fmt"), CASES[::3], ids=lambda v: v if isinstance(v, str) else v["scenario"]
)
def test_learned_order_is_the_models_order(truth: dict[str, Any], fmt: str) -> None:
    """What the benchmark scores (``probabilities`` on the measured features) is what afp does."""
    case = truth["formats"][fmt]
    emb = resolve_embedder("mock", use_cache=False).embedder
    m = measure(SAMPLE / case["file"], case["planted"], emb)
    p = probabilities(
        m["signals"], m["kinds"], m["positions"], m["texts"], m["answer"], m["question"]
    )
    expected = [m["texts"][i] for i in sorted(range(len(p)), key=lambda i: -p[i])]
    run = Run(load(str(SAMPLE / case["file"])))
    assert run.import_meta is not None
    rep = localize(
        run,
        at_step=run.import_meta.llmCallIds[-1],
        embedder=emb,
        ranking="learned",
        max_suspects=10**6,
    )
    backed = [s for s in rep.suspects if s.evidence]
    assert [s.evidence.text for s in backed] == [t[:500] for t in expected]  # type: ignore[union-attr]
    scores = [s.evidence.score for s in backed]  # type: ignore[union-attr]
    assert scores == sorted(scores, reverse=True)
    assert sum(scores) == pytest.approx(1.0)  # the model's softmax over the content-backed
    assert all(not s.evidence for s in rep.suspects[len(backed) :])  # structure-only after


def test_cli_learned_ranking_reports_its_rule_and_evidence_first_stays_selectable() -> None:
    f = str(SAMPLE / "bank-5.genai.otlp.json")
    learned = json.loads(
        cli(
            "bisect", f, "--at-llm", "-1", "--ranking", "learned", "--embedder", "mock", "--json"
        ).stdout
    )
    assert learned["ranking"] == "learned"
    assert learned["evidenceScoring"]["combine"] == "conditional-logit"
    assert set(learned["evidenceScoring"]["weights"]) == {
        "semantic",
        "terms",
        "phrases",
        "claims",
        "focus",
        "claimShape",
    }
    today = json.loads(
        cli(
            "bisect",
            f,
            "--at-llm",
            "-1",
            "--ranking",
            "evidence-first",
            "--embedder",
            "mock",
            "--json",
        ).stdout
    )
    assert today["ranking"] == "evidence-first"
    assert today["evidenceScoring"]["combine"] == "weighted-mean"
    default = json.loads(cli("bisect", f, "--at-llm", "-1", "--embedder", "mock", "--json").stdout)
    assert default["ranking"] == "evidence-first"  # dev results did not justify a new default
    bad = cli("bisect", f, "--at-llm", "-1", "--ranking", "learned", "--upstream")
    assert bad.exit_code == 2


def test_packaged_model_fits_the_features_and_is_finite() -> None:
    m = model()
    assert tuple(m.features) == FEATURES
    assert len(m.weights) == len(m.mean) == len(m.scale) == len(FEATURES)
    assert all(abs(w) < 100 for w in m.weights) and all(sd > 0 for sd in m.scale)
    assert not any(f.startswith("domain") for f in m.features)


def test_packaged_model_is_what_the_fit_gives_on_its_committed_inputs() -> None:
    """``fit_ranking.py`` writes the measured cases it fits and chooses on (train, main, dev,
    select) beside the model; refitting from them — features, standardization, every candidate,
    the choice on dev and select — must give the packaged file byte for byte (``--check`` without ``--from-inputs`` also
    holds the inputs to the corpus, where the corpus is generated)."""
    pytest.importorskip("numpy")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS",)}
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fit_ranking.py"), "--from-inputs", "--check"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "packaged model match" in done.stdout


def test_the_prior_is_todays_evidence_score_and_an_infinite_penalty_keeps_only_it() -> None:
    """The unpenalized feature is the score evidence-first orders by, and λ = ∞ leaves the model
    that feature alone — so the fit's strongest shrinkage is exactly today's ranking."""
    np = pytest.importorskip("numpy")
    import fit_ranking

    case = json.loads(TRUTHS[0].read_text("utf-8"))["formats"]["genai"]
    emb = resolve_embedder("mock", use_cache=False).embedder
    m = measure(SAMPLE / case["file"], case["planted"], emb)
    k = FEATURES.index(PRIOR)
    feature = [
        r[k]
        for r in rows(
            m["signals"], m["kinds"], m["positions"], m["texts"], m["answer"], m["question"]
        )
    ]
    run = Run(load(str(SAMPLE / case["file"])))
    assert run.import_meta is not None
    rep = localize(
        run,
        at_step=run.import_meta.llmCallIds[-1],
        embedder=emb,
        ranking="evidence-first",
        max_suspects=10**6,
    )
    today = [s.evidence.score for s in rep.suspects if s.evidence]  # type: ignore[union-attr]
    assert len(set(today)) > 2
    assert sorted(feature, reverse=True) == today
    rng = np.random.default_rng(29)
    data = []
    for _ in range(30):
        x = rng.normal(size=(5, len(FEATURES)))
        y = int(rng.integers(5))
        x[y, k] += 2.0
        x[y, 3] += 2.0  # another feature that decides as well: the penalty must hold it at 0
        data.append((x, y))
    w = fit_ranking.fit(data, math.inf, free=(k,))
    assert w[k] > 0 and not np.delete(w, k).any()
    assert fit_ranking.fit(data, 1.0, free=(k,))[3] > 0.5  # a finite penalty lets it in


def test_a_sparse_fit_moves_only_its_cues_and_the_packaged_model_is_a_declared_candidate() -> None:
    """The sparse family fits the evidence score plus a few declared cues: the features outside
    ``active`` keep weight 0 even where they decide. The packaged model is one of the fourth
    round's 293 declared candidates: a sparse one moves only the prior and its chosen cues; a
    shrink or full one may move every feature (none of them names a domain, tool or word)."""
    np = pytest.importorskip("numpy")
    import fit_ranking

    k = FEATURES.index(PRIOR)
    cue = FEATURES.index("echo")
    rng = np.random.default_rng(29)
    data = []
    for _ in range(30):
        x = rng.normal(size=(5, len(FEATURES)))
        y = int(rng.integers(5))
        x[y, k] += 1.0
        x[y, cue] += 2.0
        x[y, 3] += 2.0  # decides too, but is not a candidate: it must stay 0
        data.append((x, y))
    w = fit_ranking.fit(data, 1.0, free=(k,), active=(k, cue))
    assert w[k] > 0 and w[cue] > 0.5
    assert not np.delete(w, [k, cue]).any()
    m = model()
    moved = {f for f, v in zip(m.features, m.weights, strict=True) if v}
    assert PRIOR in moved
    assert len(fit_ranking.subsets()) == 25
    declared = fit_ranking.candidates()
    assert len(declared) == 293 == m.about["candidates"]
    family = m.about["chosenFamily"]
    if family in ("sparse", "evidence-alone"):
        assert moved - {PRIOR} == set(m.about["chosenCues"]) <= set(fit_ranking.CUES)
        assert len(m.about["chosenCues"]) <= 3
    else:
        assert m.about["chosenCues"] == [] and moved <= set(FEATURES)
    if family != "evidence-alone":
        assert (family, tuple(m.about["chosenCues"]), m.about["penalty"]) in declared


def test_call_share_counts_the_lines_that_are_tool_requests() -> None:
    from agentbisect.bisect.evidence.features import call_share

    assert call_share('get_terms({"plan":"gold"})') == 1.0
    assert call_share('Checking your record.\nget_record({"id": "A-1"})') == 0.5
    assert call_share("The notice period is 2 months (see clause 4).") == 0.0
    assert call_share("") == 0.0


def test_fit_finds_the_feature_that_decides() -> None:
    """A toy corpus where one feature marks the source: the fit weights it up and ranks it first."""
    np = pytest.importorskip("numpy")
    import fit_ranking

    rng = np.random.default_rng(29)
    data = []
    for _ in range(40):
        x = rng.normal(size=(6, len(FEATURES)))
        y = int(rng.integers(6))
        x[:, 3] -= 1.0
        x[y, 3] += 2.5
        data.append((x, y))
    w = fit_ranking.fit(data, 1.0)
    assert int(np.argmax(w)) == 3
    assert sum(1 for r in fit_ranking.ranks(data, w) if r == 1) >= 36
