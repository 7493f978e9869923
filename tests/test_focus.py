"""The question's focus and the ``focus`` evidence signal: the focus finder on real questions of
the planted corpus, time/number normalisation, slot values, anchors by paraphrase, and scorer
cases the other signals get wrong (the record the answer restates beats the source that answers
the question)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agentbisect.bisect.embed import wordllama as wordllama_embed
from agentbisect.bisect.embed.choose import embed_many, resolve_embedder
from agentbisect.bisect.embed.vectors import Embedder, MockEmbedder, Vector
from agentbisect.bisect.evidence import focus as focus_module
from agentbisect.bisect.evidence.focus import content_words, question_focus, slot_values, time_keys
from agentbisect.bisect.evidence.lexical import STOP, Corpus, profile, terms
from agentbisect.bisect.evidence.rank import evidence_first
from agentbisect.bisect.evidence.scorer import SIGNALS, EvidenceItem, answer_texts, score_evidence
from agentbisect.bisect.evidence.signals.focus import focus_clauses
from agentbisect.bisect.pipeline.localize import localize
from agentbisect.importers import load
from agentbisect.model.run import Run

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "planted" / "cases"
# the five signals and plain mean the score had before ``focus``
BEFORE = ("semantic", "terms", "phrases", "claims", "claimShape")


needs_wordllama = pytest.mark.skipif(
    not wordllama_embed.wordllama_available(), reason="the embed extra is not installed"
)


def planted_case(scenario: str) -> tuple[Run, dict[str, Any], Embedder]:
    """A planted scenario's run, its truth file and the wordllama embedder."""
    truth = json.loads((CASES / f"{scenario}.truth.json").read_text("utf-8"))
    run = Run(load(str(CASES / f"{scenario}.recording.json")))
    return run, truth, resolve_embedder("wordllama", use_cache=False).embedder


def mock_many(texts: list[str]) -> list[Vector]:
    m = MockEmbedder()
    return [m.embed(t) for t in texts]


def keys(text: str) -> list[str]:
    return [t.key for t in terms(text)]


# ---------------------------------------------------------------- the focus finder


def test_which_x_asks_for_the_value_of_x() -> None:
    f = question_focus("Which platform does the 08:12 to Bristol leave from?", STOP)
    assert f.kind == "value" and f.nouns == ("platform",)
    # the predicate is the lowercase content; the name and the time are entity details
    assert "platform" in f.predicate and "leave" in f.predicate
    assert not {"bristol", "08", "12"} & set(f.predicate)


def test_what_time_asks_for_a_clock_time_and_how_many_for_a_count() -> None:
    f = question_focus("What time can I check in at the hotel in Kyoto?", STOP)
    assert (f.kind, f.target) == ("time", "clock")
    assert {"check", "hotel"} <= set(f.predicate) and "kyoto" not in f.predicate
    g = question_focus("How many checked bags are included on my flight to Lisbon?", STOP)
    assert g.kind == "number" and g.nouns == ("checked", "bags")
    assert question_focus("How long does the visa take?", STOP).target == "duration"
    assert question_focus("When does the pool open?", STOP).kind == "time"


def test_the_question_is_its_last_interrogative_sentence() -> None:
    f = question_focus("The concert was postponed — can I get my money back?", STOP)
    assert f.kind == "yesno"
    assert set(f.predicate) == {"get", "money", "back", "money back"}  # "my" splits the pair
    assert "concert" not in f.predicate  # the premise before the dash is not what is asked


def test_yes_no_and_why_questions() -> None:
    f = question_focus("Is my dog due for her rabies shot?", STOP)
    assert f.kind == "yesno" and "due" in f.predicate and f.nouns == ()
    assert question_focus("Why hasn't my bitcoin withdrawal arrived yet?", STOP).kind == "reason"
    assert question_focus("Tell me about the refund policy.", STOP).kind == "open"


