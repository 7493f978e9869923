"""``afp bisect --replay URL``: causal verdicts by asking the model again, against a scripted
OpenAI-compatible server on 127.0.0.1 (``tests/fake_openai.py``; never the network)."""

from __future__ import annotations

import json
import socket
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from agentbisect.bisect.causal import client as client_mod
from agentbisect.bisect.causal.client import ChatClient, Secret, chat_url, pick_key, shown_url
from agentbisect.core.errors import ExternalCommandFailed, UsageError
from tests.conftest import FIXTURES, PLANTED, afp_loaded, afp_on_a_terminal, afp_proc
from tests.fake_openai import FakeOpenAI

OTEL = FIXTURES / "otel"
WRONG = "Yes: footwear can be returned within 90 days."
RIGHT = "No: footwear can be returned within 30 days only."
# (file, planted text the fake model repeats while it sees it, the planted suspect, extra args)
CASES = {
    "genai": (OTEL / "oaiv2-2.4b0-span-only.tool-planted.otlp.json", "90 days", "tool", []),
    "openinference": (OTEL / "openinference.tool-planted.otlp.json", "90 days", "tool", []),
    "transcript": (
        OTEL / "transcript.tool-planted.messages.json",
        "90 days",
        "tool",
        ["--replay-model", "local-model"],
    ),
    "genai-log-events": (
        OTEL / "oaiv2-2.3b0-log-events.tool-planted.otlp.json",
        "90 days",
        "tool",
        # the mock embedder ranks the planted tool 11th: probe every suspect
        [
            "--logs",
            str(OTEL / "oaiv2-2.3b0-log-events.tool-planted.logs.otlp.json"),
            "--max-ablations",
            "12",
        ],
    ),
    "genai-doc": (
        OTEL / "oaiv2-2.4b0-span-only.doc-planted.otlp.json",
        "within 90 days",
        "injection",
        [],
    ),
}
KEY = "sk-test-DO-NOT-LEAK-4242"


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def bisect(url: str, path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return afp_proc(
        "bisect", str(path), "--at-llm", "-1", "--replay", url, "--comparator", "contains:90 days",
        "--embedder", "mock", "--json", *args, env=env,
    )  # fmt: skip


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    """Verdict by suspect label (``kind 'name'``), as the report names them."""
    out = {}
    for s in report["suspects"]:
        if "verdict" in s:
            d = s.get("detail", {})
            out[f"{s['kind']} '{d.get('toolName') or d.get('injectionId') or s['source']}'"] = s[
                "verdict"
            ]["verdict"]
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_planted_source_is_confirmed_and_nothing_else(name: str) -> None:
    path, planted, kind, extra = CASES[name]
    with FakeOpenAI(planted=[planted], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, path, *extra)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        n = len(fake.requests)
    confirmed = [
        s for s in report["suspects"] if s.get("verdict", {}).get("verdict") == "confirmed"
    ]
    assert len(confirmed) == 1 and confirmed[0]["kind"] == kind, verdicts(report)
    assert report["mode"] == "causal"
    rep = report["replay"]
    assert rep["requests"] == n and rep["cacheHits"] == 0 and rep["retries"] == 0
    assert rep["tokens"] == 11 * n and rep["budgetRequests"] == 200
    assert rep["endpoint"] == fake.url + "/chat/completions"
    # the plan is said before the first request
    assert f"leave-one-out: {n} request(s) planned" in proc.stderr


def test_an_agentfootprint_recording_with_content() -> None:
    with FakeOpenAI(
        planted=["VIP tier override"], wrong="Refund APPROVED", right="Refund DECLINED"
    ) as fake:
        proc = afp_proc(
            "bisect", str(PLANTED), "--at-step", "call-llm#40", "--replay", fake.url,
            "--comparator", "contains:APPROVED", "--embedder", "mock", "--json",
        )  # fmt: skip
        bodies = list(fake.requests)
    assert proc.returncode == 0, proc.stderr
    got = verdicts(json.loads(proc.stdout))
    # its text came from the run: the spec names only the id
    assert got["injection 'vip-override-fact'"] == "confirmed"
    assert list(got.values()).count("confirmed") == 1, got
    assert {b["model"] for b in bodies} == {"mock-1"}
    assert sorted({b["seed"] for b in bodies}) == [0, 1, 2]


def test_the_requests_are_what_afp_call_prints_with_one_source_removed() -> None:
    path = CASES["genai"][0]
    call = json.loads(afp_proc("call", str(path), "--at-llm", "-1", "--json").stdout)["request"]
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, path, "--max-ablations", "1", "--samples", "2")
        bodies = list(fake.requests)
    assert proc.returncode == 0, proc.stderr
    baseline = [b for b in bodies if "[tool result removed]" not in json.dumps(b)]
    assert baseline and all({**b, "seed": None} == {**call, "seed": None} for b in baseline)
    removed = [b for b in bodies if b not in baseline]
    assert len(removed) == 2
    tool_msgs = [m for m in removed[0]["messages"] if m["role"] == "tool"]
    assert tool_msgs[-1]["content"] == "[tool result removed]" and len(tool_msgs) == 2


