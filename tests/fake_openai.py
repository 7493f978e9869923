"""A local OpenAI-compatible chat-completions server for the replay tests (never the network).

``FakeOpenAI(rules)`` serves ``POST /v1/chat/completions`` on 127.0.0.1 (an ephemeral port) in a
thread. Its answer is scripted: ``wrong`` while any message still holds one of the ``planted``
texts, else ``right`` — the model repeats a planted fact as long as it can see it. A list of
``script`` steps can first answer with other statuses (429 with Retry-After, 500, 401, a
hang past the client's timeout). Every request body and its headers are kept in ``requests``.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(
        self,
        *,
        planted: list[str] | None = None,
        wrong: str = "WRONG",
        right: str = "RIGHT",
        script: list[dict[str, Any]] | None = None,
        usage: int = 10,
        delay: float = 0.0,
    ) -> None:
        self.planted = list(planted or [])
        self.wrong = wrong
        self.right = right
        self.script = list(script or [])
        self.usage = usage
        self.delay = delay  # seconds before every answer (a model that takes its time)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.handling_ns: list[int] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # one buffered write per answer, sent at once: a server that trickles its headers
            # and body out in small unbuffered writes makes every client wait on delayed ACKs
            wbufsize = 1 << 16
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                t0 = time.perf_counter_ns()
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                    step = fake.script.pop(0) if fake.script else None
                if self.path.split("?")[0] != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "no such route"}}, t0)
                if fake.delay:
                    time.sleep(fake.delay)
                if step is not None:
                    if step.get("hang"):
                        time.sleep(step["hang"])
                    status = step.get("status", 200)
                    if status != 200:
                        headers = step.get("headers", {})
                        return self._send(
                            status, {"error": {"message": step.get("message", "x")}}, t0, headers
                        )
                text = json.dumps(body.get("messages", []), ensure_ascii=False)
                seen = any(p in text for p in fake.planted) if fake.planted else True
                answer = fake.wrong if seen else fake.right
                doc = {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": fake.usage,
                        "completion_tokens": 1,
                        "total_tokens": fake.usage + 1,
                    },
                }
                self._send(200, doc, t0)

            def _send(
                self, status: int, doc: Any, t0: int, headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                # the client gave up (its timeout): what a slow server sees too
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)
                with fake._lock:
                    fake.handling_ns.append(time.perf_counter_ns() - t0)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_forever(planted: list[str], wrong: str, right: str) -> None:  # pragma: no cover
    """``python -m tests.fake_openai PLANTED WRONG RIGHT``: serve until killed, print the URL."""
    with FakeOpenAI(planted=planted, wrong=wrong, right=right) as fake:
        print(fake.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    import sys

    serve_forever([sys.argv[1]], sys.argv[2], sys.argv[3])