@pytest.mark.parametrize(
    ("question", "subject", "kept"),
    [
        # be + subject + complement: the complement's word stays with the predicate
        ("Is the dog food I bought part of the recall?", ("dog", "food"), {"part", "recall"}),
        ("Is our nginx version affected by CVE-2026-1187?", ("nginx", "version"), {"affected"}),
        ("Is my dog due for her rabies shot?", ("dog",), {"due", "rabies shot"}),
        ("Is the science museum open on Monday?", ("museum", "science"), {"open"}),
        # any other auxiliary: subject + verb form, only the first word is surely the subject
        ("Will my domain renew automatically before it expires?", ("domain",), {"renew"}),
        ("Why hasn't my bitcoin withdrawal arrived yet?", ("bitcoin",), {"withdrawal"}),
    ],
)
def test_the_subject_is_left_out_of_the_predicate(
    question: str, subject: tuple[str, ...], kept: set[str]
) -> None:
    f = question_focus(question, STOP)
    assert f.subject == subject
    assert kept <= set(f.predicate)
    assert not any(set(u.split()) & set(subject) for u in f.predicate)


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        ("What is the rate limit for the search API on the free tier?", "rate limit"),  # asked
        ("My basement flooded after a pipe burst. Is that covered by my home policy?", "covered"),
        # the object of the verb is no subject: its words stay (a known limit)
        ("Can we deploy the payments service to production tomorrow?", "payments service"),
        ("Is it safe to hike Mount Kessel on Saturday?", "safe"),
    ],
)
def test_no_subject_without_an_article_or_possessive_after_the_auxiliary(
    question: str, kept: str
) -> None:
    f = question_focus(question, STOP)
    assert f.subject == ()
    assert kept in f.predicate


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        ("Can we deploy the payments service to production tomorrow?", {"deploy", "production"}),
        ("Is school open tomorrow despite the snow?", {"open", "snow"}),
        ("Is it warm enough to open my hives for an inspection today?", {"warm", "inspection"}),
        ("Can I visit Dad at 8 pm tonight and bring our dog?", {"visit", "bring"}),
    ],
)
def test_days_named_from_now_are_entity_details_not_predicate(
    question: str, kept: set[str]
) -> None:
    """today/tomorrow/tonight say when, like "on Saturday" (a name) or a date: what the
    question is about, not what it asks of it."""
    units = question_focus(question, STOP).predicate
    assert kept <= set(units)
    assert not any({"today", "tomorrow", "tonight", "yesterday"} & set(u.split()) for u in units)


def test_times_and_dates_normalise() -> None:
    eleven = {"t11:00"}
    assert time_keys("from 11 am") == eleven
    assert time_keys("check-in from 11:00") == eleven
    assert time_keys("from 11.00 a.m. sharp") == eleven
    assert time_keys("after 2 pm") == {"t14:00"}
    assert time_keys("the 08:15 draw") == time_keys("at 8:15") == {"t8:15"}
    assert time_keys("at noon") == {"t12:00"} and time_keys("12 am") == {"t0:00"}
    assert time_keys("on 18 April") == time_keys("on April 18th") == {"d18 apr"}
    assert time_keys("version 1.27.1, 412 tests") == set()


def test_slot_values_take_the_number_next_to_the_asked_noun() -> None:
    f = question_focus("Which platform does the 08:12 to Bristol leave from?", STOP)
    nouns = {k for n in f.nouns for k in keys(n)}
    # the scorer asks clause by clause ("Platform 11 — the 08:12 to Bristol …" is two)
    assert slot_values("Platform 11", f, keys("Platform 11"), nouns) == {"11"}
    rest = "the 08:12 to Bristol Temple Meads is running on time"
    assert slot_values(rest, f, keys(rest), nouns) == set()  # the train's time is no platform
    g = question_focus("How many checked bags are included on my flight to Lisbon?", STOP)
    nouns = {k for n in g.nouns for k in keys(n)}
    ans = "Your Economy Light fare on QX7T2L includes two checked bags, each up to 23 kg."
    got = slot_values(ans, g, keys(ans), nouns)
    assert "2" in got and "7" not in got  # the count, not the digits of a booking code
    h = question_focus("What time can I check in at the hotel in Kyoto?", STOP)
    ans = "You can check in at Hotel Kamo Riverside from 11 am on 18 April."
    assert slot_values(ans, h, keys(ans), set()) == {"t11:00"}  # the date is not a clock time
    yn = question_focus("Is my dog due for her rabies shot?", STOP)
    assert slot_values("she's due now", yn, keys("she's due now"), set()) == set()


