"""``afp bisect``'s replay: a ``ProbeRunner`` that answers each (probe, seed) by asking the model
again — the trigger call's request, rebuilt from the run (``analyses.call``), with the probe's
specs removed (``removal.apply``), sent to the endpoint the user named (``client``).

It is another way of answering a probe, not another causal mode: leave-one-out, the culprit
search, the surrogate, the comparators and the gates run on its answers exactly as on a rerun
command's. Around the request it keeps:

- **a response cache** under ``$XDG_CACHE_HOME/agentbisect/replay/`` (files 0600), one file per
  request, named by a SHA-256 of the endpoint (no credentials, no query) and the exact body (the
  model and the seed included); it holds the answer, never a key. The no-cache option (and
  ``AGENTBISECT_NO_CACHE``) neither reads nor writes it;
- **budgets** of requests and tokens, checked before each request: the request that would pass
  one is not sent (``BudgetSpent``), and the tiers mark what is left untested inconclusive;
- **counts** for the report (``ReplayStats``): requests, retries, tokens, cache hits.

A probe none of whose specs can be applied (an ``arg``, an injection whose text the run does not
hold) sends nothing and answers ``skipped``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from agentbisect.analyses.call import hint_key
from agentbisect.bisect.causal.client import ChatClient, Reply
from agentbisect.bisect.causal.probes import BudgetSpent, RunResult
from agentbisect.bisect.causal.removal import apply, spec_ident, spec_label
from agentbisect.bisect.causal.rerun import run_calls
from agentbisect.bisect.options import REPLAY_BUDGET_REQUESTS, REPLAY_BUDGET_TOKENS
from agentbisect.results.call import CallResult
from agentbisect.results.report import ReplayStats


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agentbisect" / "replay"


class ResponseCache:
    """Answers by a hash of (endpoint, body); unreadable files are misses, write errors ignored."""

    def __init__(self, endpoint: str, root: Path | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()
        self._prefix = endpoint.encode("utf-8") + b"\0"

    def name(self, body: bytes) -> str:
        return hashlib.sha256(self._prefix + body).hexdigest()

    def get(self, name: str) -> Reply | None:
        try:
            data = (self.root / name[:2] / (name + ".json")).read_bytes()
            return msgspec.json.decode(data, type=Reply)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None

    def put(self, name: str, reply: Reply) -> None:
        d = self.root / name[:2]
        try:
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")  # created 0600
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(msgspec.json.encode(reply))
                os.replace(tmp, d / (name + ".json"))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            pass  # a read-only or full cache directory must never fail a bisect


class Budget:
    """Requests and tokens left; ``reserve`` before a request, ``spend`` after (thread-safe).

    A request's tokens are known only once it is answered, so the token budget stops when the
    largest request so far would no longer fit: the next request is not sent rather than sent
    and found to pass it.
    """

    def __init__(self, requests: int, tokens: int | None) -> None:
        self.requests = requests
        self.tokens = tokens
        self.used_requests = 0
        self.used_tokens = 0
        self.largest = 0
        self.spent: str | None = None
        self._lock = threading.Lock()

    def reserve(self) -> None:
        with self._lock:
            if self.spent is None and self.used_requests >= self.requests:
                self.spent = (
                    f"the request budget ({REPLAY_BUDGET_REQUESTS.flag} {self.requests}) was spent"
                )
            elif (
                self.spent is None
                and self.tokens is not None
                and self.used_tokens + self.largest > self.tokens
            ):
                self.spent = (
                    f"the token budget ({REPLAY_BUDGET_TOKENS.flag} {self.tokens}) would be "
                    f"passed ({self.used_tokens} used, requests of up to {self.largest})"
                )
            if self.spent is not None:
                raise BudgetSpent(self.spent)
            self.used_requests += 1

    def spend(self, tokens: int) -> None:
        with self._lock:
            self.used_tokens += tokens
            self.largest = max(self.largest, tokens)


class ReplayRunner:
    """A ``ProbeRunner`` (and a ``run_one`` for the surrogate's parallel batch) over one call."""

    def __init__(
        self,
        call: CallResult,
        client: ChatClient,
        *,
        model: str,
        budget: Budget,
        cache: ResponseCache | None,
        jobs: int = 1,
        on_call: Callable[[str, int], None] | None = None,
        on_tokens: Callable[[int], None] | None = None,
    ) -> None:
        self.call = call
        self.client = client
        self.model = model
        self.budget = budget
        self.cache = cache
        self.jobs = max(1, jobs)
        self.on_call = on_call
        self.on_tokens = on_tokens
        self.cache_hits = 0
        self.retries = 0
        self.skipped = 0
        self.not_removed: set[str] = set()  # labels of every spec some probe could not apply
        self._lock = threading.Lock()

    def request_for(
        self, specs: list[dict[str, Any]], seed: int
    ) -> tuple[dict[str, Any], list[str]]:
        """The body one probe seed sends, and the labels of the specs it could not apply."""
        hinted = []
        for spec in specs:
            hint = self.call.hints.get(hint_key(str(spec.get("kind", "")), spec_ident(spec)))
            hinted.append({**hint, **spec} if hint else spec)  # the spec's own fields win
        messages, skipped = apply(hinted, self.call.request["messages"])
        body = {**self.call.request, "model": self.model, "messages": messages, "seed": seed}
        return body, [spec_label(s) for s in skipped]

    def run_one(self, payload: dict[str, Any], seed: int, probe: str) -> RunResult:
        specs = payload.get("specs")
        if not isinstance(specs, list):  # restoration probes are refused before any request
            raise ValueError("replay answers ablation probes only")
        body, skipped = self.request_for(specs, seed)
        if skipped:
            with self._lock:
                self.not_removed.update(skipped)
        if specs and len(skipped) == len(specs):
            with self._lock:
                self.skipped += 1
            return RunResult(self.call.response.get("content") or "", skipped=tuple(skipped))
        data = msgspec.json.encode(body)
        name = self.cache.name(data) if self.cache is not None else ""
        reply = self.cache.get(name) if self.cache is not None else None
        if reply is not None:
            with self._lock:
                self.cache_hits += 1
        else:
            self.budget.reserve()
            reply = self.client.post(body)
            self.budget.spend(reply.tokens)
            if self.on_tokens is not None:
                self.on_tokens(reply.tokens)
            with self._lock:
                self.retries += reply.attempts - 1
            if self.cache is not None:
                self.cache.put(name, reply)
        if self.on_call is not None:
            self.on_call(probe, seed)
        return RunResult(reply.output, skipped=tuple(skipped))

    def __call__(self, payload: dict[str, Any], seeds: list[int], probe: str) -> list[RunResult]:
        return run_calls(self.run_one, [(payload, s, probe) for s in seeds], self.jobs)

    def kill_all(self) -> None:
        """Nothing to kill: requests in flight finish or time out (the pool is closed after)."""

    def stats(self) -> ReplayStats:
        b = self.budget
        out = ReplayStats(
            endpoint=self.client.shown,
            model=self.model,
            requests=b.used_requests,
            retries=self.retries,
            tokens=b.used_tokens,
            cacheHits=self.cache_hits,
            skipped=self.skipped,
            budgetRequests=b.requests,
        )
        if b.tokens is not None:
            out.budgetTokens = b.tokens
        if b.spent is not None:
            out.budgetSpent = b.spent
        return out
