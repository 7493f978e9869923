"""``afp bisect --attribution surrogate`` end to end on the spec's fixture A, with the ground-truth
fake rerun command (tests/fake_rerun.py) speaking the real rerun protocol."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from typing import Any

from agentbisect.core.honesty import FLAGS
from tests.conftest import MINI, ROOT, cli

MINI_A = str(MINI / "mini-a.json")
FAKE = str(ROOT / "tests" / "fake_rerun.py")
PY = shlex.quote(sys.executable)
# fixture A's ablatable suspects: tool 'lookup' (#4), injection 'promo-fact' (#5), memory 'm-7'
# (#6), injection 'tone-skill' (#7); stage and arg suspects have no spec


def fake(truth: str, *extra: str) -> str:
    return " ".join([PY, shlex.quote(FAKE), "--truth", truth, *extra])


def invoke(truth: str, *args: str, fake_args: tuple[str, ...] = ()) -> Any:
    return cli(
        "bisect",
        MINI_A,
        "--at-step",
        "llm#6",
        "--rerun",
        fake(truth, *fake_args),
        "--comparator",
        "contains:APPROVED",
        "--original-output",
        "Refund APPROVED",
        "--attribution",
        "surrogate",
        # written for upstream's order of suspects (the evidence-first order has its own tests)
        "--embedder",
        "mock",
        "--ranking",
        "upstream",
        *args,
    )


def test_or_culprits_on_top_in_json_with_the_report_unchanged_around_them() -> None:
    res = invoke("or:promo-fact,lookup", "--masks", "16", "--jobs", "2", "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["mode"] == "causal"
    assert rep["baseline"]["samples"] == 3 and rep["baseline"]["flips"] == 0
    # the surrogate replaces leave-one-out: no suspect carries a verdict, the ranking is kept
    assert all("verdict" not in s and "runs" not in s for s in rep["suspects"])
    assert [s["source"] for s in rep["suspects"]][:4] == ["llm#2", "route#3", "seed#0", "tool#4"]
    assert list(rep)[-3:] == ["attribution", "embedder", "ranking"]
    a = rep["attribution"]
    assert a["method"] == "surrogate" and a["masks"] == 16 and a["keepProb"] == 0.5
    assert a["rerunsUsed"] == 3 + 16
    assert a["fit"]["metric"] == "heldout-r2"
    assert {w["id"] for w in a["weights"][:2]} == {"promo-fact", "lookup"}
    top = {w["id"]: w for w in a["weights"]}
    assert top["promo-fact"]["label"] == "injection 'promo-fact'"
    assert top["promo-fact"]["sources"] == ["ctx#1"] and top["promo-fact"]["suspectRanks"] == [5]
    assert top["lookup"]["kind"] == "tool" and top["lookup"]["suspectRanks"] == [4]
    assert [abs(w["weight"]) for w in a["weights"]] == sorted(
        (abs(w["weight"]) for w in a["weights"]), reverse=True
    )
    # every rerun reported a cost; 1000 tokens minus 10 per removed source
    assert a["cost"]["runs"] == 19 and a["cost"]["loops"] == 19
    assert "surrogate-unreliable" not in [f["flag"] for f in rep["honestyFlags"]]


def test_text_names_the_culprit_set_found_by_the_search() -> None:
    res = invoke("or:promo-fact,lookup", "--masks", "16", "--culprits", "--format", "text")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "ATTRIBUTION (surrogate over 16 random ablation masks, keep 0.5, seed 0;" in out
    assert "held-out R² " in out and "on masks left out of the fit" in out
    assert (
        "the answer flips only when both tool 'lookup' and injection 'promo-fact' are removed"
        in out
    )
    # the attribution section sits after the suspects and before the baseline line
    assert out.index("SUSPECTS (7") < out.index("ATTRIBUTION") < out.index("baseline (no ablation)")


def test_table_shows_the_attribution_after_the_suspects() -> None:
    res = invoke("one:promo-fact", "--masks", "12")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert out.index("Suspects (7)") < out.index("Attribution (surrogate: 12 masks")
    assert "promo-fact" in out.split("Attribution (surrogate")[1]
    assert "fit: held-out R²" in out


def test_coin_flips_raise_surrogate_unreliable_and_gate() -> None:
    res = invoke("coin", "--masks", "12", "--format", "text", "--fail-on", "surrogate-unreliable")
    assert res.exit_code == 1, res.output
    assert "⚠ [surrogate-unreliable] held-out R²" in res.stdout
    assert "NOT TRUSTWORTHY" in res.stdout
    assert "gate tripped" in res.output


def test_unstable_baseline_still_applies_and_gates() -> None:
    res = invoke(
        "one:promo-fact",
        "--masks",
        "12",
        "--json",
        "--fail-on",
        "baseline-unstable",
        fake_args=("--noise", "0.5", "--noise-seed", "1"),  # flips baseline seed 2
    )
    assert res.exit_code == 1, res.output
    rep = json.loads(res.stdout)
    assert rep["baseline"]["flips"] > 0
    flags = [f["flag"] for f in rep["honestyFlags"]]
    # where upstream puts the ablation baseline flag: right after the slice flags
    assert flags.index("baseline-unstable") == 1 and flags[0] == "untracked-sources"


def test_usage_errors() -> None:
    up = invoke("one:promo-fact", "--upstream")
    assert up.exit_code == 2 and "--attribution is an afp extension" in up.output
    no_rerun = cli("bisect", MINI_A, "--at-step", "llm#6", "--attribution", "surrogate")
    assert no_rerun.exit_code == 2 and "needs --rerun" in no_rerun.output
    few = invoke("one:promo-fact", "--masks", "5")
    assert few.exit_code == 2
    prob = invoke("one:promo-fact", "--keep-prob", "1")
    assert prob.exit_code == 2 and "strictly between 0 and 1" in prob.output
    method = invoke("one:promo-fact", "--attribution", "shapley")
    assert method.exit_code == 2


def test_failing_rerun_command_exits_3() -> None:
    res = invoke("bogus:x", "--masks", "10")
    assert res.exit_code == 3
    assert "rerun command" in res.output and "failed" in res.output


def test_real_subprocess_json_is_reproducible() -> None:
    argv = [
        sys.executable,
        "-m",
        "agentbisect",
        "bisect",
        MINI_A,
        "--at-step",
        "llm#6",
        "--rerun",
        fake("and:m-7,tone-skill"),
        "--comparator",
        "contains:APPROVED",
        "--original-output",
        "Refund APPROVED",
        "--attribution",
        "surrogate",
        "--masks",
        "12",
        "--mask-seed",
        "4",
        "--jobs",
        "2",
        "--json",
    ]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]  # the test's cache, not ~/.cache
    first = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr.decode()
    again = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    assert first.stdout == again.stdout
    a = json.loads(first.stdout)["attribution"]
    assert a["maskSeed"] == 4
    assert {w["id"] for w in a["weights"][:2]} == {"m-7", "tone-skill"}


def test_the_flag_is_registered() -> None:
    assert FLAGS["surrogate-unreliable"].source == "bisect"
