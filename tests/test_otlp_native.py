"""``afp aggregate``'s native OTLP path (``importers/otlp_native.py`` over the C extension
``agentbisect._otlpscan``) gives the very bytes of the full path, engages where it is meant to,
and — wherever it declines — leaves the command's output unchanged.

``otlp_aggregate.fast_result`` asks the native path first, then the Python walk, then (``None``)
the command takes the full path. Every comparison here runs ``afp aggregate`` through the CLI:

- native on: ``otlp_native.ENABLED`` and ``otlp_aggregate.ENABLED`` True (what a user runs);
- native off: ``otlp_native.ENABLED`` False (the Python fast path), run whenever the native path
  answered, so a difference shows which of the two is wrong;
- the full path: ``otlp_aggregate.ENABLED`` False (the reference);

and exit code, stdout, stderr (and an ``-o`` file) must be identical. ``otlp_native.ANSWERED``
counts the runs the native path answered: the benchmark's traces must be answered (else these
tests prove nothing), and the share it answers of the plain flat generated traces is printed by
``test_summary`` (``pytest -s``) and held above ``FLAT_SHARE_MIN``.

The inputs: every named case of ``tests/otlp_cases.py``, every file in ``fixtures/otel``, the
benchmark's trace (``benchmarks/otlp_gen.py``) at several sizes and options, ~30 damaged copies
of its 5003-span trace and more of a 41-span one (``MUTATIONS``; answered or declined, the
output must be the full path's; which one is recorded), and hypothesis-drawn flat traces.

Where the native and the Python path both decline a mutation (decided by calling them directly),
the command's output is the full path's by construction and the CLI runs are skipped
(``AFP_NATIVE_THOROUGH=1`` runs them anyway). A missing or unbuilt extension FAILS every test
(``AVAILABLE`` False): CI builds it, and a skip would hide a broken build.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentbisect.aggregate import aggregate
from agentbisect.cli.app import app
from agentbisect.importers import otlp_aggregate
from agentbisect.run import open_run
from tests.conftest import ROOT
from tests.otlp_cases import Case, Form, Knobs, bench_case, cases, make_case, named_cases

sys.path.insert(0, str(ROOT / "benchmarks"))
import otlp_gen

NATIVE = "agentbisect.importers.otlp_native"
THOROUGH = os.environ.get("AFP_NATIVE_THOROUGH") == "1"
COLUMNS = "100"
OTEL = ROOT / "fixtures" / "otel"
LOGS = {p.name.replace(".logs.otlp.json", ".otlp.json"): p for p in OTEL.glob("*.logs.otlp.json")}
FIXTURES = sorted(
    p
    for p in OTEL.iterdir()
    if p.suffix in (".json", ".jsonl") and not p.name.endswith(".truth.json")
)
NAMED = named_cases()
BENCH_SIZES = (3, 7, 201, 5003)
# The least share of the plain flat generated traces (current GenAI, content on the spans, one
# run of chat and tool spans under the root, call ids on the tools) the native path must answer:
# all of them, in start order or in end order (what exporters write; the table walk then).
FLAT_SHARE_MIN = 1.0


# ----------------------------------------------------------------- the module under test


def load_native() -> ModuleType:
    """``otlp_native``, built: a clear failure (never a skip) otherwise."""
    try:
        mod = importlib.import_module(NATIVE)
    except ImportError as e:
        pytest.fail(f"{NATIVE} does not import ({e!r}): the native aggregate path is missing")
    if not getattr(mod, "AVAILABLE", False):
        pytest.fail(
            f"{NATIVE}.AVAILABLE is False: the C extension agentbisect._otlpscan did not import "
            "(not built, or built for another Python). Build it (pip install -e . with gcc); "
            "these tests refuse to skip so that a broken build cannot pass CI."
        )
    for name in ("ENABLED", "ANSWERED", "result"):
        assert hasattr(mod, name), f"{NATIVE} has no {name}"
    return mod


@pytest.fixture(scope="module")
def native() -> ModuleType:
    return load_native()


# ----------------------------------------------------------------- running the command three ways

Outcome = tuple[int, bytes, bytes, bytes | None]


def _invoke(args: list[str], out: Path | None = None) -> Outcome:
    if out is not None and out.exists():
        out.unlink()
    res = CliRunner().invoke(app, ["aggregate", *args], env={"COLUMNS": COLUMNS})
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"afp aggregate {args} crashed") from res.exception
    written = out.read_bytes() if out is not None and out.exists() else None
    return res.exit_code, res.stdout_bytes, res.stderr_bytes, written


def first_difference(a: bytes, b: bytes) -> str:
    """Where two byte strings first differ: offset, line, and the bytes around it in each."""
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    line = a.count(b"\n", 0, n) + 1
    lo = max(0, n - 60)
    return (
        f"first difference at byte {n} (line {line}; lengths {len(a)} full, {len(b)} other)\n"
        f"  full:  {a[lo : n + 80]!r}\n  other: {b[lo : n + 80]!r}"
    )


def describe(full: Outcome, other: Outcome, label: str = "native") -> str:
    parts = []
    for name, a, b in zip(("exit code", "stdout", "stderr", "-o file"), full, other, strict=True):
        if a == b:
            continue
        if not isinstance(a, bytes) or not isinstance(b, bytes):
            parts.append(f"{name}: {a!r} (full) != {b!r} ({label})")
            continue
        diff = difflib.unified_diff(
            a.decode(errors="replace").splitlines(),
            b.decode(errors="replace").splitlines(),
            "full",
            label,
            lineterm="",
            n=1,
        )
        parts.append(f"{name}: {first_difference(a, b)}\n" + "\n".join(list(diff)[:40]))
    return "\n".join(parts)


@dataclass
class Run:
    """One option set on one file: what each path gave, and who answered."""

    args: list[str]
    full: Outcome
    native: Outcome | None  # None: not run (both fast paths declined: it is the full path)
    python: Outcome | None  # the native-off run (only where the native path answered)
    native_answered: bool
    python_answered: bool | None  # (None: not known)

    def mismatch(self) -> str:
        out = []
        if self.native is not None and self.native != self.full:
            out.append(
                f"NATIVE ON differs from the full path (native answered: {self.native_answered})"
                f"\n{describe(self.full, self.native, 'native')}"
            )
        if self.python is not None and self.python != self.full:
            out.append(
                f"NATIVE OFF (Python fast path) differs from the full path\n"
                f"{describe(self.full, self.python, 'python')}"
            )
        return "\n".join(out)


class Paths:
    """Flips the two flags (through a MonkeyPatch) and counts who answered each run."""

    def __init__(self, native: ModuleType, mp: pytest.MonkeyPatch) -> None:
        self.native, self.mp = native, mp
        self.fast_answered = 0
        real = otlp_aggregate.fast_result

        def spy(*a: Any, **kw: Any) -> Any:
            got = real(*a, **kw)
            self.fast_answered += got is not None
            return got

        mp.setattr(otlp_aggregate, "fast_result", spy)
        command = importlib.import_module("agentbisect.commands.aggregate")
        if getattr(command, "fast_result", None) is real:
            mp.setattr(command, "fast_result", spy)

    def mode(self, name: str) -> None:
        self.mp.setattr(otlp_aggregate, "ENABLED", name != "full")
        self.mp.setattr(self.native, "ENABLED", name == "native")

    def invoke(self, name: str, args: list[str], out: Path | None) -> tuple[Outcome, bool, bool]:
        """(outcome, native answered, a fast path answered)"""
        self.mode(name)
        n0, f0 = self.native.ANSWERED, self.fast_answered
        got = _invoke(args, out)
        return got, n0 < self.native.ANSWERED, self.fast_answered > f0

    def run(self, args: list[str], out: Path | None = None, triangulate: bool = True) -> Run:
        nat, nat_answered, fast_answered = self.invoke("native", args, out)
        full, n_full, f_full = self.invoke("full", args, out)
        assert not (n_full or f_full), (
            f"a fast path answered with otlp_aggregate.ENABLED False: {args}"
        )
        python = None
        python_answered: bool | None = fast_answered and not nat_answered
        # (where the native path declined, the native-off run is the native-on run)
        if (nat_answered and triangulate) or nat != full:
            python, n_py, python_answered = self.invoke("python", args, out)
            assert not n_py, f"{NATIVE}.ENABLED False, yet the native path answered: {args}"
        self.mode("native")
        return Run(args, full, nat, python, nat_answered, python_answered)


@contextlib.contextmanager
def paths(native: ModuleType) -> Iterator[Paths]:
    with pytest.MonkeyPatch.context() as mp:
        yield Paths(native, mp)


def direct(native: ModuleType, f: Path, show_all: bool = False, drill: str | None = None) -> Any:
    """The native path's answer on ``f``, asked directly (None: declined, or not an OTLP file
    the fast path maps at all)."""
    mm = otlp_aggregate._open(str(f))
    if mm is None:
        return None
    try:
        return native.result(str(f), mm, show_all, drill)
    finally:
        with contextlib.suppress(BufferError):
            mm.close()


def python_direct(native: ModuleType, f: Path) -> Any:
    """The Python fast path's answer on ``f`` (the native path switched off)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(otlp_aggregate, "ENABLED", True)
        mp.setattr(native, "ENABLED", False)
        return otlp_aggregate.fast_result(str(f))


