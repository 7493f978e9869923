"""``afp diff GOOD BAD`` end to end on the bundled pairs (``fixtures/diff/``, written by the diff
benchmark's pair maker with the planted corpus' own trace and recording writers), and the rules
it is built from: normalisation, alignment, the gate, bad input, the page, replay."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.diff.alignment import align
from agentbisect.diff.normalize import canonical, masked, same
from agentbisect.diff.steps import Step
from tests.conftest import FIXTURES, cli
from tests.fake_openai import FakeOpenAI

D = FIXTURES / "diff"
GOOD = str(D / "retail.good.genai.json")
BAD = str(D / "retail.bad.genai.json")
BAD_OI = str(D / "retail.bad.openinference.json")
TWIN = str(D / "retail.twin.genai.json")
MOCK = ("--embedder", "mock")


def diff_json(*args: str) -> dict:
    res = cli("diff", *args, "--json", *MOCK)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _planted_first(doc: dict) -> None:
    top = doc["differences"][0]
    assert top["kind"] == "system-prompt" and top["material"]
    assert "90 days" in top["bad"]["text"] and "93 days" in top["good"]["text"]
    assert [(c["good"], c["bad"]) for c in top["changes"] if c["material"]] == [("93", "90")]
    change = top["changes"][0]
    assert top["bad"]["text"][slice(*change["badSpan"])] == "90"
    assert top["score"] > max(d["score"] for d in doc["differences"][1:])


def test_divergence_and_the_planted_value_first() -> None:
    doc = diff_json(GOOD, BAD)
    assert doc["diverged"] is True
    # the planted policy is in the system prompt of every call: the inputs differ from call 0,
    # the answer at call 2 (the first two calls ask for the same tools)
    assert doc["firstInputDivergence"] == {
        "good": {"step": "chat#3", "llmIndex": 0, "op": "llm"},
        "bad": {"step": "chat#3", "llmIndex": 0, "op": "llm"},
    }
    assert doc["firstOutputDivergence"]["bad"]["llmIndex"] == 2
    _planted_first(doc)
    kinds = {d["kind"] for d in doc["differences"]}
    assert kinds <= {"tool-result", "system-prompt", "document", "llm-output", "user-message"}
    # the distractor (another order number) is a difference the answer does not use
    distractor = next(d for d in doc["differences"] if d["kind"] == "tool-result")
    assert distractor["material"] and distractor["score"] <= 0.0
    # request ids and fetch times stamped into a tool result: immaterial, last
    last = doc["differences"][-1]
    assert last["material"] is False and not any(c["material"] for c in last["changes"])
    assert doc["scoring"]["proxy"] is True
    al = doc["alignment"]
    assert al["aligned"] == al["goodSteps"] == al["badSteps"] == len(al["steps"]) == 9


def test_across_formats_genai_against_openinference() -> None:
    doc = diff_json(GOOD, BAD_OI)
    assert doc["firstOutputDivergence"]["bad"] == {
        "step": "ChatCompletion#7",
        "llmIndex": 2,
        "op": "llm",
    }
    _planted_first(doc)


def test_recordings_pair_too() -> None:
    doc = diff_json(str(D / "retail.good.recording.json"), str(D / "retail.bad.recording.json"))
    assert doc["firstOutputDivergence"]["bad"]["llmIndex"] == 2
    assert doc["differences"][0]["bad"]["text"].count("90 days") == 1


def test_ids_times_and_formatting_are_no_divergence() -> None:
    doc = diff_json(BAD, TWIN)
    assert doc["diverged"] is False and doc["differences"] == []
    assert doc["firstInputDivergence"] is None and doc["firstOutputDivergence"] is None
    res = cli("diff", BAD, TWIN, "--fail-on", "diverged", *MOCK)
    assert res.exit_code == 0 and "No divergence" in res.stdout


def test_the_gate_trips_after_printing() -> None:
    res = cli("diff", GOOD, BAD, "--fail-on", "diverged", *MOCK)
    assert res.exit_code == 1
    assert "differences that fed it" in res.stdout and "93" in res.stdout
    assert res.stderr.strip().endswith("the runs part ways")
    res = cli("diff", GOOD, BAD, "--fail-on", "any", *MOCK)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "diverged" in res.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    no_content = str(FIXTURES / "otel" / "oaiv2-2.4b0-no-content.tool-planted.otlp.json")
    # two agents: the upstream planted-fact recording and an OpenInference refund agent
    agent_a = str(FIXTURES / "upstream" / "planted-fact.recording.json")
    agent_b = str(FIXTURES / "otel" / "openinference.tool-planted.otlp.json")
    for args, words in (
        ((GOOD, str(broken)), "broken.json"),
        ((GOOD, str(tmp_path / "missing.json")), "missing.json"),
        ((no_content, no_content), "content"),
        ((agent_a, agent_b), "nothing to align"),
    ):
        res = cli("diff", *args, *MOCK)
        assert res.exit_code == 2, (args, res.stdout, res.stderr)
        assert res.stderr.count("\n") == 1 and words in res.stderr, res.stderr
        assert "Traceback" not in res.stderr


def test_a_partial_alignment_says_how_much_aligned() -> None:
    res = cli("diff", GOOD, str(D / "baggage.bad.genai.json"), *MOCK)
    assert res.exit_code == 0
    assert "partial alignment:" in res.stderr and "steps aligned" in res.stderr


def test_html_page_two_columns_marked_spans_strict_csp(tmp_path: Path) -> None:
    out = tmp_path / "diff.html"
    res = cli("diff", GOOD, BAD, "--format", "html", "-o", str(out), *MOCK)
    assert res.exit_code == 0, res.stderr
    page = out.read_text()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert '<mark title="changed">90</mark>' in page and '<mark title="changed">93</mark>' in page
    assert "Aligned timeline" in page and "first output divergence" in page
    assert page.count("<script") == 1  # the page's own, by hash


def test_recorded_text_is_escaped_in_the_page(tmp_path: Path) -> None:
    doc = json.loads(Path(BAD).read_text())
    text = json.dumps(doc).replace("Westfield Mall", "<script>alert(1)</script> Mall")
    hostile = tmp_path / "hostile.json"
    hostile.write_text(text)
    out = tmp_path / "page.html"
    assert cli("diff", GOOD, str(hostile), "-f", "html", "-o", str(out), *MOCK).exit_code == 0
    page = out.read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)" in page


def test_replay_restoring_the_planted_source_fixes_the_answer() -> None:
    right = (
        "Yes — kitchen appliances can come back within 93 days of delivery, and your EM-200 "
        "arrived on 4 March, so you are well inside the window."
    )
    with FakeOpenAI(planted=["90 days"], wrong="Yes, within 90 days.", right=right) as fake:
        res = cli("diff", GOOD, BAD, "--json", "--replay", fake.url, "--no-cache", *MOCK)
        assert res.exit_code == 0, res.stderr
        doc = json.loads(res.stdout)
        asked = len(fake.requests)
    top = doc["differences"][0]
    assert top["verdict"]["verdict"] == "fixes"
    assert doc["differences"][1]["verdict"]["verdict"] == "does-not-fix"
    assert doc["scoring"]["proxy"] is False
    assert asked == 3  # the baseline and the two material differences


# ------------------------------------------------------------------ the rules, one by one


def test_same_sets_aside_formatting_ids_and_times() -> None:
    assert same('{"a": 1, "b": [1, 2]}', '{"b":[1,2],"a":1}')
    assert same(
        '{"order": "A-1", "request_id": "q1", "fetched_at": "x"}',
        '{"order": "A-1", "request_id": "q2", "fetched_at": "y"}',
    )
    assert same(
        "done (call_8f3a9b2c1d at 2026-12-01T10:00:00Z)",
        "done (call_77aa01bb2c at 2026-12-02T11:30:05Z)",
    )
    assert same("[kb:returns] Items may be returned.", "Items may be returned.")
    assert not same("returned within 90 days", "returned within 93 days")
    assert not same('{"order": "A-1"}', '{"order": "A-2"}')
    assert not same("delivered 2026-10-04", "delivered 2026-10-05")  # a date is content


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_normalising_any_text_never_fails_and_is_stable(text: str) -> None:
    assert masked(masked(text)) == masked(text) or "<" in text
    assert same(text, text)
    canonical(text)


def _step(i: int, op: str, *sig: str) -> Step:
    return Step(op=op, index=i, step=f"s{i}", signature=(op, *sig))


def test_alignment_pairs_a_changed_call_and_leaves_an_extra_one_a_gap() -> None:
    good = [_step(0, "llm"), _step(1, "tool", "lookup", "{}"), _step(2, "llm")]
    bad = [
        _step(0, "llm"),
        _step(1, "tool", "lookup", '{"id": 2}'),
        _step(2, "tool", "search", "{}"),
        _step(3, "llm"),
    ]
    pairs = align(good, bad)
    assert [(p.good, p.bad, p.same) for p in pairs] == [
        (0, 0, True),
        (1, 1, False),
        (None, 2, False),
        (2, 3, True),
    ]


def test_each_side_takes_its_own_log_records_and_trace() -> None:
    logs = FIXTURES / "otel" / "oaiv2-2.4b0-event-only.console-logs"
    run, records = str(logs) + ".otlp.json", str(logs) + ".logs.otlp.json"
    both = ("--good-logs", records, "--bad-logs", records)
    doc = diff_json(run, run, *both)
    assert doc["diverged"] is False and doc["alignment"]["aligned"] == 7
    # without its log records the bad side holds no content: one line, exit 2
    res = cli("diff", run, run, "--good-logs", records, *MOCK)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "content" in res.stderr
    two = str(FIXTURES / "otel" / "oaiv2-2.4b0-span-only.two-traces.otlp.json")
    ids = ("0ff7fb98735f003d4f8c4c00a71cb5df", "adc6e60306774981a498240eb6481ae3")
    doc = diff_json(two, two, "--good-trace-id", ids[0], "--bad-trace-id", ids[1])
    assert doc["diverged"] is True
    assert doc["firstOutputDivergence"]["bad"] == {"step": "chat#4", "llmIndex": 1, "op": "llm"}
    assert (
        diff_json(two, two, "--good-trace-id", ids[1], "--bad-trace-id", ids[1])["diverged"]
        is False
    )


def test_changed_spans_are_whole_values_and_ids_are_immaterial() -> None:
    from agentbisect.diff.differences import changes

    good = "Up to 5,000 requests a minute [request req_8f3a2b9c1d7e, at 2026-12-01T10:00:00Z]"
    bad = "Up to 5,003 requests a minute [request req_1a2b3c4d5e6f, at 2026-12-02T09:30:00Z]"
    got = [(c.good, c.bad, c.material) for c in changes(good, bad)]
    assert got[0] == ("5,000", "5,003", True)  # a number with separators is one value
    assert all(not material for _, _, material in got[1:]) and len(got) == 3
    first = changes(good, bad)[0]
    assert good[first.goodSpan.start : first.goodSpan.end] == "5,000"
    label = changes("[kb:a] Text here.", "Text here.")
    assert [(c.good, c.material) for c in label] == [("[kb:a]", False)]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120), st.text(max_size=120))
def test_every_change_is_the_text_at_its_span(good: str, bad: str) -> None:
    from agentbisect.diff.differences import changes

    found = changes(good, bad)
    for c in found:
        assert good[c.goodSpan.start : c.goodSpan.end] == c.good
        assert bad[c.badSpan.start : c.badSpan.end] == c.bad
    assert (found == []) == (_tokens(good) == _tokens(bad))  # whitespace alone is no change


def _tokens(text: str) -> list[str]:
    from agentbisect.diff.differences import _TOKEN

    return _TOKEN.findall(text)


def test_an_excerpt_starts_and_ends_on_whole_words() -> None:
    # it read "…itchen appliances may be returned up to 93 days"
    from agentbisect.render.tables.diff import windows

    text = "Kitchen appliances may be returned up to 93 days after delivery, for any brand."
    s = text.index("93")
    ((lo, hi),) = windows(text, [(s, s + 2)], 30)
    assert text[lo - 1] == " " and text[hi] == " "  # (a cut mid-word moves to a space)
    assert text[lo:hi] == "may be returned up to 93 days after delivery, for any"  # not "liances…"
