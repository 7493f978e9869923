"""The chat-completions client of ``afp bisect``'s replay: one endpoint the user named, its key
rules, and a client that retries what is worth retrying and fails fast on the rest.

- **Where**: ``URL/chat/completions`` (``URL`` is the base URL, as ``base_url`` in the openai
  package; its query string is kept for the request — Azure's ``api-version`` — but never shown).
- **Keys**: ``OPENAI_API_KEY`` is sent only to https or loopback URLs; the variable the key-env
  option names is sent to any URL; no key, no ``Authorization`` header. A key lives in a
  ``Secret`` (its repr hides it), is never part of a message, and is cut from any error text an
  endpoint sends back. URLs in messages lose user:password and the query string.
- **Retries**: 429, 5xx, timeouts and dropped connections, ``MAX_ATTEMPTS`` in all, waiting what
  ``Retry-After`` says (at most ``MAX_WAIT`` s) or an exponential backoff. 401, 403, 404, other
  4xx and a refused connection fail at once: ``ExternalCommandFailed`` (exit 3), one line naming
  the endpoint and the status.

``httpx`` is imported on first use: without the ``replay`` extra afp works as before and a replay
is one line naming the extra (exit 2).
"""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import msgspec

from agentbisect.bisect.options import REPLAY, REPLAY_KEY_ENV, REPLAY_TIMEOUT
from agentbisect.core.errors import ExternalCommandFailed, UsageError

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
MAX_ATTEMPTS = 4
MAX_WAIT = 60.0  # seconds: the longest Retry-After honoured
BACKOFF = 0.5  # seconds, doubled per attempt
_ERROR_TEXT = 200  # characters of an endpoint's error message quoted


class Secret:
    """A key: usable, never shown (repr, str and tracebacks print a mask)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


def shown_url(url: str) -> str:
    """``url`` as messages show it: no user:password, no query string, no fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def pick_key(
    url: str, key_env: str | None, environ: Mapping[str, str] = os.environ
) -> tuple[Secret | None, str | None]:
    """The key to send to ``url`` and, when ``OPENAI_API_KEY`` is set but withheld, why."""
    parts = urlsplit(url)
    if key_env is not None:
        value = environ.get(key_env, "")
        if not value:
            raise UsageError(f"{REPLAY_KEY_ENV.flag} {key_env}: the variable is not set")
        return Secret(value), None
    value = environ.get(DEFAULT_KEY_ENV, "")
    if not value:
        return None, None
    if parts.scheme == "https" or is_loopback(parts.hostname or ""):
        return Secret(value), None
    return None, (
        f"{DEFAULT_KEY_ENV} is not sent to {shown_url(url)} (plain http, not loopback); name a "
        f"variable with {REPLAY_KEY_ENV.flag} to send a key there"
    )


def chat_url(base: str) -> str:
    """``base/chat/completions``, the base's query string kept."""
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{REPLAY.flag} {shown_url(base)!r}: expected an http(s) base URL")
    path = parts.path.rstrip("/") + "/chat/completions"
    netloc = parts.netloc.rpartition("@")[2]  # credentials go as basic auth, not in the URL
    return urlunsplit((parts.scheme, netloc, path, parts.query, ""))


def load_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise UsageError(
            f"{REPLAY.flag} needs the httpx package: pip install 'agentbisect[replay]'"
        ) from None
    return httpx


class Reply(msgspec.Struct):
    """One completion: the answer's text, its assistant message, tokens, attempts made."""

    output: str
    message: dict[str, Any]
    tokens: int
    attempts: int


def answer_text(message: Mapping[str, Any]) -> str:
    """What a comparator reads of an assistant message: its text, else its tool calls."""
    content = message.get("content")
    if isinstance(content, str) and content:
        return content
    if isinstance(content, list):  # content parts
        text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if text:
            return text
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        return "\n".join(
            f"{(c.get('function') or {}).get('name', '')}({(c.get('function') or {}).get('arguments', '')})"
            for c in calls
            if isinstance(c, dict)
        )
    return ""