# ----------------------------------------------------------------- the record (test_summary)


@dataclass
class Tally:
    cases: int = 0
    runs: int = 0
    answered: int = 0  # runs the native path answered
    json_answered: int = 0  # cases whose --json it answered
    names: list[str] = field(default_factory=list)  # cases whose --json it declined


TALLY: dict[str, Tally] = {}
MUTATION_LOG: dict[str, str] = {}


def record(kind: str, name: str, runs: list[Run]) -> None:
    t = TALLY.setdefault(kind, Tally())
    t.cases += 1
    t.runs += len(runs)
    t.answered += sum(r.native_answered for r in runs)
    if runs and runs[0].native_answered:
        t.json_answered += 1
    else:
        t.names.append(name)


def check_file(
    native: ModuleType,
    f: Path,
    option_sets: list[list[str]],
    out: Path | None = None,
    triangulate: bool = True,
) -> list[Run]:
    """Each option set on ``f``, three ways (``triangulate`` False: the native-off run only
    where the native-on one differs); every difference from the full path fails."""
    runs: list[Run] = []
    with paths(native) as p:
        for opts in option_sets:
            r = p.run([str(f), *opts], out if "-o" in opts else None, triangulate)
            runs.append(r)
            problem = r.mismatch()
            assert not problem, f"afp aggregate {r.args}:\n{problem}"
    return runs


def drills(full_json: bytes) -> list[str]:
    """Groups to ``--drill`` into: the root's id, its id without ``#N``, a label, a deep one."""
    try:
        doc = json.loads(full_json)
    except ValueError:
        return []
    picks = ["__root__#0", "__root__", "Run"]
    aggs = doc.get("aggregates") or []
    if aggs:
        deepest = max(aggs, key=lambda a: len(a.get("subflowPath", [])))
        picks += [deepest["runtimeStageId"], aggs[0]["label"]]
    return list(dict.fromkeys(picks))


def more_options(full_json: bytes, out: Path, wide: bool) -> list[list[str]]:
    """Beyond --json: the table (the default), --all, drills; with ``wide`` also -o, a drill
    into no group, the table explicitly and --all --json."""
    sets: list[list[str]] = [[], ["--all"]]
    groups = drills(full_json)
    sets += [["--drill", g] for g in groups[:2]]
    if wide:
        sets += [["--all", "--json"], ["--format", "table"], ["--json", "-o", str(out)]]
        sets += [["--drill", g, "--json"] for g in groups]
        sets += [["--drill", "no-such-group"], ["--drill", "__root__#0", "--all"]]
    return sets


def declined(native: ModuleType, f: Path, extra: list[str]) -> bool:
    """Whether the native path declines ``afp aggregate f --json`` (asked directly; with
    ``--logs`` it is not asked at all). Then the command's output with it on is the Python
    path's (``tests/test_aggregate_paths_agree.py`` holds that one to the full path), so the
    runs are skipped — unless ``AFP_NATIVE_THOROUGH=1``."""
    if THOROUGH:
        return False
    if extra:
        return True
    try:
        return direct(native, f) is None
    except Exception as e:  # (declining is returning None; anything raised is a bug)
        raise AssertionError(f"{NATIVE}.result raised on {f.name}: {e!r}") from e


# ----------------------------------------------------------------- the extension is there


def test_the_extension_is_built() -> None:
    mod = load_native()
    assert isinstance(mod.ENABLED, bool) and isinstance(mod.ANSWERED, int)


def test_the_keys_it_reads_are_the_python_walks() -> None:
    """The C table of attribute keys (key, slot, kind of value) is ``otlp_typed``'s: the same
    keys read into the same slots, the same unread keys checked for the same kind of value."""
    from agentbisect import _otlpscan
    from agentbisect.importers import otlp_typed as t

    kinds = {t.StrV: 0, t.RawStrV: 1, t.IntV: 2, t.CheckedIntV: 3, t.DblV: 4, t.BoolV: 5}
    kinds[t.ReasonsV] = 6
    expected = [(k, slot, kinds[cls]) for k, (slot, cls) in t.READ.items()]
    expected += [(k, t.UNREAD, kinds[cls]) for k, cls in t.UNREAD_KEYS.items()]
    assert _otlpscan.keys() == expected
    from agentbisect.importers.texts import MIN_DOC_CHARS

    assert _otlpscan.MIN_DOC_CHARS == MIN_DOC_CHARS


# The real-instrumentation traces (opentelemetry-instrumentation-openai-v2, content on the spans
# or none captured; a retrieval step in each) the core must answer itself.
ENGAGED_FIXTURES = [
    "oaiv2-2.4b0-no-content.tool-planted.otlp.json",
    "oaiv2-2.4b0-span-only.doc-planted.otlp.json",
    "oaiv2-2.4b0-span-only.tool-error.otlp.json",
    "oaiv2-2.4b0-span-only.tool-planted.otlp.json",
    "oaiv2-2.4b0-span-only.tool-planted.otlp.jsonl",
]