def test_content_words_skip_stop_words_and_numbers() -> None:
    assert content_words("No fasting needed — you can eat before tomorrow's 8:15 draw.", STOP) == [
        "draw",
        "eat",
        "fasting",
        "needed",
        "tomorrow's",
    ]


# ---------------------------------------------------------------- clause focus and anchors


def test_a_verdict_clause_that_restates_the_predicate_is_the_focus() -> None:
    q = question_focus("Do I need to fast before my blood test tomorrow?", STOP)
    clauses = ["No fasting needed", "you can eat normally before tomorrow's 8:15 draw"]
    corpus = Corpus([profile(c) for c in clauses])
    verdict, detail = focus_clauses(clauses, q, {}, corpus)
    assert verdict.weight == 1.0  # fasting ~ fast, needed ~ need: all of it answers
    assert verdict.span == {"fast", "need"}
    # only "tomorrow" echoes the question, and it says when, not what is asked
    assert detail.weight == 0.0


def test_a_paraphrase_anchors_only_through_the_embedder() -> None:
    q = question_focus("Can I get my money back?", STOP)
    clauses = ["a refund isn't available"]
    corpus = Corpus([profile(c) for c in clauses])
    assert focus_clauses(clauses, q, {}, corpus)[0].weight == 0.0  # no shared stem
    near = {"refund": np.array([1.0, 0.0]), "money back": np.array([0.8, 0.6])}  # cosine 0.8
    (c,) = focus_clauses(clauses, q, near, corpus)
    assert c.weight > 0.0 and "refund" in c.span
    far = {"refund": np.array([1.0, 0.0]), "money back": np.array([0.4, 0.92])}  # cosine ~0.4
    assert focus_clauses(clauses, q, far, corpus)[0].weight == 0.0


def test_the_focus_words_are_embedded_in_the_same_batch() -> None:
    q = "Can I get my money back?"
    a = "Sorry, a refund isn't available."
    texts = answer_texts(a, None, q)
    assert {"refund", "available", "money back", "money"} <= set(texts)
    assert answer_texts(a, None, None) == [a, "Sorry, a refund isn't available"]  # no words


# ---------------------------------------------------------------- the signal in the scorer

HOTEL_Q = "What time can I check in at the hotel in Kyoto?"
HOTEL = [
    EvidenceItem(
        "record",
        "Confirmation 55-KY-0912: Hotel Kamo Riverside, 2 nights from 18 April, twin room.",
    ),
    EvidenceItem(
        "rule", "Hotel Kamo Riverside: check-in from 11:00, check-out by 10:00, front desk 24 h."
    ),
    EvidenceItem(
        "amenities",
        "Hotel Kamo Riverside offers a public bath, luggage storage and bicycle rental.",
    ),
    EvidenceItem("question", HOTEL_Q),
]
HOTEL_A = "You can check in at Hotel Kamo Riverside from 11 am on 18 April."


