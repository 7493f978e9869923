"""The ``cmd:COMMAND`` embedder: the user's own embedding service behind a one-shot process.

Protocol (documented in ``docs/`` and ``afp bisect``'s help): afp runs COMMAND once per batch as
an argv list (split like a shell would, never through one), writes a JSON array of strings to its
stdin, and reads from its stdout a JSON array holding one array of numbers per text, in the same
order, all of the same length. Anything else — a start failure, a non-zero exit, a timeout, bytes
that are not that JSON, a wrong count, a non-finite number — stops the localization with
``ExternalCommandFailed`` (exit 3, like a failing rerun), with the tail of the command's stderr.
The command's process group is killed when it times out or afp stops, so nothing outlives afp.
"""

from __future__ import annotations

import json
import math
import shlex
import subprocess
from typing import TYPE_CHECKING

from agentbisect.bisect.causal.child import exit_reason, kill_group, start_in_group, stderr_tail
from agentbisect.bisect.options import EMBEDDER
from agentbisect.core.errors import ExternalCommandFailed, UsageError
from agentbisect.core.js import is_num

if TYPE_CHECKING:
    import numpy as np

DEFAULT_TIMEOUT = 120.0


class CommandEmbedder:
    """Vectors from an external command, one process per batch."""

    def __init__(self, command: str, *, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise UsageError(
                f"{EMBEDDER.flag} cmd:{command}: cannot split the command ({exc})"
            ) from None
        if not argv:
            raise UsageError(f"{EMBEDDER.flag} cmd: needs a command after 'cmd:'")
        self.argv = argv
        self.command = command
        self.id = "cmd"
        self.model_version = command  # the cache key: change the command to change the model
        self.timeout = timeout
        self.dimensions = 0  # known after the first answer

    def label(self) -> str:
        return f"cmd:{self.command}"

    def _fail(self, why: str, stderr: bytes = b"") -> ExternalCommandFailed:
        return ExternalCommandFailed(
            f"embedder command {self.command!r} failed: {why}\nstderr tail:\n{stderr_tail(stderr)}"
        )

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
        if not texts:
            return []
        import numpy as np

        data = json.dumps(texts, ensure_ascii=True).encode("ascii")
        try:
            proc = start_in_group(self.argv)
        except OSError as exc:
            raise self._fail(f"cannot start it ({exc.strerror or exc})") from None
        try:
            try:
                out, err = proc.communicate(data, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                kill_group(proc)
                _, err = proc.communicate()
                raise self._fail(f"timed out after {self.timeout:g} s", err) from None
        finally:
            kill_group(proc)
            if proc.poll() is None:
                proc.wait()
        if proc.returncode != 0:
            raise self._fail(exit_reason(proc.returncode), err)
        try:
            obj = json.loads(out)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._fail("stdout is not JSON (expected [[number, ...], ...])", err) from None
        if not isinstance(obj, list) or len(obj) != len(texts):
            got = f"{len(obj)} items" if isinstance(obj, list) else type(obj).__name__
            raise self._fail(f"expected a JSON array of {len(texts)} vectors, got {got}", err)
        vecs: list[np.ndarray] = []
        for i, row in enumerate(obj):
            if (
                not isinstance(row, list)
                or not row
                or not all(is_num(x) and math.isfinite(x) for x in row)
            ):
                raise self._fail(f"vector {i} is not a non-empty array of finite numbers", err)
            vecs.append(np.asarray(row, dtype="<f8"))
        dims = {v.size for v in vecs}
        if len(dims) != 1 or (self.dimensions and self.dimensions not in dims):
            raise self._fail(f"vectors differ in length ({sorted(dims)})", err)
        self.dimensions = vecs[0].size
        return vecs