@pytest.mark.parametrize("name", ENGAGED_FIXTURES)
def test_real_instrumentation_traces_are_answered(native: ModuleType, name: str) -> None:
    assert direct(native, OTEL / name) is not None, f"the core declined {name}"


# ----------------------------------------------------------------- the benchmark's trace


@pytest.mark.parametrize("spans", BENCH_SIZES)
def test_benchmark_trace_is_answered_and_equal(
    native: ModuleType, tmp_path: Path, spans: int
) -> None:
    """The file the speed goal is on, at several sizes (5003: past the recorder's event cap);
    every option set, and the native path must answer each that is not a usage error."""
    f = tmp_path / "t.otlp.jsonl"
    otlp_gen.write(spans, f)
    assert f.read_bytes() == bench_case(spans).data == bench_bytes(bench_items(spans))
    first = check_file(native, f, [["--json"]])
    assert first[0].native_answered, f"the native path did not answer the {spans}-span benchmark"
    out = tmp_path / "out.json"
    if spans <= 7:  # (the table costs ~0.2 s a run at 201 spans, ~4 s at 5003: small ones only)
        opts = more_options(first[0].full[1], out, wide=True)
    else:
        opts = [["--all", "--json"]]
        if spans == 201:
            opts += [[], ["--drill", "__root__#0", "--json"], ["--json", "-o", str(out)]]
    runs = first + check_file(native, f, opts, out)
    for r in runs:
        if r.full[0] == 0:
            assert r.native_answered, f"{spans} spans, {r.args[1:]}: the native path declined"
    record("benchmark", f"bench-{spans}", runs)
    got = direct(native, f)
    assert got is not None
    if spans == 5003:  # (past the event cap; the full path's struct costs another second)
        assert json.loads(first[0].full[1])["source"]["droppedEvents"] > 0
        assert json.loads(msgspec.json.encode(got.to_json())) == json.loads(first[0].full[1])
        return
    want = aggregate(open_run(str(f)), overview=False)
    assert msgspec.json.encode(got.to_json()) == msgspec.json.encode(want.to_json())
    assert got == want


def test_a_root_alone(native: ModuleType, tmp_path: Path) -> None:
    f = tmp_path / "t.otlp.jsonl"
    otlp_gen.write(1, f)
    record("benchmark", "bench-1", check_file(native, f, [["--json"], []]))


# ----------------------------------------------------------------- the named cases, the fixtures


@pytest.mark.parametrize("case", NAMED, ids=[c.name for c in NAMED])
def test_named_case(native: ModuleType, case: Case, tmp_path: Path) -> None:
    f, extra = case.write(tmp_path)
    if declined(native, f, extra):
        record("named-flat" if case.fast_family else "named-other", case.name, [])
        assert not case.name.startswith("bench-"), f"{case.name}: the native path declined"
        return
    runs = check_file(native, f, [["--json", *extra]])
    # the table, --all and drills where the native path answered (the benchmark's traces: above)
    if runs[0].native_answered and not case.name.startswith("bench-"):
        wide = len(case.data) < 100_000
        opts = [[*o, *extra] for o in more_options(runs[0].full[1], tmp_path / "o.json", wide)]
        runs += check_file(native, f, opts, tmp_path / "o.json")
    record("named-flat" if case.fast_family else "named-other", case.name, runs)
    if case.name.startswith("bench-"):
        assert runs[0].native_answered, f"{case.name}: the native path did not answer --json"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture(native: ModuleType, path: Path, tmp_path: Path) -> None:
    extra = ["--logs", str(LOGS[path.name])] if path.name in LOGS else []
    if declined(native, path, extra):
        record("fixtures", path.name, [])
        return
    sets = [["--json", *extra], [*extra], ["--all", "--drill", "__root__#0", *extra]]
    if extra:
        sets.append(["--json"])  # (the same trace without its log records)
    record("fixtures", path.name, check_file(native, path, sets))


# ----------------------------------------------------------------- damaged benchmark traces


def bench_bytes(
    items: list[dict[str, Any]],
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] = (",", ":"),
    batch: int = otlp_gen.BATCH,
) -> bytes:
    """``items`` written as ``otlp_gen.write`` writes them (one export request per line)."""
    return otlp_gen.encode(items, batch=batch, separators=separators, ensure_ascii=ensure_ascii)


_GENERATED: dict[int, list[dict[str, Any]]] = {}


def bench_items(spans: int) -> list[dict[str, Any]]:
    """A fresh copy of the benchmark's spans (spans, attribute lists and values copied)."""
    if spans not in _GENERATED:
        _GENERATED[spans] = otlp_gen.generate(spans)
    return [
        {
            **s,
            "attributes": [
                {"key": kv["key"], "value": dict(kv["value"])} for kv in s["attributes"]
            ],
            "status": dict(s["status"]),
        }
        for s in _GENERATED[spans]
    ]


Items = list[dict[str, Any]]


def chat(items: Items, i: int) -> dict[str, Any]:
    return items[2 * i]


def tool(items: Items, i: int) -> dict[str, Any]:
    return items[2 * i + 1]


def attr(span: dict[str, Any], key: str) -> dict[str, Any] | None:
    return next((kv for kv in span["attributes"] if kv["key"] == key), None)


def set_attr(span: dict[str, Any], key: str, value: Any) -> None:
    kv = attr(span, key)
    if kv is None:
        span["attributes"].append({"key": key, "value": value})
    else:
        kv["value"] = value


def del_attr(span: dict[str, Any], key: str) -> None:
    span["attributes"] = [kv for kv in span["attributes"] if kv["key"] != key]


def messages(span: dict[str, Any], key: str = "gen_ai.input.messages") -> list[dict[str, Any]]:
    kv = attr(span, key)
    assert kv is not None
    out: list[dict[str, Any]] = json.loads(kv["value"]["stringValue"])
    return out


def set_messages(
    span: dict[str, Any],
    msgs: Any,
    key: str = "gen_ai.input.messages",
    dumps: Callable[[Any], str] = json.dumps,
) -> None:
    set_attr(span, key, {"stringValue": dumps(msgs)})


