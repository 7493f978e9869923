"""The one exception family of agentbisect and the exit code each member maps to."""

from __future__ import annotations


class AgentbisectError(Exception):
    """Base of every error the CLI turns into a one-line message and an exit code."""

    exit_code: int = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(AgentbisectError):
    """An input file could not be read as what it should be.

    ``json_path`` uses msgspec's notation (``$.snapshot.commitLog[3]``); it is empty when the
    problem is with the file as a whole (missing, unreadable, not JSON at all).
    """

    exit_code = 2

    def __init__(self, file: str, expected: str, json_path: str = "") -> None:
        self.file = file
        self.json_path = json_path
        self.expected = expected
        where = f" at {json_path}" if json_path else ""
        super().__init__(f"{file}{where}: {expected}")


class UsageError(AgentbisectError):
    """The options given do not make sense together, or name something that is not there."""

    exit_code = 2


class GateTripped(AgentbisectError):
    """A CI gate the user asked for (``afp bisect``'s honesty-flag gate, ``afp genui-stats``' thresholds …) was violated."""

    exit_code = 1


class ExternalCommandFailed(AgentbisectError):
    """A command the user supplied (an ablation rerun) or an endpoint the user named (a replay)
    failed, timed out or answered garbage."""

    exit_code = 3
