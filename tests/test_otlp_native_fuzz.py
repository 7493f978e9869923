"""The compiled core of ``afp aggregate``'s OTLP fast path (``agentbisect._otlpscan``) on bytes
it was never meant for: damaged copies of real traces, byte by byte.

C that reads untrusted bytes must never read outside them nor crash the process, and must never
raise: whatever it cannot read it declines (``None``). Hypothesis flips, inserts, deletes and
truncates bytes of small valid traces (the benchmark's, a flat generated one in end order, a
real-instrumentation fixture); every answer it still gives must equal the full path's. A crash
here ends the test process, which fails the run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentbisect.aggregate import aggregate
from agentbisect.importers import otlp_native
from agentbisect.run import open_run
from tests.conftest import ROOT
from tests.otlp_cases import Form, Knobs, make_case

sys.path.insert(0, str(ROOT / "benchmarks"))
import otlp_gen

if not otlp_native.AVAILABLE:  # (CI builds it: a missing build must fail, not skip)
    pytest.fail("agentbisect._otlpscan is not built: pip install -e . needs a C compiler")


def _seeds() -> list[bytes]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for spans in (7, 41):
            otlp_gen.write(spans, Path(tmp) / "bench.jsonl")
            out.append((Path(tmp) / "bench.jsonl").read_bytes())
    case = make_case(
        "fuzz-end-order",
        [Knobs(seed=7, iterations=3, window=4, vendor_attrs=0)],
        Form(jsonl=True, batch=3, order="end"),
        seed=7,
    )
    with tempfile.TemporaryDirectory() as tmp:
        f, _ = case.write(Path(tmp))
        out.append(f.read_bytes())
    out.append((ROOT / "fixtures/otel/oaiv2-2.4b0-span-only.tool-planted.otlp.json").read_bytes())
    return out


SEEDS = _seeds()
# Bytes that matter to a JSON scanner: structure, escapes, quotes, controls, UTF-8 lead bytes.
SPECIAL = b'{}[]:,"\\ \t\n\r\x00\x1f\x7fu0123456789abcdefnrtx-+.eE\xc3\xa9\xed\xa0\x80\xf4\x90\xff'


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(("flip", "insert", "delete", "truncate", "duplicate")))
        byte = draw(st.sampled_from(SPECIAL))
        if op == "flip":
            data[at] = byte
        elif op == "insert":
            data[at:at] = bytes([byte])
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 40))]
        elif op == "truncate":
            del data[at:]
        else:  # a run of bytes written twice (a duplicated key, value or span)
            n = draw(st.integers(1, 200))
            data[at:at] = data[at : at + n]
    return bytes(data)


def _answer(data: bytes) -> object:
    return otlp_native._otlpscan.aggregate(  # type: ignore[union-attr]
        data,
        otlp_native.LlmCallRow,
        otlp_native.clean,
        otlp_native._paragraphs,
        otlp_native.instruction_parts,
        otlp_native._raw_text,
        otlp_native.retrieved_documents,
    )


def test_the_seeds_are_answered() -> None:
    """The undamaged seeds are answered (else the damage below proves nothing)."""
    assert all(_answer(s) is not None for s in SEEDS)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=damaged())
def test_damaged_bytes_are_declined_or_answered_as_the_full_path(data: bytes) -> None:
    try:
        got = _answer(data)
    except Exception as e:  # (declining is returning None; anything raised is a bug)
        raise AssertionError(f"the core raised {e!r}") from e
    if got is None:
        return
    limit = sys.getrecursionlimit()  # (the loader moves it; hypothesis wants it back)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "trace.json"
            f.write_bytes(data)
            mine = otlp_native.result(str(f), data, False, None)  # type: ignore[arg-type]
            want = aggregate(open_run(str(f)), overview=False)
    finally:
        sys.setrecursionlimit(limit)
    assert mine is not None
    assert msgspec.json.encode(mine.to_json()) == msgspec.json.encode(want.to_json())