class ChatClient:
    """POSTs chat-completions bodies to one endpoint (thread-safe: one pooled httpx client)."""

    def __init__(
        self,
        base_url: str,
        *,
        key: Secret | None,
        timeout: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        httpx = load_httpx()
        self._httpx = httpx
        self.url = chat_url(base_url)
        self.shown = shown_url(self.url)
        self.timeout = timeout
        self._sleep = sleep
        self._key = key
        parts = urlsplit(base_url)
        auth = None
        if parts.username is not None:
            auth = (parts.username, parts.password or "")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            headers["Authorization"] = "Bearer " + key.reveal()
        # no proxies or .netrc from the environment: afp talks to the URL named, nothing else
        self._client = httpx.Client(
            headers=headers, timeout=timeout, auth=auth, trust_env=False, follow_redirects=False
        )

    def close(self) -> None:
        self._client.close()

    def _scrub(self, text: str) -> str:
        if self._key is not None and self._key.reveal():
            text = text.replace(self._key.reveal(), "***")
        return " ".join(text.split())[:_ERROR_TEXT]

    def _fail(self, why: str) -> ExternalCommandFailed:
        return ExternalCommandFailed(f"replay endpoint {self.shown}: {why}")

    def post(self, body: dict[str, Any]) -> Reply:
        httpx = self._httpx
        data = msgspec.json.encode(body)
        last = ""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            wait = BACKOFF * 2 ** (attempt - 1)
            try:
                r = self._client.post(self.url, content=data)
            except httpx.ConnectError as exc:
                reason = "connection refused" if "refused" in str(exc).lower() else "cannot connect"
                raise self._fail(f"{reason} ({self._scrub(str(exc))})") from None
            except httpx.TimeoutException:
                last = f"timed out after {self.timeout:g} s ({REPLAY_TIMEOUT.flag})"
            except httpx.TransportError as exc:
                last = f"connection dropped ({self._scrub(str(exc)) or type(exc).__name__})"
            else:
                status = r.status_code
                if status == 200:
                    return self._reply(r, attempt)
                reason = f"HTTP {status} {r.reason_phrase}".rstrip()
                if status == 429 or status >= 500:
                    last = reason
                    wait = _retry_after(r.headers.get("retry-after"), wait)
                else:
                    raise self._fail(reason + self._why(status, r))
            if attempt < MAX_ATTEMPTS:
                self._sleep(wait)
        raise self._fail(f"{last}, {MAX_ATTEMPTS} attempts")

    def _why(self, status: int, r: Any) -> str:
        if status in (401, 403):
            return (
                f" — check the key ({DEFAULT_KEY_ENV}, or the variable {REPLAY_KEY_ENV.flag} names)"
            )
        if status == 404:
            return " — check the URL (afp POSTs to URL/chat/completions) and the model"
        try:
            err = r.json().get("error")
            msg = err.get("message") if isinstance(err, dict) else err
        except (ValueError, AttributeError):
            msg = None
        return f": {self._scrub(msg)}" if isinstance(msg, str) and msg else ""

    def _reply(self, r: Any, attempt: int) -> Reply:
        try:
            doc = msgspec.json.decode(r.content)
            message = doc["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError
        except (msgspec.DecodeError, KeyError, IndexError, TypeError):
            raise self._fail(
                "answered HTTP 200 without a chat completion (no choices[0].message)"
            ) from None
        usage = doc.get("usage") if isinstance(doc, dict) else None
        tokens = 0
        if isinstance(usage, dict):
            total = usage.get("total_tokens")
            if isinstance(total, int):
                tokens = total
            else:
                tokens = sum(
                    v
                    for v in (usage.get("prompt_tokens"), usage.get("completion_tokens"))
                    if isinstance(v, int)
                )
        return Reply(answer_text(message), message, tokens, attempt)


def _retry_after(value: str | None, default: float) -> float:
    """Seconds to wait per ``Retry-After`` (seconds or an HTTP date), capped at ``MAX_WAIT``."""
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return default
        seconds = when.timestamp() - time.time()
    return min(MAX_WAIT, max(0.0, seconds))