def test_culprits_surrogate_jobs_and_fail_on_work_with_replay() -> None:
    path = CASES["genai"][0]
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, path, "--culprits", "--jobs", "2")
        assert proc.returncode == 0, proc.stderr
        culprits = json.loads(proc.stdout)["culprits"]
        assert culprits["verdict"] == "confirmed" and len(culprits["culprits"]) == 1
        assert culprits["culprits"][0][0]["kind"] == "tool"
        proc = bisect(fake.url, path, "--attribution", "surrogate", "--masks", "12", "--jobs", "2")
        assert proc.returncode == 0, proc.stderr
        weights = json.loads(proc.stdout)["attribution"]["weights"]
        assert weights[0]["label"] == "tool 'get_refund_policy'"
        proc = bisect(fake.url, path, "--fail-on", "baseline-unstable", "--no-cache")
        assert proc.returncode == 0, proc.stderr


def test_an_unstable_baseline_trips_the_gate() -> None:
    with FakeOpenAI(planted=["nothing the model ever sees"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--fail-on", "baseline-unstable")
    assert proc.returncode == 1 and "baseline-unstable" in proc.stderr


def test_a_429_is_retried_after_what_retry_after_says() -> None:
    script = [{"status": 429, "headers": {"Retry-After": "0"}}, {"status": 503}]
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT, script=script) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--max-ablations", "0")
        assert proc.returncode == 0, proc.stderr
        rep = json.loads(proc.stdout)["replay"]
    assert rep["requests"] == 3 and rep["retries"] == 2


def test_the_client_waits_as_retry_after_says_and_gives_up_after_a_few_attempts() -> None:
    waits: list[float] = []
    script = [{"status": 429, "headers": {"Retry-After": "7"}}] + [{"status": 500}] * 3
    with FakeOpenAI(script=script) as fake:
        c = ChatClient(fake.url, key=None, timeout=5, sleep=waits.append)
        with pytest.raises(ExternalCommandFailed) as exc:
            c.post({"model": "m", "messages": []})
        c.close()
    assert waits == [7.0, 1.0, 2.0]  # Retry-After, then the doubling backoff
    assert "HTTP 500" in str(exc.value) and "4 attempts" in str(exc.value)
    assert len(fake.requests) == client_mod.MAX_ATTEMPTS


def test_a_timeout_is_retried() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT, script=[{"hang": 1.0}]) as fake:
        proc = bisect(
            fake.url, CASES["genai"][0], "--max-ablations", "0", "--replay-timeout", "0.3"
        )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["replay"]["retries"] == 1


def test_a_timeout_every_time_fails_with_one_line() -> None:
    waits: list[float] = []
    with FakeOpenAI(script=[{"hang": 0.5}] * 4) as fake:
        c = ChatClient(fake.url, key=None, timeout=0.1, sleep=waits.append)
        with pytest.raises(ExternalCommandFailed, match=r"timed out after 0.1 s"):
            c.post({"model": "m", "messages": []})
        c.close()


@pytest.mark.parametrize("status", [401, 403, 404])
def test_auth_and_route_errors_fail_fast_without_the_key(status: int) -> None:
    with FakeOpenAI(script=[{"status": status, "message": f"bad key {KEY}"}]) as fake:
        proc = bisect(fake.url, CASES["genai"][0], env={"OPENAI_API_KEY": KEY})
        n = len(fake.requests)
        sent = fake.headers[0].get("authorization")
        debug = afp_proc(
            "--debug", "bisect", str(CASES["genai"][0]), "--at-llm", "-1", "--replay", fake.url,
            env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert sent == f"Bearer {KEY}"  # loopback: the key goes
    assert proc.returncode == 3 and n == 1  # no retry
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("afp: replay:")]
    assert len(lines) == 1, proc.stderr
    assert f"HTTP {status}" in lines[0] and fake.url + "/chat/completions" in lines[0]
    for text in (proc.stdout, proc.stderr, debug.stdout, debug.stderr):
        assert KEY not in text


