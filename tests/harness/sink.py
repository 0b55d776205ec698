"""The loopback end of the receiver's webhook delivery: records every message it is sent."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Message:
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON
    received: float  # time.monotonic() on arrival


class Sink:
    """A real HTTP server on 127.0.0.1 (random port), answering 200 to every POST."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._messages: list[Message] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode(errors="replace")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                with sink._lock:
                    sink._messages.append(Message(self.path, dict(self.headers.items()), body, time.monotonic()))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # quiet: the test reads messages
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="e2e-sink", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def messages(self) -> list[Message]:
        with self._lock:
            return list(self._messages)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