def rewrite_windows(
    items: Items,
    fn: Callable[[int, list[dict[str, Any]]], list[dict[str, Any]] | None],
    dumps: Callable[[int], Callable[[Any], str]] = lambda i: json.dumps,
) -> None:
    """Every chat span's input messages through ``fn(iteration, messages)`` (None: unchanged)."""
    for i in range((len(items) - 1) // 2):
        msgs = fn(i, messages(chat(items, i)))
        if msgs is not None:
            set_messages(chat(items, i), msgs, dumps=dumps(i))


def is_tool_message(m: dict[str, Any], call: str) -> bool:
    return m["role"] == "tool" and m["parts"][0].get("id") == call


def is_ask(m: dict[str, Any], call: str) -> bool:
    return m["role"] == "assistant" and any(p.get("id") == call for p in m["parts"])


def _call(i: int) -> str:
    return f"call_{i:08d}"


def change_result(
    items: Items, i: int, text: str, inner: Callable[[int], Any] | None = None
) -> None:
    """Tool ``i``'s result is ``text``, in its span and in every later window that shows it."""
    set_attr(tool(items, i), "gen_ai.tool.call.result", {"stringValue": text})

    def fn(j: int, msgs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        hit = False
        for m in msgs:
            if is_tool_message(m, _call(i)):
                m["parts"][0]["response"] = text
                hit = True
        return msgs if hit else None

    rewrite_windows(items, fn, inner or (lambda j: json.dumps))


def insert_after_in_windows(items: Items, i: int, new: list[dict[str, Any]]) -> None:
    """``new`` messages in the history right after tool ``i``'s result, in every window after."""

    def fn(j: int, msgs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        for k, m in enumerate(msgs):
            if is_tool_message(m, _call(i)):
                return msgs[: k + 1] + [dict(n) for n in new] + msgs[k + 1 :]
        return None

    rewrite_windows(items, fn)


def new_span(
    items: Items, after: int, sid: int, parent: str, name: str, t0: int, t1: int, attrs: Any
) -> None:
    items.insert(
        after,
        {
            "traceId": otlp_gen.TRACE,
            "spanId": format(sid, "016x"),
            "parentSpanId": parent,
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(t0),
            "endTimeUnixNano": str(t1),
            "attributes": [{"key": k, "value": v} for k, v in attrs.items()],
            "status": {},
        },
    )


def _s(v: str) -> dict[str, Any]:
    return {"stringValue": v}


def _times(span: dict[str, Any]) -> tuple[int, int]:
    return int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])


ODD = "Order café naïve — 😀 “quoted” \\ back/slash\ttab\nnewline \u2028 \x01 中文"
ESCAPES = '"q" \\ / \b\f\n\r\t \x00 \x1f \x7f \u0085 \u2028\u2029 \ufeff é 😀 \U0010ffff'


@dataclass
class Mutation:
    name: str
    spans: int
    fn: Callable[[Items, int], bytes]  # (fresh items, the iteration it aims at) -> file bytes
    at: float = 0.49  # where, as a share of the iterations


MUTATIONS: list[Mutation] = []


def mutation(*sizes: int, at: float = 0.49) -> Callable[[Callable[[Items, int], bytes]], Any]:
    def deco(fn: Callable[[Items, int], bytes]) -> Any:
        name = fn.__name__.strip("_").replace("_", "-")
        MUTATIONS.extend(Mutation(name, spans, fn, at) for spans in sizes)
        return fn

    return deco


# The 5003-span trace (past the recorder's event cap; the full path costs ~1 s a run there) gets
# the essential damage; every mutation is also made to a 41-span trace, where a run is cheap.
BIG, SMALL = 5003, 41
# (the table is rendered, three ways, for these on the small trace: text that the table scrubs)
TABLE = {"non-ascii-escaped-in-the-inner-json", "non-ascii-raw-utf8", "every-escape-in-a-result",
         "escaped-tool-name-and-model", "tool-name-differs-from-the-call", "a-long-result",
         "two-tool-calls-asked", "tool-status-code-error-name", "chat-status-code-error-name",
         "empty-request-model", "no-response-model", "tool-arguments-non-ascii"}  # fmt: skip


@mutation(BIG, SMALL)
def duplicate_span_id(items: Items, i: int) -> bytes:
    tool(items, i)["spanId"] = chat(items, i)["spanId"]
    return bench_bytes(items)


@mutation(BIG, SMALL)
def unknown_attribute_key(items: Items, i: int) -> bytes:
    chat(items, i)["attributes"].append({"key": "vendor.thing", "value": _s("x")})
    return bench_bytes(items)


@mutation(BIG, SMALL)
def model_of_the_wrong_type(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.request.model", {"intValue": "4"})
    return bench_bytes(items)


@mutation(SMALL)
def tokens_as_double(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"doubleValue": 300.0})
    return bench_bytes(items)


@mutation(BIG, SMALL)
def chat_nested_in_a_tool(items: Items, i: int) -> bytes:
    t = tool(items, i)
    t0, t1 = _times(t)
    a = {kv["key"]: kv["value"] for kv in chat(items, i)["attributes"]}
    new_span(items, 2 * i + 2, 90_000_001, t["spanId"], "chat gpt-4o-mini", t0 + 1000, t1 - 1000, a)
    return bench_bytes(items)


@mutation(SMALL)
def chat_reparented_to_a_tool(items: Items, i: int) -> bytes:
    chat(items, i)["parentSpanId"] = tool(items, i - 1)["spanId"]
    return bench_bytes(items)


@mutation(BIG, SMALL)
def retrieval_span(items: Items, i: int) -> bytes:
    end = _times(tool(items, i))[1]
    docs = [{"id": "kb-1", "content": "Refunds take 5 days.", "score": 0.5}]
    a = {
        "gen_ai.operation.name": _s("retrieval"),
        "gen_ai.data_source.id": _s("kb"),
        "gen_ai.retrieval.documents": _s(json.dumps(docs)),
    }
    new_span(items, 2 * i + 2, 90_000_002, tool(items, i)["parentSpanId"], "retrieval kb",
             end + 10_000, end + 50_000, a)  # fmt: skip
    return bench_bytes(items)


@mutation(BIG, SMALL)
def tool_without_call_id(items: Items, i: int) -> bytes:
    del_attr(tool(items, i), "gen_ai.tool.call.id")
    return bench_bytes(items)


@mutation(BIG, SMALL)
def non_ascii_escaped_in_the_inner_json(items: Items, i: int) -> bytes:
    # json.dumps writes é as \u00e9 and 😀 as \ud83d\ude00 inside the attribute's JSON text;
    # the outer file then holds \\u00e9, \\ud83d\\ude00
    change_result(items, i, f"Order NW-{i}: {ODD}")
    return bench_bytes(items)


@mutation(SMALL)
def non_ascii_raw_utf8(items: Items, i: int) -> bytes:
    change_result(items, i, f"Order NW-{i}: {ODD}", lambda j: _raw_dumps)
    return bench_bytes(items, ensure_ascii=False)


@mutation(SMALL)
def non_ascii_escaped_in_the_outer_json(items: Items, i: int) -> bytes:
    # the inner JSON raw, the file's JSON escapes it: \u00e9, \ud83d\ude00 at the outer level
    change_result(items, i, f"Order NW-{i}: {ODD}", lambda j: _raw_dumps)
    return bench_bytes(items, ensure_ascii=True)


@mutation(SMALL)
def escapes_differ_between_windows(items: Items, i: int) -> bytes:
    # the same message escaped in one window and raw UTF-8 in the next (equal once decoded)
    change_result(items, i, f"Order NW-{i}: {ODD}", lambda j: _raw_dumps if j % 2 else json.dumps)
    return bench_bytes(items, ensure_ascii=False)


@mutation(BIG, SMALL)
def assistant_plain_text_fed_back(items: Items, i: int) -> bytes:
    def fn(j: int, msgs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        hit = [k for k, m in enumerate(msgs) if is_ask(m, _call(i))]
        for k in hit:
            msgs[k] = {"role": "assistant", "parts": [{"type": "text", "content": "lookup_order"}]}
        return msgs if hit else None

    rewrite_windows(items, fn)
    return bench_bytes(items)


@mutation(BIG, SMALL)
def truncated_mid_line(items: Items, i: int) -> bytes:
    data = bench_bytes(items)
    return data[: len(data) * 2 // 3]


@mutation(SMALL)
def last_line_cut(items: Items, i: int) -> bytes:
    data = bench_bytes(items)
    return data[: data.rstrip(b"\n").rfind(b"\n") + 1 + 4000]


@mutation(BIG, SMALL)
def a_line_ending_in_cr(items: Items, i: int) -> bytes:
    return bench_bytes(items).replace(b"\n", b"\r\n", 1)


@mutation(SMALL)
def crlf_everywhere(items: Items, i: int) -> bytes:
    return bench_bytes(items).replace(b"\n", b"\r\n")


@mutation(BIG, SMALL)
def a_blank_line(items: Items, i: int) -> bytes:
    return bench_bytes(items).replace(b"\n", b"\n\n", 1)


@mutation(SMALL)
def blank_lines_at_the_end(items: Items, i: int) -> bytes:
    return bench_bytes(items) + b"\n \n\t\n"


@mutation(SMALL)
def a_span_of_another_trace(items: Items, i: int) -> bytes:
    tool(items, i)["traceId"] = "1" * 32
    return bench_bytes(items)


@mutation(BIG, SMALL)
def a_second_trace_appended(items: Items, i: int) -> bytes:
    other = otlp_gen.generate(7)
    for s in other:
        s["traceId"] = "2" * 32
        s["spanId"] = format(int(s["spanId"], 16) + 0x7000_0000, "016x")
        if s["parentSpanId"]:
            s["parentSpanId"] = format(int(s["parentSpanId"], 16) + 0x7000_0000, "016x")
    return bench_bytes(items) + bench_bytes(other)


@mutation(BIG, SMALL)
def tool_status_code_error_name(items: Items, i: int) -> bytes:
    tool(items, i)["status"] = {"code": "STATUS_CODE_ERROR", "message": "boom"}
    return bench_bytes(items)


@mutation(BIG, SMALL)
def chat_status_code_error_name(items: Items, i: int) -> bytes:
    chat(items, i)["status"] = {"code": "STATUS_CODE_ERROR"}
    return bench_bytes(items)


@mutation(SMALL)
def chat_status_code_2(items: Items, i: int) -> bytes:
    chat(items, i)["status"] = {"code": 2, "message": "rate limited"}
    return bench_bytes(items)


@mutation(BIG, SMALL)
def tokens_with_leading_zeros(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": "0300"})
    set_attr(chat(items, i + 1), "gen_ai.usage.output_tokens", {"intValue": "007"})
    return bench_bytes(items)


@mutation(SMALL)
def tokens_as_json_numbers(items: Items, i: int) -> bytes:
    for j in range(i, i + 3):
        set_attr(chat(items, j), "gen_ai.usage.input_tokens", {"intValue": 300 + j})
    return bench_bytes(items)


@mutation(BIG, SMALL)
def missing_output_tokens(items: Items, i: int) -> bytes:
    del_attr(chat(items, i), "gen_ai.usage.output_tokens")
    return bench_bytes(items)


@mutation(BIG, SMALL)
def finish_reasons_as_string(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.response.finish_reasons", _s("tool_calls"))
    return bench_bytes(items)


@mutation(BIG, SMALL)
def system_message_in_the_input(items: Items, i: int) -> bytes:
    sys_msg = {"role": "system", "parts": [{"type": "text", "content": "Be extra careful."}]}
    msgs = messages(chat(items, i))
    set_messages(chat(items, i), [sys_msg, *msgs])
    return bench_bytes(items)


@mutation(BIG, SMALL)
def user_message_repeated_in_the_window(items: Items, i: int) -> bytes:
    hurry = {"role": "user", "parts": [{"type": "text", "content": "Please hurry."}]}
    insert_after_in_windows(items, i, [hurry, hurry])
    return bench_bytes(items)


@mutation(BIG, SMALL)
def events_not_empty(items: Items, i: int) -> bytes:
    t0 = _times(chat(items, i))[0]
    chat(items, i)["events"] = [
        {"name": "gen_ai.client.inference.operation.details", "timeUnixNano": str(t0 + 5)}
    ]
    return bench_bytes(items)


@mutation(SMALL, at=0.01)
def events_empty_lists(items: Items, i: int) -> bytes:
    for s in items:
        s["events"], s["links"] = [], []
    return bench_bytes(items)


@mutation(BIG, SMALL, at=0.999)
def near_the_end_a_window_repeated(items: Items, i: int) -> bytes:
    # the last call sees the previous call's window again, one message longer
    set_messages(chat(items, i), messages(chat(items, i - 1)) + messages(chat(items, i))[-1:])
    return bench_bytes(items)


# --- more forms of the same content (the small trace only)


def _raw_dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def _marked(data: bytes, marks: dict[str, bytes]) -> bytes:
    """``data`` with each JSON string ``"MARK"`` replaced by raw JSON bytes (escaped forms)."""
    for mark, raw in marks.items():
        assert data.count(f'"{mark}"'.encode()) >= 1, mark
        data = data.replace(f'"{mark}"'.encode(), raw)
    return data


@mutation(SMALL)
def escaped_attribute_key(items: Items, i: int) -> bytes:
    attr(chat(items, i), "gen_ai.operation.name")["key"] = "@@K@@"  # type: ignore[index]
    return _marked(bench_bytes(items), {"@@K@@": b'"gen_ai.operation.nam\\u0065"'})


@mutation(SMALL)
def escaped_operation_value(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.operation.name", _s("@@V@@"))
    set_attr(tool(items, i), "gen_ai.operation.name", _s("@@W@@"))
    return _marked(bench_bytes(items), {"@@V@@": b'"\\u0063hat"', "@@W@@": b'"execute\\u005ftool"'})


@mutation(SMALL)
def escaped_span_id(items: Items, i: int) -> bytes:
    sid = tool(items, i)["spanId"]
    tool(items, i)["spanId"] = "@@S@@"
    return _marked(bench_bytes(items), {"@@S@@": f'"\\u0030{sid[1:]}"'.encode()})


@mutation(SMALL)
def escaped_field_name(items: Items, i: int) -> bytes:
    data = bench_bytes(items)
    return data.replace(b'"parentSpanId"', b'"parentSpan\\u0049d"', 3)


@mutation(SMALL)
def escaped_tool_name_and_model(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "gen_ai.tool.name", _s("@@T@@"))
    set_attr(chat(items, i), "gen_ai.response.model", _s("@@M@@"))
    return _marked(
        bench_bytes(items),
        {"@@T@@": b'"lookup\\u005forder"', "@@M@@": b'"gpt-4o-mini\\/2024\\t\\u00e9"'},
    )


@mutation(SMALL)
def escaped_slash_in_the_inner_json(items: Items, i: int) -> bytes:
    change_result(items, i, "see a/b/c", lambda j: lambda v: json.dumps(v).replace("/", "\\/"))
    return bench_bytes(items)


@mutation(SMALL)
def every_escape_in_a_result(items: Items, i: int) -> bytes:
    change_result(items, i, ESCAPES)
    return bench_bytes(items)


@mutation(SMALL)
def every_escape_raw(items: Items, i: int) -> bytes:
    change_result(items, i, ESCAPES, lambda j: _raw_dumps)
    return bench_bytes(items, ensure_ascii=False)


@mutation(SMALL)
def lone_surrogate_in_the_inner_json(items: Items, i: int) -> bytes:
    # the window's JSON text holds \ud83d alone (the file: \\ud83d); the span's result is text
    change_result(
        items, i, "half @@X@@ a pair", lambda j: lambda v: json.dumps(v).replace("@@X@@", "\\ud83d")
    )
    set_attr(tool(items, i), "gen_ai.tool.call.result", _s("half ? a pair"))
    return bench_bytes(items)


@mutation(SMALL)
def lone_surrogate_in_the_outer_json(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "gen_ai.tool.call.result", _s("@@R@@"))
    return _marked(bench_bytes(items), {"@@R@@": b'"half \\ud83d a pair"'})


@mutation(SMALL)
def result_not_in_the_window_text(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "gen_ai.tool.call.result", _s("something else entirely"))
    return bench_bytes(items)


@mutation(SMALL)
def duplicate_attribute_key(items: Items, i: int) -> bytes:
    chat(items, i)["attributes"].append(
        {"key": "gen_ai.request.model", "value": _s("gpt-4o")}
    )  # fmt: skip
    return bench_bytes(items)


@mutation(SMALL)
def extra_span_fields(items: Items, i: int) -> bytes:
    for s in items:
        s.update(flags=256, droppedAttributesCount=0, traceState="", droppedEventsCount=0)
    return bench_bytes(items)


@mutation(SMALL)
def fields_in_another_order(items: Items, i: int) -> bytes:
    for k, s in enumerate(items):
        items[k] = dict(reversed(list(s.items())))
        for kv in items[k]["attributes"]:
            kv["value"], kv["key"] = kv.pop("value"), kv.pop("key")
    return bench_bytes(items)


@mutation(SMALL)
def spaces_after_separators(items: Items, i: int) -> bytes:
    return bench_bytes(items, separators=(", ", ": "))


@mutation(SMALL)
def one_span_per_line(items: Items, i: int) -> bytes:
    return bench_bytes(items, batch=1)


@mutation(SMALL)
def one_document_indented(items: Items, i: int) -> bytes:
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": items}]}]}
    return json.dumps(doc, indent=2).encode()


@mutation(SMALL)
def root_first(items: Items, i: int) -> bytes:
    return bench_bytes([items[-1], *items[:-1]])


@mutation(SMALL)
def spans_in_reverse(items: Items, i: int) -> bytes:
    return bench_bytes(items[::-1])


@mutation(SMALL)
def root_without_a_parent_field(items: Items, i: int) -> bytes:
    del items[-1]["parentSpanId"]
    return bench_bytes(items)


@mutation(SMALL)
def tokens_huge(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": str(2**63)})
    return bench_bytes(items)


@mutation(SMALL)
def tokens_past_2_53(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": str(2**53 + 1)})
    return bench_bytes(items)


@mutation(SMALL)
def tokens_zero_and_negative(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": "0"})
    set_attr(chat(items, i + 1), "gen_ai.usage.output_tokens", {"intValue": "-3"})
    return bench_bytes(items)


@mutation(SMALL)
def tokens_with_a_plus_sign(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": "+300"})
    return bench_bytes(items)


@mutation(SMALL)
def tool_arguments_non_ascii(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "gen_ai.tool.call.arguments", _s(json.dumps({"q": "café 😀"})))
    return bench_bytes(items)


@mutation(SMALL)
def two_tool_calls_asked(items: Items, i: int) -> bytes:
    out = messages(chat(items, i), "gen_ai.output.messages")
    part = dict(out[0]["parts"][0], id="call_extra", arguments={"order_id": "NW-x"})
    out[0]["parts"].append(part)
    set_messages(chat(items, i), out, "gen_ai.output.messages")
    return bench_bytes(items)


@mutation(SMALL)
def output_empty(items: Items, i: int) -> bytes:
    set_messages(chat(items, i), [], "gen_ai.output.messages")
    return bench_bytes(items)


@mutation(SMALL)
def output_text_and_tool_call(items: Items, i: int) -> bytes:
    out = messages(chat(items, i), "gen_ai.output.messages")
    out[0]["parts"].insert(0, {"type": "text", "content": "Let me look that up."})
    set_messages(chat(items, i), out, "gen_ai.output.messages")
    return bench_bytes(items)


@mutation(SMALL)
def final_answer_mid_run(items: Items, i: int) -> bytes:
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}
    set_messages(chat(items, i), [{**answer, "finish_reason": "stop"}], "gen_ai.output.messages")
    set_attr(chat(items, i), "gen_ai.response.finish_reasons", {"arrayValue": {"values": [_s("stop")]}})  # fmt: skip
    return bench_bytes(items)


@mutation(SMALL)
def no_content_on_one_call(items: Items, i: int) -> bytes:
    for key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"):
        del_attr(chat(items, i), key)
    return bench_bytes(items)


@mutation(SMALL)
def no_system_instructions(items: Items, i: int) -> bytes:
    for j in range(len(items) // 2):
        del_attr(chat(items, j), "gen_ai.system_instructions")
    return bench_bytes(items)


@mutation(SMALL)
def tool_response_as_an_object(items: Items, i: int) -> bytes:
    def fn(j: int, msgs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        hit = [m for m in msgs if is_tool_message(m, _call(i))]
        for m in hit:
            m["parts"][0]["response"] = {"status": "shipped", "day": i}
        return msgs if hit else None

    rewrite_windows(items, fn)
    return bench_bytes(items)


@mutation(SMALL)
def tool_message_without_id(items: Items, i: int) -> bytes:
    def fn(j: int, msgs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        hit = [m for m in msgs if is_tool_message(m, _call(i))]
        for m in hit:
            del m["parts"][0]["id"]
        return msgs if hit else None

    rewrite_windows(items, fn)
    return bench_bytes(items)


@mutation(SMALL)
def inner_json_indented(items: Items, i: int) -> bytes:
    set_messages(chat(items, i), messages(chat(items, i)), dumps=lambda v: json.dumps(v, indent=2))
    return bench_bytes(items)


@mutation(SMALL)
def inner_json_with_spaces_and_a_key_order(items: Items, i: int) -> bytes:
    msgs = [dict(reversed(list(m.items()))) for m in messages(chat(items, i))]
    set_messages(chat(items, i), msgs, dumps=lambda v: " " + json.dumps(v, indent=None) + "\n")
    return bench_bytes(items)


@mutation(SMALL)
def chat_kind_internal(items: Items, i: int) -> bytes:
    chat(items, i)["kind"] = 1
    return bench_bytes(items)


@mutation(SMALL)
def kind_as_a_name(items: Items, i: int) -> bytes:
    chat(items, i)["kind"] = "SPAN_KIND_CLIENT"
    return bench_bytes(items)


@mutation(SMALL)
def zero_duration_tool(items: Items, i: int) -> bytes:
    t = tool(items, i)
    t["endTimeUnixNano"] = t["startTimeUnixNano"]
    return bench_bytes(items)


@mutation(SMALL)
def times_as_json_numbers(items: Items, i: int) -> bytes:
    for s in items[2 * i : 2 * i + 2]:
        s["startTimeUnixNano"], s["endTimeUnixNano"] = _times(s)
    return bench_bytes(items)


@mutation(SMALL)
def no_response_model(items: Items, i: int) -> bytes:
    del_attr(chat(items, i), "gen_ai.response.model")
    return bench_bytes(items)


@mutation(SMALL)
def empty_request_model(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.request.model", _s(""))
    del_attr(chat(items, i), "gen_ai.response.model")
    return bench_bytes(items)


@mutation(SMALL)
def upper_case_trace_id_on_one_span(items: Items, i: int) -> bytes:
    chat(items, i)["traceId"] = otlp_gen.TRACE.upper()
    return bench_bytes(items)


@mutation(SMALL)
def tool_name_differs_from_the_call(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "gen_ai.tool.name", _s("get_refund_policy"))
    tool(items, i)["name"] = "execute_tool get_refund_policy"
    return bench_bytes(items)


@mutation(SMALL)
def status_ok_and_unset_names(items: Items, i: int) -> bytes:
    chat(items, i)["status"] = {"code": 1}
    tool(items, i)["status"] = {"code": "STATUS_CODE_UNSET"}
    chat(items, i + 1)["status"] = {"code": "STATUS_CODE_OK", "message": ""}
    return bench_bytes(items)


@mutation(SMALL)
def error_type_on_a_tool(items: Items, i: int) -> bytes:
    set_attr(tool(items, i), "error.type", _s("ToolError"))
    return bench_bytes(items)


@mutation(SMALL)
def a_long_result(items: Items, i: int) -> bytes:
    change_result(items, i, "x" * 70_000 + " é " + "y" * 70_000)
    return bench_bytes(items)


@mutation(SMALL)
def a_call_id_reused(items: Items, i: int) -> bytes:
    set_attr(tool(items, i + 1), "gen_ai.tool.call.id", _s(_call(i)))
    return bench_bytes(items)


@mutation(SMALL)
def resource_and_scope_differ(items: Items, i: int) -> bytes:
    data = bench_bytes(items)
    data = data.replace(b'"opentelemetry.util.genai.handler"', b'"my.scope","version":"1"', 1)
    return data.replace(b'{"key":"service.name","value":{"stringValue":"bench"}}',
                        b'{"key":"service.name","value":{"stringValue":"b"}},{"key":"host","value":{"intValue":"3"}}', 1)  # fmt: skip


@mutation(SMALL)
def the_whole_window_each_call(items: Items, i: int) -> bytes:
    history: list[dict[str, Any]] = []
    for j in range((len(items) - 1) // 2):
        msgs = messages(chat(items, j))
        history = msgs if j == 0 else history + msgs[-2:]
        set_messages(chat(items, j), list(history))
    return bench_bytes(items)


@mutation(SMALL)
def trailing_garbage(items: Items, i: int) -> bytes:
    return bench_bytes(items) + b"}\n"


@mutation(SMALL)
def nul_byte_in_the_file(items: Items, i: int) -> bytes:
    return bench_bytes(items).replace(b"\n", b"\n\x00", 1)


@mutation(SMALL)
def duplicate_span_fields(items: Items, i: int) -> bytes:
    # the same field twice on one span (JSON decoders keep the last)
    chat(items, i)["name"] = "@@N@@"
    tool(items, i)["parentSpanId"] = "@@P@@"
    parent = items[-1]["spanId"]
    return _marked(
        bench_bytes(items),
        {
            "@@N@@": b'"chat first","name":"chat gpt-4o-mini"',
            "@@P@@": f'"00000000000000ff","parentSpanId":"{parent}"'.encode(),
        },
    )


@mutation(SMALL)
def duplicate_span_id_field_last_wins(items: Items, i: int) -> bytes:
    sid = tool(items, i)["spanId"]
    tool(items, i)["spanId"] = "@@I@@"
    return _marked(bench_bytes(items), {"@@I@@": f'"{"e" * 16}","spanId":"{sid}"'.encode()})


@mutation(SMALL)
def duplicate_value_fields(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", _s("@@U@@"))
    return _marked(bench_bytes(items), {"@@U@@": b'"x"},"value":{"intValue":"310"'})


@mutation(SMALL)
def duplicate_keys_in_the_inner_json(items: Items, i: int) -> bytes:
    change_result(
        items,
        i,
        "@@D@@",
        lambda j: lambda v: json.dumps(v).replace('"@@D@@"', '"first", "response": "second"'),
    )
    set_attr(tool(items, i), "gen_ai.tool.call.result", _s("second"))
    return bench_bytes(items)


@mutation(SMALL)
def snake_case_field_names(items: Items, i: int) -> bytes:
    s = tool(items, i)
    s["parent_span_id"] = s.pop("parentSpanId")
    s["start_time_unix_nano"] = s.pop("startTimeUnixNano")
    return bench_bytes(items)


@mutation(SMALL)
def odd_whitespace_between_tokens(items: Items, i: int) -> bytes:
    data = bench_bytes(items)
    return data.replace(b'":', b'" \t:\r ').replace(b',"', b' ,\t"')


@mutation(SMALL)
def deeply_nested_tool_arguments(items: Items, i: int) -> bytes:
    deep: Any = "x"
    for _ in range(600):
        deep = [deep]
    out = messages(chat(items, i), "gen_ai.output.messages")
    out[0]["parts"][0]["arguments"] = {"deep": deep}
    set_messages(chat(items, i), out, "gen_ai.output.messages")
    return bench_bytes(items)


@mutation(SMALL)
def tokens_as_decimal_text(items: Items, i: int) -> bytes:
    set_attr(chat(items, i), "gen_ai.usage.input_tokens", {"intValue": "300.0"})
    return bench_bytes(items)


@mutation(SMALL)
def times_near_the_limit(items: Items, i: int) -> bytes:
    shift = 2**63 - 10**12 - int(items[-1]["endTimeUnixNano"])
    for s in items:
        s["startTimeUnixNano"] = str(int(s["startTimeUnixNano"]) + shift)
        s["endTimeUnixNano"] = str(int(s["endTimeUnixNano"]) + shift)
    return bench_bytes(items)


@mutation(SMALL)
def inner_json_trailing_comma(items: Items, i: int) -> bytes:
    set_messages(
        chat(items, i), messages(chat(items, i)), dumps=lambda v: json.dumps(v)[:-1] + ",]"
    )
    return bench_bytes(items)


MUTATION_IDS = [f"{m.spans}-{m.name}" for m in MUTATIONS]
assert len(set(MUTATION_IDS)) == len(MUTATION_IDS)


@pytest.mark.parametrize("m", MUTATIONS, ids=MUTATION_IDS)
def test_mutation(native: ModuleType, m: Mutation, tmp_path: Path) -> None:
    """Answered or declined, the command's output with the native path on is the full path's."""
    items = bench_items(m.spans)
    data = m.fn(items, max(1, int((m.spans - 1) // 2 * m.at)))
    f = tmp_path / "m.otlp.jsonl"
    f.write_bytes(data)
    n0 = native.ANSWERED
    try:
        got = direct(native, f)
    except Exception as e:  # (declining is returning None; anything raised is a bug)
        raise AssertionError(f"{NATIVE}.result raised on {m.name}: {e!r}") from e
    assert (got is not None) == (n0 < native.ANSWERED), "ANSWERED does not count this answer"
    decided = "native answered" if got is not None else "native declined"
    if got is None and not THOROUGH and python_direct(native, f) is None:
        MUTATION_LOG[f"{m.spans}-{m.name}"] = decided + ", Python declined (full path)"
        return
    runs = check_file(
        native, f, [["--json"], []] if m.spans == SMALL and m.name in TABLE else [["--json"]]
    )
    assert runs[0].native_answered == (got is not None)
    py = {True: ", Python answered", False: ", Python declined", None: ""}[
        None if got is not None else runs[0].python_answered
    ]
    MUTATION_LOG[f"{m.spans}-{m.name}"] = decided + py


# ----------------------------------------------------------------- generated flat traces


@st.composite
def flat_cases(draw: st.DrawFn) -> Case:
    """One run of chat and tool spans right under the root, current GenAI conventions, content
    on the spans (the shape the native path takes), varied in size, windows, parallel tool
    calls, text, content capture and file form."""
    k = Knobs(
        seed=draw(st.integers(0, 2**32)),
        style=draw(st.sampled_from(["genai"] * 5 + ["nocontent"])),
        iterations=draw(st.integers(1, 10)),
        window=draw(st.sampled_from([0, 2, 3, 4, 6, 20])),
        parallel=draw(st.sampled_from([1, 1, 1, 2, 3])),
        tool_ids=draw(st.sampled_from([True, True, True, False])),
        vendor_attrs=0.0,
        odd_text=draw(st.booleans()),
        big=draw(st.sampled_from([False, False, False, True])),
    )
    form = Form(
        jsonl=draw(st.booleans()),
        batch=draw(st.sampled_from([1, 3, 7, 512])),
        indent=draw(st.sampled_from([False, False, True])),
        order=draw(st.sampled_from(["end", "end", "start", "shuffle"])),
    )
    return make_case("flat", [k], form, seed=draw(st.integers(0, 2**16)))


def _compare_direct(native: ModuleType, case: Case, kind: str) -> None:
    limit = sys.getrecursionlimit()  # (the loader moves it; hypothesis wants it back)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            f, _ = case.write(Path(tmp))
            try:
                got = direct(native, f)
            except Exception as e:
                raise AssertionError(f"{NATIVE}.result raised: {e!r}") from e
            t = TALLY.setdefault(kind, Tally())
            t.cases += 1
            t.runs += 1
            if got is None:
                t.names.append(case.name)
                return
            t.answered += 1
            t.json_answered += 1
            want = aggregate(open_run(str(f)), overview=False)
            a = msgspec.json.encode(want.to_json())
            b = msgspec.json.encode(got.to_json())
            assert b == a, f"native != full on a generated trace\n{first_difference(a, b)}"
            assert got == want
    finally:
        sys.setrecursionlimit(limit)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=flat_cases())
def test_generated_flat_traces(native: ModuleType, case: Case) -> None:
    _compare_direct(native, case, "hypothesis-flat")


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases(plain=True))
def test_generated_plain_traces(native: ModuleType, case: Case) -> None:
    """The wider plain family (retrieval, embeddings, no call ids …): mostly declined; where
    answered, equal."""
    _compare_direct(native, case, "hypothesis-plain")


def test_flat_cases_are_answered(native: ModuleType, tmp_path: Path) -> None:
    """The named flat traces (``genai-plain-*`` of the fast path's family) and a fixed sample of
    flat runs (no parallel calls, call ids on the tools), half with their spans written in start
    order (as the benchmark's are), half in end order (what exporters write): every start-ordered
    one must be answered, and at least ``FLAT_SHARE_MIN`` of them all."""
    flat = [(c, c.name == "genai-plain-3") for c in NAMED if c.fast_family]
    flat = [(c, start) for c, start in flat if not c.name.startswith("bench-")]
    for j in range(12):
        k = Knobs(seed=1000 + j, iterations=1 + j % 7, window=(0, 2, 4, 6)[j % 4], vendor_attrs=0)
        form = Form(jsonl=j % 3 != 0, batch=(1, 3, 512)[j % 3], order=("end", "start")[j % 2])
        flat.append((make_case(f"flat-{j}-{form.order}-order", [k], form, seed=j), j % 2 == 1))
    answered, names, missed = 0, [], []
    for c, start_ordered in flat:
        (tmp_path / c.name).mkdir()
        f, _ = c.write(tmp_path / c.name)
        if direct(native, f) is not None:
            answered += 1
            continue
        names.append(c.name)
        if start_ordered:
            missed.append(c.name)
    t = TALLY.setdefault("flat-sample", Tally())
    t.cases, t.runs, t.answered, t.json_answered, t.names = (
        len(flat), len(flat), answered, answered, names
    )  # fmt: skip
    assert not missed, f"the native path declined start-ordered flat traces: {missed}"
    share = answered / len(flat)
    assert share >= FLAT_SHARE_MIN, f"answered {answered}/{len(flat)}; declined: {names}"


# ----------------------------------------------------------------- the Python walk's made-up traces


@pytest.mark.parametrize("seed", range(40))
def test_the_walks_made_up_traces(native: ModuleType, tmp_path: Path, seed: int) -> None:
    """The 40 traces ``test_otlp_aggregate_fast`` walks through every source rule with (ids,
    content and structure matches, adopted ids, documents, system and user messages, calls
    without content, failures, nested calls, windows), through ``fast_result`` with the core in
    front: the answer — the core's where it takes the trace, else the Python walk's — is the
    full path's, and a trace the core declines is still answered by the walk."""
    from tests.test_otlp_aggregate_fast import _write, varied_trace

    f = _write(tmp_path / "t.otlp.jsonl", varied_trace(seed))
    before = native.ANSWERED
    got = otlp_aggregate.fast_result(str(f))
    t = TALLY.setdefault("walk-made-up", Tally())
    t.cases += 1
    t.runs += 1
    if before < native.ANSWERED:
        t.answered += 1
        t.json_answered += 1
    else:
        t.names.append(f"seed-{seed}")
    assert got is not None, "neither the core nor the Python walk answered"
    want = aggregate(open_run(str(f)), overview=False)
    a, b = msgspec.json.encode(want.to_json()), msgspec.json.encode(got.to_json())
    assert b == a, f"fast != full on made-up trace {seed}\n{first_difference(a, b)}"
    assert got == want


# ----------------------------------------------------------------- the record


def test_summary(native: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """Who answered what (``pytest -s``; this runs last, in file order)."""
    with capsys.disabled():
        print("\n[otlp-native] engagement (cases: --json answered by the native path)")
        for kind, t in TALLY.items():
            print(
                f"  {kind}: {t.json_answered}/{t.cases} cases answered, "
                f"{t.answered}/{t.runs} runs answered"
            )
            if t.names and kind in ("named-flat", "benchmark", "flat-sample"):
                print(f"    declined: {', '.join(t.names)}")
        if MUTATION_LOG:
            print("[otlp-native] mutations (output equal to the full path's in every one):")
            for name, how in MUTATION_LOG.items():
                print(f"  {name}: {how}")