@pytest.mark.parametrize("embed", [None, mock_many], ids=["no-embedder", "mock"])
def test_the_source_of_the_asked_time_beats_the_booking_the_answer_restates(embed: object) -> None:
    def top(use: tuple[str, ...]) -> str:
        out = score_evidence(HOTEL, HOTEL_A, embed, question=HOTEL_Q, use=use)  # type: ignore[arg-type]
        return max(out, key=lambda s: s.score).id

    # the booking shares the hotel name and the date; the property sheet states the 11:00
    assert top(BEFORE) == "record"  # what the five signals alone say
    assert top(SIGNALS) == "rule"
    got = {s.id: s for s in score_evidence(HOTEL, HOTEL_A, embed, question=HOTEL_Q)}  # type: ignore[arg-type]
    assert got["record"].signals["focus"] == 0.0
    assert got["rule"].signals["focus"] > 0.5
    assert got["question"].signals["focus"] == 0.0  # the question asks; it is no candidate


PET_Q = "Is the dog food I bought part of the recall?"
PET = [
    EvidenceItem("order", "Order 40-1187: Meadow Dog Adult 12 kg, lot 5-2207, bought 2 weeks ago."),
    EvidenceItem("refunds", "Recalled products can be returned to any store for a full refund."),
    EvidenceItem(
        "notice", "Meadow Pet Foods recall: lots 5-2201 through 5-2210 of Adult 12 kg are affected."
    ),
    EvidenceItem("treats", "Sunny Paws treats recall, lots 3-110 and 3-111."),
    EvidenceItem("question", PET_Q),
]
PET_A = (
    "Yes — your lot 5-2207 falls within the recalled range for Meadow Dog Adult 12 kg. "
    "Return it to any store for a full refund."
)


def test_the_subjects_record_takes_no_focus_credit(monkeypatch: pytest.MonkeyPatch) -> None:
    def focus_of() -> dict[str, float]:
        out = score_evidence(PET, PET_A, None, question=PET_Q)
        return {s.id: s.signals["focus"] for s in out}

    got = focus_of()
    assert got["notice"] == 1.0 and got["order"] == 0.0  # "part of the recall" is asked
    # without the subject split, "dog" anchors the verdict clause and the order, which names
    # the dog food, takes the credit
    monkeypatch.setattr(focus_module, "question_subject", lambda low, stop: [])
    got = focus_of()
    assert got["order"] > 0.5 and got["notice"] == 0.0


def test_without_a_question_focus_is_claims() -> None:
    for s in score_evidence(HOTEL, HOTEL_A, mock_many):
        assert s.signals["focus"] == s.signals["claims"]


@needs_wordllama
@pytest.mark.parametrize("scenario", ["hotel-checkin", "train-platform", "clinic-appointment"])
def test_planted_culprits_the_focus_puts_first(scenario: str) -> None:
    """Real planted recordings: the default puts the planted source first; the five signals
    before ``focus`` put the record the answer restates first (rank 2)."""
    run, truth, emb = planted_case(scenario)
    step = truth["atStep"]
    top = localize(run, at_step=step, embedder=emb).suspects[0]
    planted = truth["planted"]
    assert (top.source, top.kind) == (planted["source"], planted["kind"])
    full = localize(run, at_step=step, embedder=emb, ranking="upstream", max_suspects=10**6)
    before, _ = evidence_first(
        full.suspects, run.commit_log, step, lambda ts: embed_many(emb, ts), use=BEFORE
    )
    assert (before[0].source, before[0].kind) != (planted["source"], planted["kind"])
    assert (before[1].source, before[1].kind) == (planted["source"], planted["kind"])


@needs_wordllama
def test_planted_culprit_first_only_with_the_subject_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """pet-food-recall: the recall notice (planted) is first; without the subject split the
    order record of "the dog food I bought" takes the focus credit and the notice is third."""
    run, truth, emb = planted_case("pet-food-recall")
    p = truth["planted"]
    planted = (p["source"], p["kind"], p["id"])

    def ranked() -> list[tuple[str, str, str]]:
        out = localize(run, at_step=truth["atStep"], embedder=emb).suspects
        # several injections share a source: the injection id tells them apart
        return [(s.source, s.kind, getattr(s.detail, "injectionId", None) or "") for s in out]

    assert ranked()[0] == planted
    monkeypatch.setattr(focus_module, "question_subject", lambda low, stop: [])
    assert ranked().index(planted) == 2


