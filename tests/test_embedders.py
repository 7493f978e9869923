"""Embedders behind one interface: mock (bit-exact), wordllama (from the wheel's files, equal to
``WordLlama.embed``, never importing the package), ``cmd:COMMAND`` (one process per batch, errors
exit 3), the on-disk vector cache, and the default with its fallback notice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agentbisect.bisect.embed import choose as E
from agentbisect.bisect.embed.cache import NO_CACHE_ENV, VectorCache
from agentbisect.bisect.embed.command import CommandEmbedder
from agentbisect.bisect.embed.vectors import EmbeddingCache, MockEmbedder
from agentbisect.bisect.embed.wordllama import wordllama_available, wordllama_dir
from agentbisect.core.errors import ExternalCommandFailed, UsageError

needs_wordllama = pytest.mark.skipif(
    not wordllama_available(), reason="the embed extra (wordllama) is not installed"
)
TEXTS = [
    "Refund approved: the promo covers order 17 even at 40 days.",
    "",
    "a😀é… — non-ASCII, emoji and punctuation",
    "Small kitchen appliances may be returned up to 90 days after delivery. " * 20,
    "x",
    "Glossary DE: 'checkout' → 'Abmeldung'",
]


@pytest.fixture
def _private_cache(_private_vector_cache: Path) -> Path:
    return _private_vector_cache


def test_mock_is_the_upstream_embedding_cache() -> None:
    r = E.resolve_embedder("mock")
    assert r.name == "mock" and r.notice is None
    assert isinstance(r.embedder, EmbeddingCache)
    assert isinstance(r.embedder.inner, MockEmbedder)
    v = r.embedder.embed("abc")
    assert all(type(x) is int for x in v)  # exact integer counts
    assert [i for i, x in enumerate(v) if x] == [1, 2, 3]


def test_unknown_embedder_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown embedder 'bert'"):
        E.resolve_embedder("bert")


def test_default_falls_back_to_mock_with_one_line_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentbisect.bisect.embed import wordllama as wordllama_embed

    monkeypatch.setattr(wordllama_embed, "wordllama_available", lambda: False)
    r = E.resolve_embedder(None)
    assert r.name == "mock"
    assert r.notice is not None and "\n" not in r.notice
    assert "pip install 'agentbisect[embed]'" in r.notice and "proxies" in r.notice


@needs_wordllama
def test_default_is_wordllama_when_installed() -> None:
    r = E.resolve_embedder(None, use_cache=False)
    assert r.name == "wordllama" and r.notice is None
    assert r.label.startswith("wordllama 0.4.0.post1")


@needs_wordllama
def test_wordllama_vectors_equal_wordllama_embed() -> None:
    wordllama = pytest.importorskip("wordllama")
    ref = wordllama.WordLlama.load(cache_dir=wordllama_dir(), disable_download=True)
    expected = ref.embed(TEXTS)
    got = E.resolve_embedder("wordllama", use_cache=False).embedder
    vecs = E.embed_many(got, TEXTS)
    assert len(vecs) == len(TEXTS)
    for v, w in zip(vecs, expected, strict=True):
        assert v.dtype == np.float32 and v.shape == (256,)
        assert np.array_equal(v, w)  # bit for bit, not close
    # one text at a time gives the same floats as the batch
    assert np.array_equal(got.embed(TEXTS[3]), expected[3])
    # more than one tokenizer chunk (64 texts) too
    many = [f"order {i} shipped on day {i % 7}" for i in range(150)]
    assert all(
        np.array_equal(a, b) for a, b in zip(E.embed_many(got, many), ref.embed(many), strict=True)
    )


@needs_wordllama
def test_wordllama_default_path_does_not_import_the_package() -> None:
    code = (
        "import sys\n"
        "from agentbisect.bisect.embed.choose import resolve_embedder\n"
        "e = resolve_embedder('wordllama', use_cache=False).embedder\n"
        "e.embed_batch(['hello world'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('wordllama', 'huggingface_hub', 'requests', 'pydantic')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "[]"


@needs_wordllama
@pytest.mark.parametrize("user_value", [None, "3"])
def test_wordllama_imports_numpy_with_one_blas_thread_and_restores_the_environment(
    user_value: str | None,
) -> None:
    # OpenBLAS reads OPENBLAS_NUM_THREADS once, when numpy loads: afp holds it to 1 for that
    # moment (its matrix work is tiny) and leaves the environment as it found it, so reruns
    # inherit the user's own; a value the user set is never touched
    code = (
        "import os, sys\n"
        "from agentbisect.bisect.embed.choose import resolve_embedder\n"
        "e = resolve_embedder('wordllama', use_cache=False).embedder\n"
        "assert 'numpy' not in sys.modules\n"
        "seen = []\n"
        "import importlib\n"
        "real = importlib.import_module\n"
        "def spy(name, *a):\n"
        "    if name == 'numpy' and 'numpy' not in sys.modules:\n"
        "        seen.append(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
        "    return real(name, *a)\n"
        "importlib.import_module = spy\n"
        "e.embed_batch(['hello world'])\n"
        "print(seen, os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    if user_value is not None:
        env["OPENBLAS_NUM_THREADS"] = user_value
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    if user_value is None:
        assert out.stdout.strip() == "['1'] None"
    else:
        assert out.stdout.strip() == "['3'] 3"


def _script(tmp_path: Path, body: str) -> str:
    p = tmp_path / "embedder.py"
    p.write_text("import json, sys\ntexts = json.load(sys.stdin)\n" + body, encoding="utf-8")
    return f"{sys.executable} {p}"


def test_cmd_embedder_one_process_per_batch(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    cmd = _script(
        tmp_path,
        f"open({str(log)!r}, 'a').write(json.dumps(texts) + '\\n')\n"
        "print(json.dumps([[len(t), t.count('a'), 1.5] for t in texts]))\n",
    )
    r = E.resolve_embedder(f"cmd:{cmd}")
    assert r.name == "cmd" and r.label == f"cmd:{cmd}"
    vecs = E.embed_many(r.embedder, ["banana", "kiwi", "banana"])
    assert [v.tolist() for v in vecs] == [[6, 3, 1.5], [4, 0, 1.5], [6, 3, 1.5]]
    # one call, distinct texts only; the second lookup is served from memory
    r.embedder.embed("kiwi")
    assert [json.loads(line) for line in log.read_text().splitlines()] == [["banana", "kiwi"]]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("sys.stderr.write('model not loaded\\n'); sys.exit(4)\n", "exited with status 4"),
        ("print('not json')\n", "stdout is not JSON"),
        ("print(json.dumps([[1.0]]))\n", "expected a JSON array of 2 vectors, got 1 items"),
        ("print(json.dumps([[1.0], ['x']]))\n", "vector 1 is not a non-empty array"),
        ("print('[[1.0], [NaN]]')\n", "vector 1 is not a non-empty array of finite numbers"),
        ("print(json.dumps([[1.0], [1.0, 2.0]]))\n", "vectors differ in length"),
    ],
)
def test_cmd_embedder_failures_exit_3(tmp_path: Path, body: str, why: str) -> None:
    emb = CommandEmbedder(_script(tmp_path, body))
    with pytest.raises(ExternalCommandFailed) as info:
        emb.embed_batch(["a", "b"])
    assert info.value.exit_code == 3
    assert why in str(info.value)
    if "status 4" in why:
        assert "model not loaded" in str(info.value)  # the stderr tail is shown


def test_cmd_embedder_timeout_and_missing_command(tmp_path: Path) -> None:
    slow = CommandEmbedder(_script(tmp_path, "import time; time.sleep(30)\n"), timeout=0.5)
    with pytest.raises(ExternalCommandFailed, match=r"timed out after 0\.5 s"):
        slow.embed_batch(["a"])
    with pytest.raises(ExternalCommandFailed, match="cannot start it"):
        CommandEmbedder("/nonexistent/embedder --flag").embed_batch(["a"])
    with pytest.raises(UsageError, match="needs a command"):
        CommandEmbedder("  ")


def test_vector_cache_serves_a_second_run_and_stores_no_text(
    tmp_path: Path, _private_cache: Path
) -> None:
    log = tmp_path / "calls.txt"
    cmd = _script(
        tmp_path,
        f"open({str(log)!r}, 'a').write('call\\n')\n"
        "print(json.dumps([[float(len(t)), 0.25] for t in texts]))\n",
    )
    secret = "the customer's card number is 4111 1111"
    first = E.embed_many(E.resolve_embedder(f"cmd:{cmd}").embedder, [secret, "other"])
    second = E.embed_many(E.resolve_embedder(f"cmd:{cmd}").embedder, [secret, "other"])
    assert [list(v) for v in second] == [list(v) for v in first]
    assert log.read_text().count("call") == 1  # the second run embedded nothing
    files = [p for p in _private_cache.rglob("*") if p.is_file()]
    assert len(files) == 2
    for p in files:
        assert b"4111" not in p.read_bytes() and b"customer" not in p.read_bytes()
        assert "4111" not in str(p)


def test_no_cache_option_and_environment_variable(
    tmp_path: Path, _private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd = _script(tmp_path, "print(json.dumps([[1.0, 2.0] for t in texts]))\n")

    def cached() -> int:
        return sum(1 for p in _private_cache.rglob("*") if p.is_file())

    E.embed_many(E.resolve_embedder(f"cmd:{cmd}", use_cache=False).embedder, ["a"])
    assert cached() == 0
    monkeypatch.setenv(NO_CACHE_ENV, "1")
    E.embed_many(E.resolve_embedder(f"cmd:{cmd}").embedder, ["a"])
    assert cached() == 0
    monkeypatch.setenv(NO_CACHE_ENV, "0")  # "0" means: do cache
    E.embed_many(E.resolve_embedder(f"cmd:{cmd}").embedder, ["a"])
    assert cached() == 1


def test_cache_keys_by_embedder_and_model_version(tmp_path: Path) -> None:
    a = VectorCache("wordllama", "0.4.0.post1/l2_supercat-256", tmp_path)
    b = VectorCache("wordllama", "9.9/other-256", tmp_path)
    a.put_many({"hello": np.arange(4, dtype=np.float32)})
    assert a.get_many(["hello"], 4)["hello"] == [0, 1, 2, 3]
    # float32 vectors come back with the same floats; other vectors as float64
    third = np.float32(1) / np.float32(3)
    a.put_many({"f32": np.array([third], dtype=np.float32), "f64": [0.1, 2.5]})
    assert a.get_many(["f32"], 1)["f32"] == [float(third)]
    assert a.get_many(["f64"], 2)["f64"] == [0.1, 2.5]
    assert b.get_many(["hello"], 4) == {}
    assert a.get_many(["hello"], 8) == {}  # a mis-sized vector is a miss


def test_unwritable_cache_never_fails(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    c = VectorCache("x", "1", blocker / "sub")
    c.put_many({"t": np.ones(3)})
    assert c.write_errors == 1 and c.get_many(["t"], 3) == {}
