"""Shared test helpers: every fixture path, and the in-process ``afp`` runner.

Test modules import these (``from tests.conftest import UPSTREAM, cli``) instead of re-declaring
them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
UPSTREAM = FIXTURES / "upstream"  # upstream recordings and outputs: never edited
MINI = FIXTURES / "bisect"  # bisect.md §12 self-made recordings
SPEC = FIXTURES / "spec"
GENUI = FIXTURES / "genui"
CAPTURE = FIXTURES / "capture" / "refund-agent.capture.jsonl"
PLANTED = UPSTREAM / "planted-fact.recording.json"


def cli(*args: str, **kwargs: Any) -> Any:
    """Run ``afp ARGS…`` in process (typer's CliRunner); stdout and stderr are kept apart."""
    from typer.testing import CliRunner

    from agentbisect.cli import app

    return CliRunner().invoke(app, list(args), **kwargs)


def afp_proc(
    *args: str,
    text: bool = True,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """Run ``afp ARGS…`` as a real process on this tree's package (``PYTHONPATH`` points here,
    plus ``env``); stdout and stderr captured, as text unless ``text=False``. Other keyword
    arguments (``cwd``, …) go to ``subprocess.run``."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "agentbisect", *args],
        capture_output=True,
        text=text,
        input=input,
        env=full_env,
        timeout=timeout,
        **kwargs,
    )


# A real `afp` run whose last words on stderr name the modules it imported (the start-up tests
# guard what an ordinary run must not import). {entry} starts afp; {names} picks the modules.
_IMPORT_PROBE = """import runpy, sys
sys.argv = ['afp', *sys.argv[1:]]
try:
    {entry}
except SystemExit:
    pass
sys.stderr.write('LOADED ' + ' '.join(sorted({names})))
"""
RUN_AFP = "runpy.run_module('agentbisect', run_name='__main__')"


def afp_import_probe(
    *args: str,
    among: tuple[str, ...] | None = None,
    prefix: str = "",
    entry: str = RUN_AFP,
    python_flags: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = 120,
    **kwargs: Any,
) -> subprocess.CompletedProcess[str]:
    """Run ``afp ARGS…`` in a real process (``python -c``, started by ``entry``) that reports
    which modules it imported: those of ``among`` (all by default) whose names start with
    ``prefix``; read them with ``loaded_modules``. ``env`` is laid over this process's
    environment, ``python_flags`` (e.g. ``-S``) go to the interpreter, other keyword arguments
    (``cwd``, …) to ``subprocess.run``."""
    pool = "sys.modules" if among is None else f"(m for m in {among!r} if m in sys.modules)"
    names = f"m for m in {pool} if m.startswith({prefix!r})"
    probe = _IMPORT_PROBE.format(entry=entry, names=names)
    return subprocess.run(
        [sys.executable, *python_flags, "-c", probe, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        **kwargs,
    )


def loaded_modules(proc: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules an ``afp_import_probe`` process reported (it must have exited 0)."""
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.rsplit("LOADED", 1)[1].split())


def afp_loaded(*args: str, **kwargs: Any) -> set[str]:
    """``loaded_modules(afp_import_probe(*args, **kwargs))``."""
    return loaded_modules(afp_import_probe(*args, **kwargs))


def read_terminal(leader: int) -> bytes:
    """Everything written to a pseudo-terminal until its last writer closes it (or 60 s of
    silence); closes ``leader``."""
    import select

    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: the last writer closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return b"".join(chunks)


def afp_on_a_terminal(
    *args: str, columns: int = 120, terminal: str = "stderr"
) -> tuple[int, bytes, bytes]:
    """Run ``afp ARGS…`` with stderr (or ``terminal="stdout"``) on a pseudo-terminal, so it
    draws progress (or tables); return the exit code, everything written to that terminal, and
    the other stream, piped."""
    import pty

    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS=str(columns))
    on_stdout = terminal == "stdout"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentbisect", *args],
        stdout=follower if on_stdout else subprocess.PIPE,
        stderr=subprocess.PIPE if on_stdout else follower,
        env=env,
    )
    os.close(follower)
    shown = read_terminal(leader)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, shown, err if on_stdout else out


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie counts as dead: it has stopped running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


_SESSION_CACHE: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Before any test module is imported (some copy ``os.environ`` at import time) and before
    module-scoped fixtures start processes, point the vector cache at a directory of this process
    (each xdist worker has its own), so nothing reaches the user's ``~/.cache``."""
    import tempfile

    _SESSION_CACHE.append(tempfile.mkdtemp(prefix="afp-test-cache-"))
    os.environ["XDG_CACHE_HOME"] = _SESSION_CACHE[-1]


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    while _SESSION_CACHE:
        shutil.rmtree(_SESSION_CACHE.pop(), ignore_errors=True)


@pytest.fixture(autouse=True)
def _private_vector_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Tests never read or fill the user's vector cache (subprocesses inherit this too). It lives
    beside, not inside, the test's tmp_path, which some tests expect to hold only their files."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("AGENTBISECT_NO_CACHE", raising=False)
    yield cache