DEPLOY_Q = "Can we deploy the payments service to production tomorrow?"
DEPLOY = [
    EvidenceItem("ci", "payments-svc main@4be19c2: build passed, 412 tests green, canary healthy."),
    EvidenceItem(
        "calendar", "No freeze windows scheduled this month; next freeze begins 20 December."
    ),
    EvidenceItem(
        "policy", "Production deploys require a green canary and an approved change ticket."
    ),
    EvidenceItem("oncall", "This week's on-call for payments is Tomasz Wójcik."),
    EvidenceItem("question", DEPLOY_Q),
]
DEPLOY_A = (
    "Yes. CI is green on 4be19c2 and there is no deployment freeze until 20 December, so "
    "tomorrow is open — just make sure the change ticket is approved."
)


@needs_wordllama
def test_a_clause_that_only_repeats_when_carries_no_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clause "tomorrow is open" repeats when the question is about; no source states "tomorrow", so as
    a focus clause its credit went by meaning alone (to the on-call note). Without it the
    freeze calendar takes the focus and leads the CI record the answer also restates."""
    emb = resolve_embedder("wordllama", use_cache=False).embedder

    def scores() -> dict[str, tuple[float, float]]:
        out = score_evidence(DEPLOY, DEPLOY_A, lambda ts: embed_many(emb, ts), question=DEPLOY_Q)
        return {s.id: (s.score, s.signals["focus"]) for s in out}

    got = scores()
    assert got["calendar"][1] > 0.4 and got["ci"][1] == 0.0
    assert got["calendar"][0] > got["ci"][0]
    monkeypatch.setattr(focus_module, "_DEICTIC_DAY", frozenset())
    got = scores()
    assert got["calendar"][1] < 0.1
    assert got["calendar"][0] < got["ci"][0]


@needs_wordllama
def test_planted_culprit_first_only_without_day_words_in_the_predicate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """devops-deploy-freeze: the change calendar (planted) is first; with "tomorrow" in the
    predicate the CI record is first and the calendar second."""
    run, truth, emb = planted_case("devops-deploy-freeze")
    p = truth["planted"]

    def ranked() -> list[tuple[str, str]]:
        out = localize(run, at_step=truth["atStep"], embedder=emb).suspects
        return [(s.source, s.kind) for s in out]

    assert ranked()[0] == (p["source"], p["kind"])
    monkeypatch.setattr(focus_module, "_DEICTIC_DAY", frozenset())
    assert ranked().index((p["source"], p["kind"])) == 1


@pytest.mark.parametrize(
    ("contracted", "spelled_out"),
    [
        (
            "Which platform isn't wheelchair accessible?",
            "Which platform is not wheelchair accessible?",
        ),
        ("How many bags aren't covered by the fee?", "How many bags are not covered by the fee?"),
        ("What plan doesn't include roaming?", "What plan does not include roaming?"),
    ],
)
def test_a_negative_contraction_ends_the_asked_nouns_like_its_spelled_out_form(
    contracted: str, spelled_out: str
) -> None:
    # the noun scan tested the whole word: "isn't" is neither a stop word nor an auxiliary
    # ("isn" is), so it and every word after it became what was asked
    a, b = question_focus(contracted, STOP), question_focus(spelled_out, STOP)
    assert a.nouns == b.nouns and not any("'" in n for n in a.nouns)


def test_a_tag_question_does_not_take_the_predicate_into_the_subject() -> None:
    # "isn't" did not end the subject's run: "open" and "isn" were taken for the subject, and
    # with every unit touching it, no subject word was left out of the predicate at all
    f = question_focus("Is the museum shop open, isn't it?", STOP)
    assert f.subject == ("museum", "shop")
    assert f.predicate == ("open",)
