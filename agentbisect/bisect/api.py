"""``bisect_run``: everything ``afp bisect`` does between loading a run and rendering its result.

Trigger resolution (``AT_STEP``/``AT_LLM``, with the recording's ids in the error), the
rerun runner and its options, the missing-context tier, the culprit search, and the cleanup of
every rerun process. Progress is reported through a callback, so the library draws nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import UNSET, Struct, field

from agentbisect.bisect.embed.choose import resolve_embedder
from agentbisect.bisect.options import (
    ATTRIBUTION,
    COMPARATOR,
    CONTROL_DEPS,
    CULPRITS,
    FAIL_ON,
    MASKS,
    MISSING_CONTEXT,
    ORIGINAL_OUTPUT,
    REPLAY,
    REPLAY_BUDGET_REQUESTS,
    SAMPLES,
    UPSTREAM,
)
from agentbisect.bisect.options import DEFAULTS as D
from agentbisect.bisect.pipeline.localize import TriggerError, localize
from agentbisect.bisect.policy import policy_for
from agentbisect.core.errors import InputError, UsageError
from agentbisect.core.honesty import FLAGS
from agentbisect.core.optionfile import read_json_option, read_text_option
from agentbisect.core.options import AT_LLM, AT_STEP, EXPECTED, RERUN
from agentbisect.core.suggest import say_nearest
from agentbisect.model.run import Run
from agentbisect.model.steps import control_deps_from_json
from agentbisect.results.bisect import BisectResult, bisect_result
from agentbisect.results.report import ContextBugReport

if TYPE_CHECKING:
    # The causal tier is imported where reruns or restoration run (never on a correlational
    # bisect, ~0.3 ms of start-up).
    from agentbisect.analyses.call import ImportOptions
    from agentbisect.bisect.causal.probes import Comparator, MissingContext, RerunOptions
    from agentbisect.bisect.causal.replay import ReplayRunner
    from agentbisect.bisect.causal.rerun import CommandRunner
    from agentbisect.bisect.causal.surrogate import SurrogateOptions, SurrogateOutcome
    from agentbisect.results import RunOverview

SIMILARITY_WARNING = (
    "warning: the similarity comparator with the mock embedder rarely flips (letter-frequency "
    f"cosine); prefer {COMPARATOR.flag} contains:WORD"
)


class BisectOptions(Struct):
    """The options of ``afp bisect`` (defaults equal the CLI's)."""

    at_step: str | None = None
    at_llm: int | None = None
    control_deps: str | None = None  # path of a JSON map
    max_depth: int = D.max_depth
    max_nodes: int = D.max_nodes
    max_suspects: int = D.max_suspects
    scorer: str = D.scorer
    rerun: str | None = None  # the command, split like a shell would (no shell)
    samples: int = D.samples
    original_output: str | None = None  # TEXT or @FILE
    comparator: str = D.comparator
    flip_threshold: float = D.flip_threshold
    max_ablations: int = D.max_ablations
    culprits: bool = False
    missing_context: str | None = None  # path of {"available": [...], "sent": [...]}
    jobs: int = D.jobs
    rerun_timeout: float = D.rerun_timeout
    upstream: bool = False
    fail_on: list[str] = field(default_factory=list)  # flag names (or "any") that trip the gate
    attribution: str | None = None  # "surrogate": random ablation masks + a sparse linear fit
    masks: int = D.masks
    keep_prob: float = D.keep_prob
    mask_seed: int = D.mask_seed
    attribution_score: str = D.attribution_score  # or "similarity"
    embedder: str | None = None  # mock | wordllama | cmd:COMMAND; None: the default
    ranking: str | None = None  # evidence-first (default) | learned | upstream
    expected: str | None = None  # the right answer, TEXT or @FILE: contrastive evidence
    no_cache: bool = False  # do not read or write the on-disk caches (vectors, replay answers)
    replay: str | None = None  # base URL of an OpenAI-compatible endpoint: causal by replay
    replay_model: str | None = None  # None: the model the run recorded
    replay_key_env: str | None = None  # None: OPENAI_API_KEY, to https or loopback URLs only
    replay_timeout: float = D.replay_timeout
    replay_budget_requests: int = D.replay_budget_requests
    replay_budget_tokens: int | None = None

    @property
    def causal(self) -> bool:
        """Whether probes are answered (by a rerun command or by replay)."""
        return self.rerun is not None or self.replay is not None

    def surrogate(self) -> SurrogateOptions:
        from agentbisect.bisect.causal.surrogate import SurrogateOptions

        return SurrogateOptions(
            masks=self.masks,
            keep_prob=self.keep_prob,
            seed=self.mask_seed,
            score=self.attribution_score,
            # With CULPRITS the set search always runs; otherwise only when the fit is poor
            culprits=True if self.culprits else None,
        )


def parse_comparator(spec: str) -> Comparator | None:
    if spec == "similarity":
        return None
    if spec.startswith("contains:") and len(spec) > len("contains:"):
        word = spec[len("contains:") :]
        return lambda a, b: (word in a) != (word in b)
    if spec.startswith("regex:") and len(spec) > len("regex:"):
        try:
            rx = re.compile(spec[len("regex:") :])
        except re.error as exc:
            raise UsageError(f"{COMPARATOR.flag}: bad regular expression ({exc})") from None
        return lambda a, b: bool(rx.search(a)) != bool(rx.search(b))
    raise UsageError(f"{COMPARATOR.flag} must be similarity, contains:WORD or regex:PATTERN")


def _text_or_file(value: str, option: str) -> str:
    return read_text_option(value[1:], option) if value.startswith("@") else value


def _original_output(value: str | None, run: Run) -> str:
    if value is None:
        if run.final_answer is None:
            raise UsageError(
                "the recording carries no final answer (no turn_end/llm_end content): "
                f"pass {ORIGINAL_OUTPUT.flag} TEXT or @FILE"
            )
        return run.final_answer
    return _text_or_file(value, ORIGINAL_OUTPUT.flag)


def _missing_context(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    obj = read_json_option(path, MISSING_CONTEXT.flag, 'a JSON object {"available", "sent"}')
    if not isinstance(obj, dict):
        raise InputError(path, 'expected {"available": [{"id", "content"?}], "sent": [{"id"}]}')
    lists: list[list[dict[str, Any]]] = []
    for key in ("available", "sent"):
        items = obj.get(key, [])
        if not isinstance(items, list):
            raise InputError(path, "expected an array", f"$.{key}")
        for i, u in enumerate(items):
            if not isinstance(u, dict) or not isinstance(u.get("id"), str):
                raise InputError(path, 'expected {"id": string, "content"?}', f"$.{key}[{i}]")
        lists.append(items)
    return lists[0], lists[1]


def resolve_step(run: Run, at_step: str | None, at_llm: int | None) -> str | None:
    if at_step is not None and at_llm is not None:
        raise UsageError(f"give {AT_STEP.flag} or {AT_LLM.flag}, not both")
    if at_llm is None:
        return at_step
    ids = run.llm_call_ids
    if not ids:
        # (the input's fault, not the option's: named like every other input error)
        raise UsageError(
            f"{run.loaded.file}: {AT_LLM.flag}: the run holds no LLM call (no llm_start events)"
        )
    if not -len(ids) <= at_llm < len(ids):
        raise UsageError(
            f"{AT_LLM.flag} {at_llm}: the recording has {len(ids)} LLM call(s) "
            f"(0..{len(ids) - 1}, or -1 for the last): {', '.join(ids)}"
        )
    return ids[at_llm]


def _trigger_error(exc: TriggerError, run: Run, step: str | None) -> UsageError:
    """The trigger error with what the user can do next: the nearest step ids that can be
    localized (not all of them: a long run has thousands), and why a composition's calls can't."""
    msg = exc.message.removeprefix("localize: ")
    committed = run.commit_log.last_idx
    ids = run.llm_call_ids
    localizable = [i for i in ids if i in committed]
    if step is not None:
        near = say_nearest(step, committed, "step id")
        msg += ". " + near[:1].upper() + near[1:]
    if ids and not localizable:
        msg += (
            f". None of the {len(ids)} LLM call(s) committed at the top level: inside a "
            "composition only top-level steps can be localized"
        )
    elif localizable:
        shown = ", ".join(localizable[-3:])
        msg += f". LLM calls that can be localized ({len(localizable)}; afp aggregate lists them): "
        msg += ("… " if len(localizable) > 3 else "") + shown
    else:
        msg += ". The recording has no LLM-call ids (no llm_start events)"
    return UsageError(msg)


def unraisable(name: str, opts: BisectOptions) -> str | None:
    """Why a bisect run with these options can never raise flag ``name`` (None: it can)."""
    info = FLAGS.get(name)
    if info is None:
        return "not a flag; " + say_nearest(name, FLAGS, "flag") + " (or any)"
    if info.source == "record":
        return "only afp record raises it"
    if not policy_for(opts.upstream).afp_flags and info.source != "upstream":
        return f"the {UPSTREAM.flag} report carries only the upstream library's flags"
    if name == "baseline-unstable" and not opts.causal:
        return f"only reruns raise it: add {RERUN.flag} CMD or {REPLAY.flag} URL"
    if name == "surrogate-unreliable" and opts.attribution != "surrogate":
        return (
            "only the surrogate attribution raises it: "
            f"add {RERUN.flag} CMD {ATTRIBUTION.flag} surrogate"
        )
    return None


def check_options(opts: BisectOptions) -> Comparator | None:
    """Refuse option combinations that make no sense, before anything is loaded.

    A ``FAIL_ON`` flag that this mode cannot raise is refused too: a CI gate that can never
    trip would pass silently.
    """
    for name in opts.fail_on:
        why = None if name == "any" else unraisable(name, opts)
        if why is not None:
            raise UsageError(f"{FAIL_ON.flag} {name}: {why}")
    pol = policy_for(opts.upstream)
    if opts.rerun is not None and opts.replay is not None:
        raise UsageError(f"give {RERUN.flag} or {REPLAY.flag}, not both")
    if opts.replay is not None:
        pol.extension(REPLAY.flag)
        if opts.missing_context is not None:
            raise UsageError(
                f"{MISSING_CONTEXT.flag} needs {RERUN.flag}: replay sends the recorded request, "
                "which never held the dropped context"
            )
    if opts.culprits and not opts.causal:
        raise UsageError(f"{CULPRITS.flag} needs {RERUN.flag} or {REPLAY.flag}")
    if opts.culprits:
        pol.extension(CULPRITS.flag)
    if opts.attribution is not None:
        if opts.attribution != "surrogate":
            raise UsageError(f"{ATTRIBUTION.flag}: the only method is 'surrogate'")
        pol.extension(ATTRIBUTION.flag)
        if not opts.causal:
            raise UsageError(
                f"{ATTRIBUTION.flag} surrogate needs {RERUN.flag} or {REPLAY.flag} (it reruns "
                "once per mask)"
            )
        try:
            opts.surrogate().check()
        except ValueError as exc:
            raise UsageError(f"{ATTRIBUTION.flag} surrogate: {exc}") from None
        need = opts.samples + opts.masks  # its baseline and masks, exactly; known before any
        if opts.replay is not None and need > opts.replay_budget_requests:
            raise UsageError(
                f"{ATTRIBUTION.flag} surrogate replays {need} requests ({SAMPLES.flag} "
                f"{opts.samples} + {MASKS.flag} {opts.masks}), more than "
                f"{REPLAY_BUDGET_REQUESTS.flag} {opts.replay_budget_requests}: raise the budget "
                "or lower the masks"
            )
    pol.check(embedder=opts.embedder, ranking=opts.ranking, expected=opts.expected)
    return parse_comparator(opts.comparator)


def bisect_run(
    run: Run,
    opts: BisectOptions,
    *,
    on_call: Callable[[str, int], None] | None = None,
    on_plan: Callable[[int, bool, str], None] | None = None,
    overview: bool = True,
    import_options: ImportOptions | None = None,
    on_tokens: Callable[[int], None] | None = None,
) -> BisectResult:
    """Localize (and, with ``opts.rerun``, judge by reruns) the context behind a wrong step.

    ``overview=False`` leaves out the run overview only the HTML report draws: the result then
    holds no reference to ``run`` (and the recording bytes its parts point into).

    ``on_call(probe, seed)`` hears each rerun; ``on_plan(reruns, exact, phase)`` hears, before
    each phase of reruns starts, how many it will make: exactly for the restoration and
    leave-one-out tiers and the surrogate's masks (they do not adapt to the answers), an upper
    bound for the culprit and set searches (which subsets they try depends on the answers).

    With ``opts.replay`` the probes are answered by asking the model again (``causal.replay``);
    ``import_options`` are the trace options the run was loaded with, to read the trigger call's
    messages again from a trace; ``on_tokens(n)`` hears the tokens each request used.
    """
    compare = check_options(opts)
    pol = policy_for(opts.upstream)
    if len(run.commit_log) == 0:
        lo = run.loaded
        meta = run.import_summary
        # A trace none of whose spans afp reads has nothing to explain: say why, rather than
        # blame a commit log no trace carries.
        unread = next((f for f in meta.flags if f.flag == "no-genai-spans"), None) if meta else None
        if unread is not None:
            raise UsageError(f"{lo.file}: nothing to bisect: {unread.note}")
        missing = "no snapshot" if lo.snapshot is None else "a snapshot without a commit log"
        raise UsageError(
            f"{lo.file}: afp bisect slices the commit log (snapshot.commitLog), and this "
            f"recording has {missing}; afp events and afp aggregate can still read it"
        )
    if opts.control_deps is not None:
        doc = read_json_option(
            opts.control_deps, CONTROL_DEPS.flag, "a JSON object of control deps"
        )
        run.control_deps = control_deps_from_json(doc, opts.control_deps)
    step = resolve_step(run, opts.at_step, opts.at_llm)
    warnings: list[str] = []
    defaulted = False
    if step is None and run.quality_lowest is None and pol.default_trigger:
        # Nearly always the user means the answer: the last LLM call that can be localized.
        calls = [i for i in run.llm_call_ids if i in run.commit_log.last_idx]
        if calls:
            step, defaulted = calls[-1], True
            warnings.append(
                f"no {AT_STEP.flag} or {AT_LLM.flag}: explaining {step}, the last of "
                f"{len(calls)} LLM call{'s' if len(calls) != 1 else ''}"
            )
    resolved = resolve_embedder(pol.embedder or opts.embedder, use_cache=not opts.no_cache)
    if resolved.notice is not None:
        warnings.append(resolved.notice)
    emb = resolved.embedder
    expected = _text_or_file(opts.expected, EXPECTED.flag) if opts.expected is not None else None
    runner: CommandRunner | ReplayRunner | None = None
    replayer: ReplayRunner | None = None
    command: CommandRunner | None = None
    rerun_opts: RerunOptions | None = None
    mc: MissingContext | None = None
    try:
        original = ""
        if opts.rerun is not None:
            original = _original_output(opts.original_output, run)
            try:
                import shlex  # only a rerun command is split

                argv = shlex.split(opts.rerun)
            except ValueError as exc:  # "No closing quotation", "No escaped character"
                raise UsageError(f"{RERUN.flag} {opts.rerun!r}: {str(exc).lower()}") from None
            if not argv:
                raise UsageError(f"{RERUN.flag}: empty command")
            if compare is None and resolved.name == "mock":
                warnings.append(SIMILARITY_WARNING)
            # Only reruns pay for the process pool and logging machinery.
            from agentbisect.bisect.causal.probes import RerunOptions
            from agentbisect.bisect.causal.rerun import CommandRunner

            runner = command = CommandRunner(
                argv, step or "", timeout=opts.rerun_timeout, jobs=opts.jobs, on_call=on_call
            )
        elif opts.replay is not None:
            if step is None:
                step = _quality_step(run)
            replayer, original = _replay_runner(
                run, step, opts, import_options, on_call, warnings, on_tokens
            )
            runner = replayer
            if compare is None and resolved.name == "mock":
                warnings.append(SIMILARITY_WARNING)
        if runner is not None:
            from agentbisect.bisect.causal.probes import RerunOptions

            rerun_opts = RerunOptions(
                runner=runner,
                original_output=original,
                samples=opts.samples,
                flip_threshold=opts.flip_threshold,
                outcome_changed=compare,
                max_suspects=opts.max_ablations,
            )
        if opts.missing_context is not None:
            from agentbisect.bisect.causal.probes import MissingContext

            available, sent = _missing_context(opts.missing_context)
            mc = MissingContext(
                available=available,
                sent=sent,
                runner=runner,
                original_output=original,
                samples=opts.samples,
                flip_threshold=opts.flip_threshold,
                outcome_changed=compare,
            )
        if command is not None and step is None and run.quality_lowest is not None:
            command.step = run.quality_lowest.runtimeStageId
        try:
            report = localize(
                run,
                at_step=step,
                embedder=emb,
                max_depth=opts.max_depth,
                max_nodes=opts.max_nodes,
                max_suspects=opts.max_suspects,
                scorer=opts.scorer,
                # the surrogate replaces the leave-one-out tier: it runs its own baseline below
                rerun=None if opts.attribution else rerun_opts,
                missing_context=mc,
                policy=pol,
                ranking=opts.ranking,
                expected=expected,
                on_plan=_tier_plan(on_plan, opts),
            )
        except TriggerError as exc:
            raise _trigger_error(exc, run, step) from None
        if defaulted:
            report.triggerSource = "last-llm-call"
        if pol.afp_fields:
            from agentbisect.bisect.trigger import explained

            report.trigger = explained(run, report.step)
            if report.ranking == "evidence-first" and report.contrastive is UNSET:
                # (calibrated on plain evidence scores: a contrastive score is another scale)
                from agentbisect.bisect.confidence import confidence

                report.confidence = confidence(report.suspects, str(report.embedder)) or UNSET
        if opts.attribution and rerun_opts is not None and runner is not None:
            from agentbisect.bisect.causal.probes import BudgetSpent
            from agentbisect.bisect.causal.surrogate import parallel_batch, run_surrogate

            try:
                outcome = run_surrogate(
                    report.suspects,
                    rerun_opts,
                    emb,
                    opts.surrogate(),
                    batch=parallel_batch(runner.run_one, opts.jobs, abort=runner.kill_all),
                    on_plan=on_plan,
                )
            except BudgetSpent as exc:
                raise UsageError(
                    f"{ATTRIBUTION.flag} surrogate: {exc} before every mask was replayed "
                    f"(it needs {opts.samples} + {opts.masks} requests); raise "
                    f"{REPLAY_BUDGET_REQUESTS.flag} or lower {MASKS.flag}"
                ) from None
            _attach(report, outcome)
        elif opts.culprits and rerun_opts is not None:
            from agentbisect.bisect.causal.probes import (
                bisect_culprits,
                culprit_candidates,
                culprit_search_bound,
            )

            if on_plan is not None:
                n = len(culprit_candidates(report.suspects))
                on_plan(culprit_search_bound(n, opts.samples), False, "culprit search")
            report.culprits = bisect_culprits(report.suspects, rerun_opts, emb)
    finally:
        if runner is not None:
            runner.kill_all()
        if replayer is not None:
            replayer.client.close()
    if replayer is not None:
        report.replay = replayer.stats()
        if replayer.not_removed and (opts.culprits or opts.attribution):
            # leave-one-out says so per suspect (skipped); the set searches cannot
            warnings.append(
                "warning: replay could not remove "
                + ", ".join(sorted(replayer.not_removed))
                + " (the run holds nothing to cut for it): the sets and masks that named it "
                "were sent without that removal"
            )
    step = report.step

    def overview_of() -> RunOverview:
        # Only the HTML report draws the run: the others do not import the overview's modules.
        from agentbisect.analyses.overview import run_overview

        return run_overview(run, step)

    return bisect_result(
        report,
        warnings=warnings,
        overview_of=overview_of if overview else None,
        no_verdict=pol.no_verdict,
        no_restore_verdict=pol.no_restore_verdict,
        imported=run.import_meta is not None,
    )


def _tier_plan(
    on_plan: Callable[[int, bool, str], None] | None, opts: BisectOptions
) -> Callable[[int], None] | None:
    """The localizer's plan (restoration and leave-one-out reruns, an exact count) as a phase."""
    if on_plan is None:
        return None
    tiers = []
    if opts.missing_context is not None and opts.rerun is not None:
        tiers.append("restoration")
    if opts.causal and not opts.attribution:
        tiers.append("leave-one-out")
    phase = " + ".join(tiers) or "reruns"
    return lambda n: on_plan(n, True, phase)


_SLICE_FLAGS = frozenset(
    (
        "slice-truncated",
        "untracked-sources",
        "no-control-deps",
        "no-read-tracking",
        "no-llm-call-ids",
    )
)


def _attach(report: ContextBugReport, outcome: SurrogateOutcome) -> None:
    """Put the surrogate's baseline, flags and attribution on the report.

    ``baseline-unstable`` goes where upstream puts the ablation one (right after the slice
    flags); ``surrogate-unreliable`` is afp's own, so it goes last.
    """
    report.mode = "causal"
    report.baseline = outcome.baseline
    flags = report.honestyFlags
    at = 0
    while at < len(flags) and flags[at].flag in _SLICE_FLAGS:
        at += 1
    for f in outcome.flags:
        if f.flag == "baseline-unstable":
            flags.insert(at, f)
            at += 1
        else:
            flags.append(f)
    report.attribution = outcome.attribution


def _quality_step(run: Run) -> str:
    """The trigger when neither trigger option was given: the quality data's lowest step."""
    if run.quality_lowest is None:
        raise UsageError(
            f"{REPLAY.flag} needs the trigger LLM call: give {AT_LLM.flag} N or {AT_STEP.flag} ID"
        )
    return run.quality_lowest.runtimeStageId


def _replay_runner(
    run: Run,
    step: str,
    opts: BisectOptions,
    import_options: ImportOptions | None,
    on_call: Callable[[str, int], None] | None,
    warnings: list[str],
    on_tokens: Callable[[int], None] | None = None,
) -> tuple[ReplayRunner, str]:
    """The replay runner for the trigger call, and the answer probes are compared with."""
    from agentbisect.analyses.call import llm_call
    from agentbisect.bisect.causal.client import ChatClient, answer_text, pick_key
    from agentbisect.bisect.causal.replay import Budget, ReplayRunner, ResponseCache
    from agentbisect.bisect.embed.cache import cache_disabled_by_env
    from agentbisect.bisect.options import REPLAY_MODEL

    assert opts.replay is not None
    call = llm_call(run, step, import_options)
    model = opts.replay_model or call.request.get("model") or ""
    if not model:
        raise UsageError(
            f"LLM call {step}: the run records no model name: give {REPLAY_MODEL.flag} NAME"
        )
    key, withheld = pick_key(opts.replay, opts.replay_key_env)
    if withheld is not None:
        warnings.append("warning: " + withheld)
    client = ChatClient(opts.replay, key=key, timeout=opts.replay_timeout)
    use_cache = not opts.no_cache and not cache_disabled_by_env()
    runner = ReplayRunner(
        call,
        client,
        model=model,
        budget=Budget(opts.replay_budget_requests, opts.replay_budget_tokens),
        cache=ResponseCache(client.shown) if use_cache else None,
        jobs=opts.jobs,
        on_call=on_call,
        on_tokens=on_tokens,
    )
    if opts.original_output is not None:
        original = _text_or_file(opts.original_output, ORIGINAL_OUTPUT.flag)
    else:
        original = answer_text(call.response)
        if not original:
            original = _original_output(None, run)
    return runner, original