def test_a_refused_connection_fails_fast() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once the socket is closed
    proc = bisect(f"http://user:pw@127.0.0.1:{port}/v1?api-key=secret", CASES["genai"][0])
    assert proc.returncode == 3
    assert "connection refused" in proc.stderr
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in proc.stderr
    assert "pw" not in proc.stderr and "secret" not in proc.stderr


def test_an_identical_replay_makes_no_request(_private_vector_cache: Path) -> None:
    path = CASES["genai"][0]
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        first = bisect(fake.url, path, env={"OPENAI_API_KEY": KEY})
        n = len(fake.requests)
        second = bisect(fake.url, path, env={"OPENAI_API_KEY": KEY})
        assert len(fake.requests) == n  # nothing sent again
        third = bisect(fake.url, path, "--no-cache")
        assert len(fake.requests) == 2 * n
    assert first.returncode == second.returncode == third.returncode == 0
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert b["replay"]["cacheHits"] == n and b["replay"]["requests"] == 0
    assert verdicts(a) == verdicts(b)
    files = [
        p for p in (_private_vector_cache / "agentbisect" / "replay").rglob("*") if p.is_file()
    ]
    assert len(files) == n
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600
        assert KEY.encode() not in p.read_bytes()


def test_no_cache_neither_reads_nor_writes(_private_vector_cache: Path) -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--no-cache")
    assert proc.returncode == 0
    assert not (_private_vector_cache / "agentbisect" / "replay").exists()


def test_the_request_budget_leaves_the_rest_inconclusive() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--replay-budget-requests", "7")
        assert len(fake.requests) == 7
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    untested = [
        s for s in report["suspects"] if "not tested" in s.get("verdict", {}).get("claim", "")
    ]
    # baseline (3 requests) + the first suspect (3) + 1 of the second's 3 seeds: a probe cut
    # short is no verdict, so the second suspect is untested too, and so are the three after it
    assert len(untested) == 4
    assert all(s["verdict"]["verdict"] == "inconclusive" for s in untested)
    assert "--replay-budget-requests 7" in report["replay"]["budgetSpent"]


def test_the_token_budget_stops_before_it_is_passed() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--replay-budget-tokens", "40")
        assert len(fake.requests) == 3  # 3 × 11 tokens; a fourth would pass 40
    rep = json.loads(proc.stdout)["replay"]
    assert rep["tokens"] == 33 and "--replay-budget-tokens 40" in rep["budgetSpent"]


def test_keys_go_only_to_https_or_loopback() -> None:
    env = {"OPENAI_API_KEY": KEY, "MY_KEY": "other"}
    key, note = pick_key("https://api.example.com/v1", None, env)
    assert isinstance(key, Secret) and key.reveal() == KEY and note is None
    key, note = pick_key("http://127.0.0.1:8000/v1", None, env)
    assert key is not None and key.reveal() == KEY
    key, note = pick_key("http://[::1]:8000/v1", None, env)
    assert key is not None
    key, note = pick_key("http://gpu-box.lan:8000/v1", None, env)
    assert key is None and note is not None and "--replay-key-env" in note and KEY not in note
    key, _ = pick_key("http://gpu-box.lan:8000/v1", "MY_KEY", env)
    assert key is not None and key.reveal() == "other" and KEY not in repr(key)
    with pytest.raises(UsageError, match="NOPE"):
        pick_key("http://gpu-box.lan/v1", "NOPE", env)
    assert pick_key("http://127.0.0.1/v1", None, {}) == (None, None)


def test_no_key_no_authorization_header() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(fake.url, CASES["genai"][0], "--max-ablations", "0")
        assert proc.returncode == 0
        assert all("authorization" not in h for h in fake.headers)


def test_urls_are_shown_without_credentials_or_query() -> None:
    url = "https://me:pw@res.openai.azure.com/openai/v1?api-version=preview&key=k"
    assert shown_url(chat_url(url)) == "https://res.openai.azure.com/openai/v1/chat/completions"
    assert (
        chat_url(url)
        == "https://res.openai.azure.com/openai/v1/chat/completions?api-version=preview&key=k"
    )
    with pytest.raises(UsageError):
        chat_url("ftp://host/v1")


def test_usage_errors() -> None:
    path = str(CASES["genai"][0])
    proc = afp_proc(
        "bisect", path, "--at-llm", "-1", "--replay", "http://127.0.0.1:9/v1", "--rerun", "x"
    )
    assert proc.returncode == 2 and "not both" in proc.stderr
    proc = afp_proc(
        "bisect", path, "--at-llm", "-1", "--replay", "http://127.0.0.1:9/v1", "--upstream"
    )
    assert proc.returncode == 2 and "afp extension" in proc.stderr
    no_content = OTEL / "oaiv2-2.4b0-no-content.tool-planted.otlp.json"
    proc = afp_proc(
        "bisect", str(no_content), "--at-llm", "-1", "--replay", "http://127.0.0.1:9/v1"
    )
    assert proc.returncode == 2 and "--rerun" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    transcript = str(CASES["transcript"][0])
    proc = afp_proc("bisect", transcript, "--at-llm", "-1", "--replay", "http://127.0.0.1:9/v1")
    assert proc.returncode == 2 and "--replay-model" in proc.stderr


