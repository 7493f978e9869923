"""``afp bisect`` end to end: CliRunner on the typer app, plus real ``afp`` subprocesses for the
rerun protocol (replay of the upstream causal reports, gates, failures, no orphans)."""

from __future__ import annotations

import functools
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentbisect.cli import app
from tests.conftest import MINI, PLANTED, ROOT, UPSTREAM, afp_proc, process_alive

UP = UPSTREAM
PF = str(PLANTED)
REPLAY = str(ROOT / "tests" / "rerun_replay.py")
PY = shlex.quote(sys.executable)

runner = CliRunner()


def invoke(*args: str) -> Any:
    return runner.invoke(app, ["bisect", *args])


def invoke_up(*args: str) -> Any:
    """Conformance: the upstream switch, exactly the upstream report."""
    return invoke(*args, "--upstream")


def mask(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: ("<wording>" if k in ("note", "claim") else mask(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [mask(x) for x in o]
    return o


def same(got: Any, expected: Any) -> bool:
    # json.dumps keeps key order, so this compares order as well as values
    return json.dumps(mask(got)) == json.dumps(mask(expected))


def test_json_matches_upstream_and_at_llm_last() -> None:
    res = invoke_up(PF, "--at-llm", "-1", "--json")
    assert res.exit_code == 0, res.output
    expected = json.loads((UP / "planted-fact.report.correlational.json").read_text())
    assert same(json.loads(res.stdout), expected)


def test_control_deps_option_and_bundle_key(tmp_path: Path) -> None:
    expected = json.loads((UP / "planted-fact.report.correlational-controldeps.json").read_text())
    res = invoke_up(
        PF,
        "--at-step",
        "call-llm#40",
        "--control-deps",
        str(UP / "planted-fact.control-deps.json"),
        "--json",
    )
    assert res.exit_code == 0, res.output
    assert same(json.loads(res.stdout), expected)
    bundle = json.loads(Path(PF).read_text())
    bundle["controlDeps"] = json.loads((UP / "planted-fact.control-deps.json").read_text())[
        "controlDeps"
    ]
    p = tmp_path / "with-deps.json"
    p.write_text(json.dumps(bundle))
    res = invoke_up(str(p), "--at-step", "call-llm#40", "--json")
    assert res.exit_code == 0, res.output
    assert same(json.loads(res.stdout), expected)


def test_budgets_options() -> None:
    expected = json.loads((UP / "react-tools.report.last-llm-tight.json").read_text())
    res = invoke_up(
        str(UP / "react-tools.recording.json"),
        "--at-llm",
        "-1",
        "--max-depth",
        "3",
        "--max-nodes",
        "10",
        "--max-suspects",
        "5",
        "--json",
    )
    assert res.exit_code == 0
    assert same(json.loads(res.stdout), expected)


def test_text_format() -> None:
    res = invoke_up(str(MINI / "mini-a.json"), "--at-step", "llm#6", "--format", "text")
    assert res.exit_code == 0
    lines = res.stdout.rstrip("\n").split("\n")
    assert lines[0] == 'CONTEXT BUG LOCALIZATION — trigger llm#6 "CallLLM" (explicit)'
    assert lines[1].startswith("mode: CORRELATIONAL — ") and "no causal claim" in lines[1]
    assert lines[1].endswith(" — ranked by semantic-alignment")
    assert lines[2] == "slice: 6 nodes · 9 data edges · 2 control edges · 6 influence-weighted"
    assert lines[3] == ""
    assert lines[4].startswith("SUSPECTS (7, ")
    assert lines[5].startswith(
        " 1. [stage 'llm#2'] at llm#2 \"CallLLM\" — score 1.000 (path only — "
    )
    assert lines[6] == "    path: llm#6 ←([control])— route#3 ←(plan)— llm#2"
    assert lines[7].startswith("    verdict: (none — ")
    assert (
        " 4. [tool 'lookup'] at tool#4 \"Tools\" — score 0.739 (path 0.823 × content 0.899)"
        in lines
    )
    assert (
        "    path: llm#6 ←([control])— route#3 ←(plan)— llm#2 ←(systemPromptInjections 0.817)— ctx#1 ←(question)— seed#0"
        in lines
    )
    assert "HONESTY:" in lines
    assert any(x.startswith("⚠ [untracked-sources] 1 ") for x in lines)
    assert "only ablation verdicts make causal claims" in lines[-1] and lines[-2] == ""


def test_text_format_control_label() -> None:
    res = invoke(str(MINI / "mini-b.json"), "--at-step", "t#4", "--format", "text")
    assert "    path: t#4 ←(verdict)— c#2 ←([control: within limit])— p#1" in res.stdout
    assert "⚠ [no-llm-call-ids]" in res.stdout


def test_terminal_rendering() -> None:
    res = invoke(PF, "--at-step", "call-llm#40", "--details")
    assert res.exit_code == 0
    out = res.stdout
    assert "CORRELATIONAL — proxies only" in out
    assert "Suspects (6)" in out and "Evidence paths" in out
    assert "⚠ [untracked-sources]" in out and "⚠ [no-control-deps]" in out


def test_unknown_step_lists_llm_ids() -> None:
    res = invoke(PF, "--at-step", "nope#1")
    assert res.exit_code == 2
    assert "not in the commit log" in res.stderr
    assert "call-llm#18, call-llm#40" in res.stderr


def test_composition_refusal() -> None:
    step = "step-refine/body/sf-llm-call/call-llm#149"
    res = invoke(str(UP / "composition.recording.json"), "--at-step", step)
    assert res.exit_code == 2
    assert f"'{step}' is not in the commit log" in res.stderr
    assert "top-level" in res.stderr
    res = invoke(str(UP / "composition.recording.json"), "--at-llm", "-1")
    assert res.exit_code == 2 and "not in the commit log" in res.stderr


def test_usage_errors() -> None:
    assert invoke(PF, "--at-llm", "7").exit_code == 2
    res = invoke(PF, "--upstream")  # (upstream keeps its error; afp defaults to the last call)
    assert res.exit_code == 2 and "no trigger step" in res.stderr
    assert invoke(PF, "--at-step", "call-llm#40", "--fail-on", "bogus").exit_code == 2
    assert invoke(PF, "--at-step", "call-llm#40", "--culprits").exit_code == 2
    assert invoke(PF, "--at-step", "call-llm#40", "--comparator", "fuzzy").exit_code == 2
    assert invoke(str(MINI / "nope.json"), "--at-step", "x").exit_code == 2


def test_no_trigger_option_explains_the_last_llm_call() -> None:
    res = invoke(PF, "--json")
    assert res.exit_code == 0, res.stderr
    rep = json.loads(res.stdout)
    last = json.loads(invoke(PF, "--json", "--at-llm", "-1").stdout)
    assert rep["step"] == last["step"] and rep["triggerSource"] == "last-llm-call"
    assert [s["source"] for s in rep["suspects"]] == [s["source"] for s in last["suspects"]]
    assert f"no --at-step or --at-llm: explaining {rep['step']}, the last of " in res.stderr


def test_quality_trigger_cli() -> None:
    res = invoke(str(MINI / "mini-a-quality.json"), "--json")
    assert res.exit_code == 0
    rep = json.loads(res.stdout)
    assert (rep["step"], rep["triggerSource"], rep["triggerScore"]) == ("llm#6", "quality", 0.25)


def test_fail_on_correlational_flags() -> None:
    res = invoke(PF, "--at-step", "call-llm#40", "--json", "--fail-on", "no-control-deps")
    assert res.exit_code == 1 and json.loads(res.stdout)["step"] == "call-llm#40"
    assert "no-control-deps" in res.stderr
    assert invoke(PF, "--at-step", "call-llm#40", "--fail-on", "any").exit_code == 1
    assert invoke(PF, "--at-step", "call-llm#40", "--fail-on", "slice-truncated").exit_code == 0


# ----------------------------------------------------------------------- causal replay

CAUSAL = {
    "causal": ["--comparator", "contains:APPROVED"],
    "causal-baseline-unstable": ["--comparator", "contains:APPROVED"],
    "causal-default-comparator-cost": [
        "--samples",
        "4",
        "--flip-threshold",
        "0.98",
        "--max-ablations",
        "3",
    ],
}


@pytest.mark.parametrize("name", list(CAUSAL))
def test_replay_causal_reports(name: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    cmd = f"{PY} {REPLAY} {name} --state {state}"
    res = invoke_up(PF, "--at-step", "call-llm#40", "--rerun", cmd, *CAUSAL[name], "--json")
    assert res.exit_code == 0, res.stderr
    expected = json.loads((UP / f"planted-fact.report.{name}.json").read_text())
    assert same(json.loads(res.stdout), expected)
    log = json.loads((UP / "planted-fact.rerun-log.json").read_text())["calls"]
    assert int(state.read_text()) == sum(1 for c in log if c["report"] == name)


def test_replay_with_jobs_counts_in_seed_order() -> None:
    cmd = f"{PY} {REPLAY} causal-default-comparator-cost"
    res = invoke_up(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        cmd,
        "--jobs",
        "4",
        *CAUSAL["causal-default-comparator-cost"],
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    expected = json.loads(
        (UP / "planted-fact.report.causal-default-comparator-cost.json").read_text()
    )
    assert same(json.loads(res.stdout), expected)


def test_causal_text_and_terminal() -> None:
    cmd = f"{PY} {REPLAY} causal"
    res = invoke_up(
        PF, "--at-step", "call-llm#40", "--rerun", cmd, *CAUSAL["causal"], "--format", "text"
    )
    assert res.exit_code == 0
    assert "mode: CAUSAL — " in res.stdout
    assert "    verdict: CAUSAL: ablating injection 'vip-override-fact'" in res.stdout
    assert (
        "    runs: 3/3 flipped · similarity to original 0.970 ± 0.000 [0.970, 0.970]" in res.stdout
    )
    assert "baseline (no ablation): 0/3 flipped · similarity 1.000 ± 0.000" in res.stdout
    res = invoke(PF, "--at-step", "call-llm#40", "--rerun", cmd, *CAUSAL["causal"], "--details")
    assert "CAUSAL — verdicts are the only causal claims" in res.stdout
    assert "baseline (no ablation)" in res.stdout
    # upstream's order puts the never-tested seed#0 first: the headline must not read as if the
    # reruns had blamed it, and it names what they did confirm
    up = invoke_up(PF, "--at-step", "call-llm#40", "--rerun", cmd, *CAUSAL["causal"])
    head = " ".join(" ".join(up.stdout.splitlines()[:3]).split())  # the headline wraps at 80
    assert "top suspect arg 'seed#0' at seed#0, score 0.923≤ (not rerun-tested)" in head
    assert "confirmed: injection 'vip-override-fact'" in head


_afp = functools.partial(afp_proc, "bisect", cwd=ROOT)  # afp bisect …, as a real process


def test_ci_gate_subprocess() -> None:
    """The documented CI recipe, as a real process: unstable → exit 1, stable → exit 0."""
    unstable = _afp(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        f"{PY} {REPLAY} causal-baseline-unstable",
        "--comparator",
        "contains:APPROVED",
        "--fail-on",
        "baseline-unstable",
    )
    assert unstable.returncode == 1, unstable.stderr
    assert "baseline-unstable" in unstable.stderr and "Suspects" in unstable.stdout
    stable = _afp(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        f"{PY} {REPLAY} causal",
        "--comparator",
        "contains:APPROVED",
        "--fail-on",
        "baseline-unstable",
        "--json",
    )
    assert stable.returncode == 0, stable.stderr
    assert json.loads(stable.stdout)["mode"] == "causal"


MODEL = (
    "import json, sys\n"
    "req = json.load(sys.stdin)\n"
    "gone = {i for s in req.get('specs', []) for i in s.get('excludeInjectionIds', [])}\n"
    "back = {u['id'] for u in req.get('restore', [])}\n"
    "bad = 'vip-override-fact' in gone or 'refund-policy' in back\n"
    "print('Refund DECLINED: outside the window.' if bad else "
    "'Refund APPROVED: Dana Reyes holds VIP tier override status, so the 47-day-old order "
    "qualifies for a refund beyond the 30-day window.')\n"
)


def _model(tmp_path: Path) -> str:
    p = tmp_path / "model.py"
    p.write_text(MODEL)
    return f"{PY} {p}"


def test_culprits_cli(tmp_path: Path) -> None:
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        _model(tmp_path),
        "--comparator",
        "contains:APPROVED",
        "--culprits",
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    rep = json.loads(res.stdout)
    # after every upstream key
    assert list(rep)[-4:] == ["culprits", "embedder", "ranking", "evidenceScoring"]
    assert rep["culprits"]["verdict"] == "confirmed"
    assert [[c["label"] for c in g] for g in rep["culprits"]["culprits"]] == [
        ["injection 'vip-override-fact'"]
    ]
    assert rep["culprits"]["probes"][0]["ablated"] == []
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        _model(tmp_path),
        "--comparator",
        "contains:APPROVED",
        "--culprits",
    )
    assert "culprit search: confirmed" in res.stdout


def test_missing_context_cli(tmp_path: Path) -> None:
    mc = tmp_path / "mc.json"
    mc.write_text(
        json.dumps(
            {
                "available": [{"id": "a"}, {"id": "refund-policy", "content": "30 days."}],
                "sent": [{"id": "a"}],
            }
        )
    )
    res = invoke(PF, "--at-step", "call-llm#40", "--missing-context", str(mc), "--json")
    assert res.exit_code == 0
    rep = json.loads(res.stdout)
    assert rep["dropped"] == [{"id": "refund-policy", "content": "30 days."}]
    assert rep["mode"] == "correlational"
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--missing-context",
        str(mc),
        "--rerun",
        _model(tmp_path),
        "--comparator",
        "contains:APPROVED",
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    rep = json.loads(res.stdout)
    assert list(rep).index("dropped") < list(rep).index("sliceStats")
    assert list(rep)[-5:] == [
        "baseline",
        "restorationBaseline",
        "embedder",
        "ranking",
        "evidenceScoring",
    ]
    assert rep["dropped"][0]["verdict"]["verdict"] == "confirmed"
    assert "restoring" in rep["dropped"][0]["verdict"]["claim"]
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--missing-context",
        str(mc),
        "--rerun",
        _model(tmp_path),
        "--comparator",
        "contains:APPROVED",
        "--format",
        "text",
    )
    assert "MISSING CONTEXT (1 dropped" in res.stdout and "[dropped 'refund-policy']" in res.stdout


# ----------------------------------------------------------------------- rerun failures


def _script(tmp_path: Path, body: str) -> str:
    p = tmp_path / "rerun.py"
    p.write_text("import json, sys, os, subprocess, time\nreq = json.load(sys.stdin)\n" + body)
    return f"{PY} {p}"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("sys.stderr.write('boom: model unreachable\\n'); sys.exit(4)\n", "exited with status 4"),
        ("sys.stdout.buffer.write(b'\\xff\\xfe garbage')\n", "not UTF-8"),
        ("print('{not json')\n", "malformed JSON"),
        ("print(json.dumps({'answer': 'x'}))\n", "wrong shape"),
        ("print(json.dumps({'output': 'x', 'cost': {'loops': 'many'}}))\n", "wrong shape"),
        ("pass\n", "printed nothing"),
    ],
)
def test_rerun_failures_exit_3(tmp_path: Path, body: str, needle: str) -> None:
    res = invoke(PF, "--at-step", "call-llm#40", "--rerun", _script(tmp_path, body))
    assert res.exit_code == 3, res.output
    assert needle in res.stderr
    assert "probe 'baseline', seed 0" in res.stderr
    if "boom" in body:
        assert "boom: model unreachable" in res.stderr


def test_rerun_timeout_kills_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    body = (
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"open({str(pidfile)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(300)\n"
    )
    start = time.monotonic()
    res = _afp(
        PF, "--at-step", "call-llm#40", "--rerun", _script(tmp_path, body), "--rerun-timeout", "1"
    )
    assert time.monotonic() - start < 60
    assert res.returncode == 3
    assert "timed out after 1 s" in res.stderr and "seed 0" in res.stderr
    pids = [int(x) for x in pidfile.read_text().split()]
    time.sleep(0.3)
    assert not any(process_alive(p) for p in pids), "a rerun process outlived afp"


def test_background_child_of_successful_rerun_is_reaped(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    body = (
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        f"open({str(pidfile)!r}, 'a').write(f'{{child.pid}} ')\n"
        "print('Refund APPROVED')\n"
    )
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        _script(tmp_path, body),
        "--samples",
        "2",
        "--max-ablations",
        "1",
        "--comparator",
        "contains:APPROVED",
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    time.sleep(0.3)
    pids = [int(x) for x in pidfile.read_text().split()]
    assert len(pids) == 4 and not any(process_alive(p) for p in pids)


def test_rerun_request_shape(tmp_path: Path) -> None:
    log = tmp_path / "reqs"
    body = f"open({str(log)!r}, 'a').write(json.dumps(req) + '\\n')\nprint('plain text answer')\n"
    res = invoke(
        PF,
        "--at-step",
        "call-llm#40",
        "--rerun",
        _script(tmp_path, body),
        "--samples",
        "2",
        "--max-ablations",
        "1",
        "--comparator",
        "regex:APPROVED",
        "--json",
    )
    assert res.exit_code == 0, res.stderr
    reqs = [json.loads(x) for x in log.read_text().splitlines()]
    assert reqs[0] == {"specs": [], "seed": 0, "step": "call-llm#40", "probe": "baseline"}
    assert list(reqs[2]) == ["specs", "seed", "step", "probe"]
    assert reqs[2]["specs"] == [{"kind": "injection", "excludeInjectionIds": ["vip-override-fact"]}]
    assert reqs[2]["probe"] == "context#6"
    rep = json.loads(res.stdout)
    assert rep["baseline"]["flips"] == 2  # plain text lacks APPROVED: both samples flip
