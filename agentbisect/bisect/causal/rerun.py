"""The rerun protocol of ``afp bisect``'s ``RERUN`` command (bisect.md §8.1, the issue's protocol).

Every (probe, seed) runs CMD once as an argv list (no shell) in its own session, writes one JSON
object ``{"specs"|"restore": [...], "seed": n, "step": ..., "probe": ...}`` to its stdin and reads
its stdout: ``{"output": str, "cost"?: {"loops"?, "tokens"?}, "skipped"?: [spec labels]}`` or
plain text (``skipped``: the specs it could not apply, reported as such). A failure, a timeout
or an unreadable answer stops everything with ``ExternalCommandFailed`` (exit 3), and every process
group still alive is killed, so no rerun outlives ``afp``.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any

from agentbisect.bisect.causal.child import exit_reason, kill_group, start_in_group, stderr_tail
from agentbisect.bisect.causal.probes import RunResult
from agentbisect.bisect.causal.rerun_io import MAX_RERUN_OUTPUT_ENV, exchange, stdout_cap
from agentbisect.core.errors import ExternalCommandFailed
from agentbisect.core.inputbytes import describe_size
from agentbisect.core.js import is_num, js_stringify
from agentbisect.core.signals import deferred


def parse_answer(stdout: bytes) -> RunResult:
    """Read one rerun's stdout. Raises ``ValueError`` with a reason when it is unusable."""
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("printed bytes that are not UTF-8 text") from None
    stripped = text.strip()
    if not stripped:
        raise ValueError('printed nothing (expected {"output": ...} or the answer as plain text)')
    if stripped[0] in "{[":
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"printed malformed JSON ({exc.msg} at char {exc.pos})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("output"), str):
            raise ValueError(
                'printed JSON of the wrong shape: expected {"output": string, '
                '"cost"?: {"loops"?: number, "tokens"?: number}}'
            )
        cost = obj.get("cost")
        loops = tokens = None
        if cost is not None:
            if not isinstance(cost, dict):
                raise ValueError('printed JSON of the wrong shape: "cost" must be an object')
            for name in ("loops", "tokens"):
                v = cost.get(name)
                if v is not None and not is_num(v):
                    raise ValueError(
                        f'printed JSON of the wrong shape: "cost.{name}" must be a number'
                    )
            loops, tokens = cost.get("loops"), cost.get("tokens")
        skipped = obj.get("skipped")
        if skipped is not None and (
            not isinstance(skipped, list) or not all(isinstance(x, str) for x in skipped)
        ):
            raise ValueError(
                'printed JSON of the wrong shape: "skipped" must be an array of spec labels'
            )
        return RunResult(obj["output"], loops, tokens, tuple(skipped or ()))
    # plain text: the answer as printed, minus the line terminator `echo`/`print` add
    return RunResult(text[:-2] if text.endswith("\r\n") else text.removesuffix("\n"))


class CommandRunner:
    """A ``ProbeRunner`` that runs the user's command once per seed."""

    def __init__(
        self,
        argv: list[str],
        step: str,
        *,
        timeout: float | None = None,
        jobs: int = 1,
        on_call: Callable[[str, int], None] | None = None,
    ) -> None:
        self.argv = argv
        self.step = step
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.on_call = on_call
        self.calls = 0
        self.stdout_cap = stdout_cap()
        self._live: dict[int, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()
        self._stopped = False

    def kill_all(self) -> None:
        """Kill every live rerun's process group; reruns started after this die at once."""
        with self._lock:
            self._stopped = True
            procs = list(self._live.values())
        for p in procs:
            kill_group(p)

    def _fail(self, probe: str, seed: int, why: str, stderr: bytes = b"") -> ExternalCommandFailed:
        cmd = " ".join(self.argv)
        return ExternalCommandFailed(
            f"rerun command {cmd!r} failed for probe {probe!r}, seed {seed}: {why}\n"
            f"stderr tail:\n{stderr_tail(stderr)}"
        )

    def run_one(self, payload: dict[str, Any], seed: int, probe: str) -> RunResult:
        msg = dict(payload)
        msg.update(seed=seed, step=self.step, probe=probe)
        data = (js_stringify(msg) + "\n").encode("utf-8", "surrogatepass")
        # Start and register as one step: a SIGTERM in between would leave a process the
        # kill-all cannot see, and a kill-all that already ran (abort) must reach it too.
        with deferred():
            try:
                proc = start_in_group(self.argv)
            except OSError as exc:
                raise self._fail(probe, seed, f"cannot start it ({exc.strerror or exc})") from None
            with self._lock:
                self._live[proc.pid] = proc
                stopped = self._stopped
        if stopped:
            kill_group(proc)
        try:
            try:
                got = exchange(proc, data, timeout=self.timeout, cap=self.stdout_cap)
            except subprocess.TimeoutExpired as exc:
                kill_group(proc)
                why = f"timed out after {self.timeout:g} s (process group killed)"
                raise self._fail(probe, seed, why, exc.stderr or b"") from None
            finally:
                # Anything the command left running in its group goes too: no orphans.
                kill_group(proc)
            out, err = got.stdout, got.stderr_tail
            if got.overflowed:
                raise self._fail(
                    probe,
                    seed,
                    f"printed more than {describe_size(self.stdout_cap)} on stdout (the cap, "
                    f"{MAX_RERUN_OUTPUT_ENV}); an answer is never judged on cut text",
                    err,
                )
            if proc.returncode != 0:
                raise self._fail(probe, seed, exit_reason(proc.returncode), err)
            try:
                result = parse_answer(out)
            except ValueError as exc:
                raise self._fail(probe, seed, str(exc), err) from None
        finally:
            with self._lock:
                self._live.pop(proc.pid, None)
            if proc.poll() is None:
                kill_group(proc)
                proc.wait()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        with self._lock:
            self.calls += 1
        if self.on_call is not None:
            self.on_call(probe, seed)
        return result

    def __call__(self, payload: dict[str, Any], seeds: list[int], probe: str) -> list[RunResult]:
        calls = [(payload, s, probe) for s in seeds]
        return run_calls(self.run_one, calls, self.jobs, abort=self.kill_all)


def run_calls(
    run_one: Callable[[dict[str, Any], int, str], RunResult],
    calls: list[tuple[dict[str, Any], int, str]],
    jobs: int,
    *,
    abort: Callable[[], None] | None = None,
) -> list[RunResult]:
    """``run_one(*call)`` for every call, on up to ``jobs`` threads; results in call order.

    The first failure (or Ctrl-C) cancels what has not started, calls ``abort`` (the command
    runner's kill-all, so running reruns die now instead of being waited for) and is re-raised.
    """
    pool: ThreadPoolExecutor | None = None
    futures: list[Future[RunResult]] = []
    try:
        if jobs <= 1 or len(calls) <= 1:
            return [run_one(*c) for c in calls]
        pool = ThreadPoolExecutor(max_workers=min(jobs, len(calls)))
        futures = [pool.submit(run_one, *c) for c in calls]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for f in futures:  # results are always taken in call order
            exc = f.exception() if f in done else None
            if exc is not None:
                raise exc
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        if abort is not None:
            abort()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
