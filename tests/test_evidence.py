"""The evidence scorer and evidence-first ranking: signals, what counts as a suspect's text,
contrastive scoring with an expected answer, and the content-before-structure order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.bisect.embed.vectors import MockEmbedder, Vector
from agentbisect.bisect.evidence.lexical import profile
from agentbisect.bisect.evidence.rank import evidence_first
from agentbisect.bisect.evidence.scorer import SIGNALS, WEIGHTS, EvidenceItem, score_evidence
from agentbisect.bisect.evidence.text import own_text
from agentbisect.bisect.pipeline.localize import localize
from agentbisect.importers import load
from agentbisect.model.run import Run
from agentbisect.results.bisect import preview

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "planted" / "cases"


def mock_many(texts: list[str]) -> list[Vector]:
    m = MockEmbedder()
    return [m.embed(t) for t in texts]


def by_id(scores: list[Any]) -> dict[str, Any]:
    return {s.id: s for s in scores}


ITEMS = [
    EvidenceItem("policy", "Returns are accepted within 90 days for small appliances."),
    EvidenceItem("order", "Order 88213: espresso machine, delivered 4 March, paid by card."),
    EvidenceItem("warranty", "The espresso machine has a two-year warranty for pump failures."),
    EvidenceItem("tone", "Keep answers short and friendly."),
]
ANSWER = "Yes, appliances can be returned within 90 days, so the machine can still go back."


def test_every_signal_is_reported_in_unit_range() -> None:
    out = score_evidence(ITEMS, ANSWER, mock_many)
    assert [s.id for s in out] == [i.id for i in ITEMS]  # input order
    for s in out:
        assert list(s.signals) == list(SIGNALS)
        assert all(0.0 <= v <= 1.0 for v in s.signals.values())
        assert s.score == sum(WEIGHTS[k] * v for k, v in s.signals.items()) / sum(WEIGHTS.values())
    best = max(out, key=lambda s: s.score)
    assert best.id == "policy"
    assert "90" in best.terms_shared
    assert by_id(out)["tone"].signals["terms"] == 0.0


def test_numbers_words_and_separators_normalise() -> None:
    p = profile("It costs $1,188.00 for sixteen weeks; SH-240 is ±0.05 mm")
    assert {"1188", "16", "sh-240", "240", "0.05", "week"} <= set(p.terms)
    assert p.terms["1188"] == 2.0  # numbers weigh double


def test_question_terms_are_not_evidence() -> None:
    items = [
        EvidenceItem("question", "Can I return the espresso machine I bought?"),
        EvidenceItem("policy", "Appliances: returns within 90 days."),
    ]
    answer = "You can return the espresso machine: appliances go back within 90 days."
    out = by_id(score_evidence(items, answer, None, question=items[0].text))
    assert out["question"].signals["terms"] == 0.0
    assert out["policy"].score > out["question"].score
    # without the question, the echo counts
    plain = by_id(score_evidence(items, answer, None))
    assert plain["question"].signals["terms"] > 0.0


def test_contrastive_scoring_sinks_sources_that_support_both_answers() -> None:
    items = [
        EvidenceItem("booking", "Booking QX7: Lisbon, 14 June, fare Economy Light."),
        EvidenceItem("rules", "Economy Light includes 2 checked bags."),
    ]
    wrong = "Your Economy Light fare to Lisbon on 14 June includes 2 checked bags."
    right = "Your Economy Light fare to Lisbon on 14 June includes no checked bag."
    plain = by_id(score_evidence(items, wrong, mock_many))
    contra = by_id(score_evidence(items, wrong, mock_many, expected=right))
    assert contra["booking"].signals["terms"] == 0.0  # everything it says, both answers say
    assert contra["rules"].score > contra["booking"].score
    assert contra["booking"].score < plain["booking"].score


def test_claim_shape_is_the_share_of_rule_shaped_sentences() -> None:
    out = by_id(score_evidence(ITEMS, ANSWER, None))
    assert out["tone"].signals["claimShape"] == 0.0  # an instruction without a modal word
    assert out["order"].signals["claimShape"] == 0.0  # a data record
    rules = [
        EvidenceItem("r", "Members can cancel online. Fees apply. Refunds must be requested."),
        EvidenceItem("d", "Member 30417, contract started 5 January."),
    ]
    got = by_id(score_evidence(rules, "You can cancel online.", None))
    assert got["r"].signals["claimShape"] == 2 / 3
    assert got["d"].signals["claimShape"] == 0.0


def test_claim_shape_counts_statements_not_questions_or_headers() -> None:
    # found by the trace corpus: a system-prompt header ("Context you may use:") and the user's
    # question ("Can we …?") took the prior and outranked planted sources
    items = [
        EvidenceItem("header", "Context you may use:"),
        EvidenceItem("question", "Can we deploy the payments service tomorrow?"),
        EvidenceItem("rule", "Can I deploy? Deploys may go out when no freeze is scheduled."),
        EvidenceItem("record", "No freeze windows scheduled; next freeze begins 20 December."),
    ]
    answer = "Yes, there is no deploy freeze until 20 December, so tomorrow is open."
    out = by_id(score_evidence(items, answer, None, question=items[1].text))
    assert out["header"].signals["claimShape"] == 0.0  # a header introduces, states nothing
    assert out["question"].signals["claimShape"] == 0.0  # a question asks
    assert out["rule"].signals["claimShape"] == 1.0  # its one statement has "may"
    assert out["record"].score > out["header"].score


def test_claims_credit_what_a_clause_adds_to_the_question_not_its_echo() -> None:
    # the booking repeats the question's own details; the rule states the check-in time the
    # answer gives: with the question known, the answer's claim goes to the rule
    question = "What time can I check in at Hotel Kamo on 18 April?"
    items = [
        EvidenceItem("question", question),
        EvidenceItem("booking", "Booking 55-KY: Hotel Kamo, 18 April, twin room."),
        EvidenceItem("rule", "Hotel Kamo: check-in from 11:00."),
    ]
    answer = "You can check in at Hotel Kamo from 11 on 18 April."
    with_q = by_id(score_evidence(items, answer, None, question=question))
    assert with_q["rule"].signals["claims"] == 1.0
    assert with_q["booking"].signals["claims"] == 0.0
    # not knowing the question, the echo of it wins the claim
    without = by_id(score_evidence(items, answer, None))
    assert without["rule"].signals["claims"] == 0.0
    assert without["question"].signals["claims"] > 0.0


def test_no_embedder_means_no_semantic_signal() -> None:
    out = score_evidence(ITEMS, ANSWER, None)
    assert all(s.signals["semantic"] == 0.0 for s in out)
    assert score_evidence([], ANSWER, None) == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(max_size=80), min_size=1, max_size=5),
    st.text(max_size=80),
    st.one_of(st.none(), st.text(max_size=40)),
)
def test_scores_are_bounded_for_any_text(texts: list[str], answer: str, q: str | None) -> None:
    items = [EvidenceItem(str(i), t) for i, t in enumerate(texts)]
    for s in score_evidence(items, answer, mock_many, question=q):
        assert all(0.0 <= v <= 1.0 for v in s.signals.values())
        assert 0.0 <= s.score <= 1.0


def _case(name: str) -> tuple[Any, Any, dict[str, Any]]:
    truth = json.loads((CASES / f"{name}.truth.json").read_text("utf-8"))
    run = Run(load(str(CASES / f"{name}.recording.json")))
    return run, run.commit_log, truth


def test_own_text_is_what_the_step_wrote_not_the_folded_state() -> None:
    _, log, truth = _case("it-vpn-error")
    text = own_text(log, truth["planted"]["source"])  # an earlier LLM call
    assert text == truth["plantedText"]  # its output, once (content and history repeat it)
    final = own_text(log, truth["atStep"])
    assert final == truth["answer"]  # the history it appended holds only its own message
    assert own_text(log, "no-such-step") is None
    assert preview("one two three", 2) == "one two …"


def test_evidence_first_puts_content_before_structure() -> None:
    loaded, log, truth = _case("retail-return-window")
    rep = localize(loaded, at_step=truth["atStep"], max_suspects=100, upstream=True)
    order, ev = evidence_first(rep.suspects, log, truth["atStep"], mock_many)
    assert sorted(id(s) for s in order) == sorted(id(s) for s in rep.suspects)
    backed = [e.score is not None for e in ev]
    assert backed == sorted(backed, reverse=True)  # no content-backed suspect after a bare one
    scores = [e.score.score for e in ev if e.score is not None]
    assert scores == sorted(scores, reverse=True)
    top = order[0]
    assert top.source == truth["planted"]["source"]
    assert getattr(top.detail, "injectionId", None) == truth["planted"]["id"]
    # the upstream order put a path-only suspect first
    assert rep.suspects[0].hasContentEvidence is False


def test_evidence_first_without_answer_text_keeps_upstream_order() -> None:
    loaded, log, _ = _case("retail-return-window")
    rep = localize(loaded, at_step="seed#0", upstream=True)
    order, ev = evidence_first(rep.suspects, log, "no-such-step", mock_many)
    assert order == rep.suspects and all(e.score is None for e in ev)


def test_claim_shape_does_not_take_the_month_may_for_a_modal() -> None:
    # "15 May" is a date in a record, not permission: the month made data records look like rules
    items = [
        EvidenceItem("festival", "Aoi Matsuri takes place in Kyoto on 15 May."),
        EvidenceItem("launch", "The fleet moves to nginx 1.27 on May 12, 2026."),
        EvidenceItem("permit", "Guests may check in from 15:00."),
    ]
    out = by_id(score_evidence(items, "You can check in from 3 pm.", None))
    assert out["festival"].signals["claimShape"] == 0.0
    assert out["launch"].signals["claimShape"] == 0.0
    assert out["permit"].signals["claimShape"] == 1.0


def test_every_signal_module_is_registered_once_with_what_it_needs() -> None:
    # a signal is one module plus its registry line: a module left out of the registry would
    # never be scored, and texts it needs that no kind names would never be embedded
    import sys

    from agentbisect.bisect.evidence import signals
    from agentbisect.bisect.evidence.signals.context import TEXT_KINDS

    names = [s.name for s in signals.REGISTRY]
    assert tuple(names) == SIGNALS and len(set(names)) == len(names)
    modules = set()
    for s in signals.REGISTRY:
        mod = sys.modules[s.score.__module__]
        assert mod.__doc__ and mod.SIGNAL is s, s.name
        assert set(s.embeds) <= set(TEXT_KINDS) and 0 <= s.weight == WEIGHTS[s.name]
        modules.add(mod.__name__.rsplit(".", 1)[1])
    found = {p.stem for p in Path(signals.__file__).parent.glob("*.py")}
    assert found - {"__init__", "context"} == modules