def test_without_httpx_replay_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(UsageError, match=r"agentbisect\[replay\]"):
        client_mod.load_httpx()


@pytest.mark.parametrize("fmt", ["table", "text"])
def test_the_report_states_requests_tokens_and_cache_hits(fmt: str) -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = afp_proc(
            "bisect", str(CASES["genai"][0]), "--at-llm", "-1", "--replay", fake.url,
            "--comparator", "contains:90 days", "--embedder", "mock", "-f", fmt,
            "--max-ablations", "1", env={"COLUMNS": "200"},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        "replay: 6 request(s) to " + fake.url + "/chat/completions (model gpt-4o-mini)"
        in proc.stdout
    )
    assert "66 tokens, 0 answered from the cache; budget 200 requests" in proc.stdout


def test_the_progress_bar_counts_requests_and_tokens() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT, delay=0.15) as fake:
        code, shown, _ = afp_on_a_terminal(
            "bisect", str(CASES["genai"][0]), "--at-llm", "-1", "--replay", fake.url,
            "--comparator", "contains:90 days", "--embedder", "mock", "--json",
            "--max-ablations", "1", "--no-cache",
        )  # fmt: skip
    assert code == 0
    text = shown.decode("utf-8", "replace")
    assert "leave-one-out: 6 request(s) planned" in text
    assert "/6 reruns · " in text and " tokens" in text


def test_a_probe_nothing_of_which_can_be_removed_is_not_sent() -> None:
    from agentbisect.bisect.causal.replay import Budget, ReplayRunner
    from agentbisect.results.call import CallResult

    call = CallResult(
        file="x",
        step="chat#1",
        llm_index=0,
        origin="test",
        request={"model": "m", "messages": [{"role": "system", "content": "A.\n\nB."}]},
        response={"role": "assistant", "content": "WRONG"},
        hints={"injection\0b": {"text": "B."}},
    )
    with FakeOpenAI(planted=["B."]) as fake:
        c = ChatClient(fake.url, key=None, timeout=5)
        runner = ReplayRunner(call, c, model="m", budget=Budget(10, None), cache=None)
        nothing = {"kind": "injection", "excludeInjectionIds": ["a"]}  # no text for it
        got = runner.run_one({"specs": [nothing]}, 0, "p")
        assert got.skipped == ("injection 'a'",) and fake.requests == []
        got = runner.run_one(
            {"specs": [nothing, {"kind": "injection", "excludeInjectionIds": ["b"]}]}, 1, "q"
        )
        c.close()
    assert got.output == "RIGHT" and got.skipped == ("injection 'a'",)
    assert fake.requests[0]["messages"] == [{"role": "system", "content": "A."}]
    assert runner.not_removed == {"injection 'a'"} and runner.stats().skipped == 1


def test_the_html_report_states_the_replay(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = afp_proc(
            "bisect", str(CASES["genai"][0]), "--at-llm", "-1", "--replay", fake.url,
            "--comparator", "contains:90 days", "--embedder", "mock", "-f", "html",
            "-o", str(out), "--max-ablations", "1",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "replay: 6 request(s) to " + fake.url + "/chat/completions" in out.read_text()


def test_a_surrogate_the_budget_cannot_pay_for_is_refused_before_any_request() -> None:
    with FakeOpenAI(planted=["90 days"], wrong=WRONG, right=RIGHT) as fake:
        proc = bisect(
            fake.url, CASES["genai"][0], "--attribution", "surrogate", "--masks", "64",
            "--replay-budget-requests", "50",
        )  # fmt: skip
        assert fake.requests == []
    assert proc.returncode == 2 and "67 requests" in proc.stderr


def test_a_bisect_without_replay_loads_no_http_client() -> None:
    loaded = afp_loaded(
        "bisect", str(PLANTED), "--at-step", "call-llm#40", "--json", "--embedder", "mock",
        env={"PYTHONPATH": str(FIXTURES.parent)},
    )  # fmt: skip
    assert "httpx" not in loaded and "agentbisect.bisect.causal.client" not in loaded
    assert "agentbisect.analyses.call" not in loaded
