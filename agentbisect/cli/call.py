"""``afp call``: one LLM call of a run as the OpenAI chat-completions request it was (and the
response the run recorded) — what the model saw, and what ``afp bisect``'s replay sends with
nothing removed; its option table and body. The work is ``agentbisect.analyses.call``."""

from __future__ import annotations

from agentbisect.core.errors import UsageError
from agentbisect.core.options import (
    AT_LLM,
    AT_STEP,
    FILE,
    JSON,
    LOGS,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    format_opt,
)
from agentbisect.render.formats import CallFormat

FORMAT = format_opt(
    CallFormat, "table (default: the messages, readable) or json (the request to re-issue)."
)

# The examples' comments line up in the printed help, not here.
HELP = f"""Show one LLM call as the chat-completions request it was, and its recorded response.

The request is rebuilt from the run (a trace's span, a transcript, or an agentfootprint
recording's state): system, user, assistant messages with their tool calls, tool results paired
by id, the model and the parameters the run recorded. With {JSON.flag} it prints
{{"request": {{...}}, "response": {{...}}}}; the request is exactly what afp bisect's replay sends
with nothing removed (replay adds each probe's seed, and its model option replaces the model).

Examples:

\b
  afp call trace.json {AT_LLM.flag} -1                 # the last LLM call, readable
  afp call run.json {AT_STEP.flag} call-llm#40 {JSON.flag} | jq .request > request.json
"""

SPEC = CommandSpec("call", HELP, FILE, AT_STEP, AT_LLM, FORMAT, JSON, VERBOSE, TRACE_ID, LOGS)


def run(
    *,
    file: str,
    at_step: str | None,
    at_llm: int | None,
    fmt: CallFormat | None,
    as_json: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.analyses.call import llm_call
    from agentbisect.bisect.api import resolve_step
    from agentbisect.cli.common import import_options, load_run, pick_json_format
    from agentbisect.cli.output import emit

    name = pick_json_format(fmt, as_json)
    if at_step is None and at_llm is None:
        raise UsageError(f"give {AT_LLM.flag} N or {AT_STEP.flag} ID: which LLM call to show")
    imports = import_options(trace_id, logs)
    run_ = load_run(file, verbose, imports)
    step = resolve_step(run_, at_step, at_llm)
    assert step is not None  # one of the two trigger options was given
    emit(name, llm_call(run_, step, imports), None, False)
