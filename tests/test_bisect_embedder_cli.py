"""``afp bisect`` with real embedders and evidence-first ranking, end to end: the default, the
fallback notice, ``--embedder cmd:`` (one process per localization, the cache, exit 3),
``--expected``, ``--ranking``, and what ``--upstream`` refuses."""

from __future__ import annotations

import json
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentbisect.bisect.embed import wordllama as wordllama_embed
from tests.conftest import MINI, PLANTED, ROOT, afp_import_probe, cli, loaded_modules

PY = shlex.quote(sys.executable)
PF = str(PLANTED)
needs_wordllama = pytest.mark.skipif(
    not wordllama_embed.wordllama_available(), reason="the embed extra is not installed"
)


def bisect(*args: str) -> Any:
    return cli("bisect", *args)


def ident(s: dict[str, Any]) -> str:
    d = s.get("detail") or {}
    return str(d.get("injectionId") or d.get("toolName") or s["source"])


def embedder_script(tmp_path: Path) -> tuple[str, Path]:
    """A cmd: embedder that logs each batch it gets and answers 3-d vectors."""
    log = tmp_path / "batches.jsonl"
    script = tmp_path / "embed.py"
    script.write_text(
        "import json, sys\n"
        "texts = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(json.dumps(len(texts)) + '\\n')\n"
        "print(json.dumps([[len(t) + 1.0, t.count('e') + 1.0, 2.0] for t in texts]))\n",
        encoding="utf-8",
    )
    return f"cmd:{PY} {shlex.quote(str(script))}", log


@needs_wordllama
def test_default_is_wordllama_evidence_first_and_finds_the_planted_fact() -> None:
    res = bisect(PF, "--at-step", "call-llm#40", "--json")
    assert res.exit_code == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["embedder"].startswith("wordllama 0.4.0.post1")
    assert rep["ranking"] == "evidence-first" and rep["rankedBy"] == "semantic-alignment"
    assert ident(rep["suspects"][0]) == "vip-override-fact"
    top = rep["suspects"][0]["evidence"]
    assert top["text"].startswith("Customer Dana Reyes holds VIP tier override status")
    assert set(top["signals"]) == {"semantic", "terms", "phrases", "claims", "focus", "claimShape"}
    assert "mock-embedder" not in [f["flag"] for f in rep["honestyFlags"]]
    # the table: the best-evidenced suspect first, with what it said
    table = bisect(PF, "--at-step", "call-llm#40", "--details")
    assert table.exit_code == 0
    assert "evidence-first" in table.stdout and "Where each suspect says it" in table.stdout
    first = next(line for line in table.stdout.splitlines() if line.startswith("│ 1 "))
    assert "vip-override-fact" in first
    said = table.stdout.split("Where each suspect says it", 1)[1].splitlines()[1:3]
    assert said[0].startswith(" 1 vip-override-fact") and "Customer Dana Reyes" in said[1]
    # the one screen: its passage on the line under its row
    glance = bisect(PF, "--at-step", "call-llm#40").stdout.splitlines()
    row = next(i for i, line in enumerate(glance) if line.startswith("1  injection"))
    assert "vip-override-fact" in glance[row] and "Customer Dana Reyes" in glance[row + 1]


def test_fallback_to_mock_says_so_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wordllama_embed, "wordllama_available", lambda: False)
    res = bisect(PF, "--at-step", "call-llm#40", "--json")
    assert res.exit_code == 0
    notes = [line for line in res.stderr.splitlines() if "mock embedder" in line]
    assert len(notes) == 1 and "pip install 'agentbisect[embed]'" in notes[0]
    rep = json.loads(res.stdout)
    assert rep["embedder"] == "mock"
    assert "mock-embedder" in [f["flag"] for f in rep["honestyFlags"]]
    # --upstream is defined for the mock: no notice, no afp fields, no afp flag
    up = bisect(PF, "--at-step", "call-llm#40", "--json", "--upstream")
    assert "mock embedder" not in up.stderr
    up_rep = json.loads(up.stdout)
    assert "embedder" not in up_rep and "ranking" not in up_rep
    assert all("evidence" not in s for s in up_rep["suspects"])


def test_ranking_upstream_keeps_upstream_order_with_any_embedder() -> None:
    up = json.loads(bisect(PF, "--at-step", "call-llm#40", "--json", "--upstream").stdout)
    same = json.loads(
        bisect(
            PF, "--at-step", "call-llm#40", "--json", "--embedder", "mock", "--ranking", "upstream"
        ).stdout
    )
    assert all(s.pop("sourceKind") for s in same["suspects"])  # (afp's field)
    assert same["suspects"] == up["suspects"]
    ev = json.loads(bisect(PF, "--at-step", "call-llm#40", "--json", "--embedder", "mock").stdout)
    assert ev["ranking"] == "evidence-first"
    assert ident(up["suspects"][0]) == "seed#0"  # upstream: a path-only upper bound first
    assert ident(ev["suspects"][0]) == "vip-override-fact"


@pytest.mark.parametrize(
    "extra",
    [
        ("--embedder", "wordllama"),
        ("--embedder", "cmd:true"),
        ("--ranking", "evidence-first"),
        ("--expected", "Refund declined."),
    ],
)
def test_upstream_refuses_afp_ranking_options(extra: tuple[str, str]) -> None:
    res = bisect(PF, "--at-step", "call-llm#40", "--upstream", *extra)
    assert res.exit_code == 2
    assert "--upstream" in res.stderr and "Traceback" not in res.stderr


def test_cmd_embedder_one_process_per_localization_and_the_cache(tmp_path: Path) -> None:
    spec, log = embedder_script(tmp_path)
    res = bisect(PF, "--at-step", "call-llm#40", "--json", "--embedder", spec)
    assert res.exit_code == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["embedder"] == spec and rep["ranking"] == "evidence-first"
    assert len(log.read_text().splitlines()) == 1  # every text of the localization, one batch
    # a second run is served from the on-disk cache: no process at all
    again = bisect(PF, "--at-step", "call-llm#40", "--json", "--embedder", spec)
    assert json.loads(again.stdout) == rep
    assert len(log.read_text().splitlines()) == 1
    # --no-cache embeds again
    bisect(PF, "--at-step", "call-llm#40", "--json", "--embedder", spec, "--no-cache")
    assert len(log.read_text().splitlines()) == 2


def test_cmd_embedder_failure_exits_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.stderr.write('no GPU\\n')\nsys.exit(1)\n")
    res = bisect(PF, "--at-step", "call-llm#40", "--embedder", f"cmd:{PY} {bad}")
    assert res.exit_code == 3
    assert "embedder command" in res.stderr and "no GPU" in res.stderr
    assert "Traceback" not in res.stderr
    assert bisect(PF, "--at-step", "call-llm#40", "--embedder", "bert").exit_code == 2


def test_similarity_comparator_uses_the_chosen_embedder(tmp_path: Path) -> None:
    spec, _ = embedder_script(tmp_path)
    rerun = tmp_path / "rerun.py"
    rerun.write_text("import json, sys\njson.load(sys.stdin)\nprint('Refund declined.')\n")
    original = "Refund approved for Dana."
    res = bisect(
        PF,
        "--at-step",
        "call-llm#40",
        "--json",
        "--embedder",
        spec,
        "--rerun",
        f"{PY} {rerun}",
        "--original-output",
        original,
        "--max-ablations",
        "0",
    )
    assert res.exit_code == 0, res.stderr
    base = json.loads(res.stdout)["baseline"]

    def vec(t: str) -> list[float]:
        return [len(t) + 1.0, t.count("e") + 1.0, 2.0]

    a, b = vec(original), vec("Refund declined.")
    dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    na = math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    nb = math.sqrt(b[0] ** 2 + b[1] ** 2 + b[2] ** 2)
    assert base["similarity"]["mean"] == pytest.approx(dot / (na * nb), abs=1e-12)
    assert "mock embedder" not in res.stderr  # no mock warning for a real embedder


def test_expected_makes_scores_contrastive(tmp_path: Path) -> None:
    right = "Refund declined: order A-1001 is outside the 30-day window."
    res = bisect(
        PF, "--at-step", "call-llm#40", "--json", "--embedder", "mock", "--expected", right
    )
    assert res.exit_code == 0
    rep = json.loads(res.stdout)
    assert rep["contrastive"] is True
    assert ident(rep["suspects"][0]) == "vip-override-fact"
    f = tmp_path / "right.txt"
    f.write_text(right, encoding="utf-8")
    from_file = bisect(
        PF, "--at-step", "call-llm#40", "--json", "--embedder", "mock", "--expected", f"@{f}"
    )
    assert json.loads(from_file.stdout) == rep
    missing = bisect(PF, "--at-step", "call-llm#40", "--expected", f"@{tmp_path / 'nope'}")
    assert missing.exit_code == 2 and "nope" in missing.stderr and "Traceback" not in missing.stderr


@needs_wordllama
def test_real_process_default_run(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentbisect",
            "bisect",
            str(MINI / "mini-a.json"),
            "--json",
            "--at-step",
            "llm#6",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["ranking"] == "evidence-first" and rep["embedder"].startswith("wordllama")
    assert out.stderr == ""  # no notice when the extra is installed


@needs_wordllama
def test_a_run_served_from_the_cache_loads_no_model(tmp_path: Path) -> None:
    argv = ["bisect", PF, "--at-step", "call-llm#40", "--json"]
    heavy = ("numpy", "tokenizers")
    first = afp_import_probe(*argv, among=heavy, cwd=ROOT)
    second = afp_import_probe(*argv, among=heavy, cwd=ROOT)
    assert loaded_modules(first) == {"numpy", "tokenizers"}
    assert loaded_modules(second) == set()  # every vector from the cache
    assert json.loads(second.stdout) == json.loads(first.stdout)


def test_report_is_the_same_whatever_the_hash_seed() -> None:
    """Set order changes with PYTHONHASHSEED; the evidence sums must not (CI compares reports)."""
    trace = Path(__file__).resolve().parent.parent / "fixtures/otel"
    trace = trace / "oaiv2-2.4b0-span-only.tool-planted.otlp.json"
    outs = set()
    for seed in ("1", "2", "3", "4"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "agentbisect",
                "bisect",
                str(trace),
                "--at-llm",
                "-1",
                "--json",
                "--embedder",
                "mock",
                "--no-cache",
            ],
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        outs.add(proc.stdout)
    assert len(outs) == 1
