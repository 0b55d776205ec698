"""Real HTTP servers on 127.0.0.1 standing in for Slack, DingTalk, Teams and a signed webhook.

Each checks what it receives the way the real service (or a careful consumer) would, independently
of the receiver's code: Slack's Block Kit rules, DingTalk's published signing algorithm recomputed
here, the webhook HMAC recomputed here. Problems are collected in ``errors``; tests assert it stays
empty. ``down`` makes a server answer 503 (a sink outage).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TEXT_TYPES = {"plain_text", "mrkdwn"}
BLOCK_TYPES = {"header", "section", "context", "actions", "divider"}


def slack_problems(body: Any) -> list[str]:
    """Block Kit rules for incoming webhooks (limits from Slack's block reference)."""
    problems: list[str] = []
    if not isinstance(body, dict) or not isinstance(body.get("text"), str) or not body["text"]:
        return ["top-level 'text' (notification fallback) is required"]
    blocks = body.get("blocks")
    if not isinstance(blocks, list) or not 0 < len(blocks) <= 50:
        return ["'blocks' must be a list of 1-50 blocks"]

    def text_obj(obj: Any, where: str, limit: int, kinds: set[str] = TEXT_TYPES) -> None:
        if not isinstance(obj, dict) or obj.get("type") not in kinds:
            problems.append(f"{where}: text object of type {sorted(kinds)} expected")
        elif not isinstance(obj.get("text"), str) or not 0 < len(obj["text"]) <= limit:
            problems.append(f"{where}: text must be 1-{limit} characters")

    for i, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        where = f"blocks[{i}]"
        if kind not in BLOCK_TYPES:
            problems.append(f"{where}: unknown block type {kind!r}")
        elif kind == "header":
            text_obj(block.get("text"), where, 150, {"plain_text"})
        elif kind == "section":
            if "text" not in block and "fields" not in block:
                problems.append(f"{where}: section needs text or fields")
            if "text" in block:
                text_obj(block["text"], where, 3000)
            fields = block.get("fields", [])
            if len(fields) > 10:
                problems.append(f"{where}: more than 10 fields")
            for j, f in enumerate(fields):
                text_obj(f, f"{where}.fields[{j}]", 2000)
        elif kind == "context":
            elements = block.get("elements", [])
            if not 0 < len(elements) <= 10:
                problems.append(f"{where}: context needs 1-10 elements")
            for j, e in enumerate(elements):
                text_obj(e, f"{where}.elements[{j}]", 3000)
        elif kind == "actions":
            for j, e in enumerate(block.get("elements", [])):
                if e.get("type") != "button" or not str(e.get("url", "")).startswith(("http://", "https://")):
                    problems.append(f"{where}.elements[{j}]: button with an http(s) url expected")
                text_obj(e.get("text"), f"{where}.elements[{j}]", 75, {"plain_text"})
    return problems


def dingtalk_sign(secret: str, timestamp: str) -> str:
    """DingTalk's published algorithm: base64(HmacSHA256(key=secret, timestamp + "\\n" + secret))."""
    mac = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Sink:
    kind: str  # slack | dingtalk | teams | webhook
    secret: str = ""
    down: bool = False
    delay: float = 0.0  # seconds to hold each answer after recording the request (a slow destination)
    gone: bool = False  # answer 404, as a deleted webhook does
    received: list[Received] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        suffix = "/robot/send?access_token=tok" if self.kind == "dingtalk" else f"/{self.kind}"
        return f"http://{host}:{port}{suffix}"

    def bodies(self) -> list[Any]:
        with self.lock:
            return [r.json() for r in self.received]

    def check(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        try:
            data = json.loads(body)
        except ValueError:
            return 400, {"error": "not json"}
        if self.kind == "slack":
            problems = slack_problems(data)
            return (400, {"error": "invalid_blocks", "problems": problems}) if problems else (200, {})
        if self.kind == "dingtalk":
            query = parse_qs(urlsplit(path).query)
            timestamp, sign = query.get("timestamp", [""])[0], query.get("sign", [""])[0]
            if not timestamp.isdigit() or abs(time.time() * 1000 - int(timestamp)) > 3600_000:
                return 200, {"errcode": 310000, "errmsg": "timestamp missing or too old"}
            if sign != dingtalk_sign(self.secret, timestamp):  # parse_qs has undone the URL encoding
                return 200, {"errcode": 310000, "errmsg": "sign not match"}
            if data.get("msgtype") != "markdown" or not data.get("markdown", {}).get("text"):
                return 200, {"errcode": 40035, "errmsg": "markdown message expected"}
            return 200, {"errcode": 0, "errmsg": "ok"}
        if self.kind == "teams":
            attachment = (data.get("attachments") or [{}])[0]
            content = attachment.get("content", {})
            if (
                data.get("type") != "message"
                or attachment.get("contentType") != "application/vnd.microsoft.card.adaptive"
                or content.get("type") != "AdaptiveCard"
                or not content.get("body")
            ):
                return 400, {"error": "adaptive card expected"}
            return 202, {}
        # webhook: recompute the HMAC here rather than trusting the receiver's own verify()
        timestamp = headers.get("x-argocd-lifecycle-timestamp", "")
        expected = hmac.new(self.secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        if headers.get("x-argocd-lifecycle-signature") != f"sha256={expected}":
            return 401, {"error": "bad signature"}
        if abs(time.time() - int(timestamp or 0)) > 300:
            return 401, {"error": "stale"}
        if headers.get("idempotency-key") != data.get("idempotencyKey"):
            return 400, {"error": "idempotency key header and body differ"}
        return 200, {}


def _handler(sink: Sink) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            if sink.down:
                status, answer = 503, {"error": "down for maintenance"}
            elif sink.gone:
                status, answer = 404, {"error": "no_service"}
            else:
                status, answer = sink.check(self.path, headers, body)
                with sink.lock:
                    if status < 300 and answer.get("errcode", 0) == 0:
                        sink.received.append(Received(self.path, headers, body, time.time()))
                    else:
                        sink.errors.append(f"{status}: {answer}")
            if sink.delay:
                time.sleep(sink.delay)
            raw = json.dumps(answer).encode() if answer else b"ok"
            self.send_response(status)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler


def start(kind: str, secret: str = "") -> Sink:
    sink = Sink(kind, secret)
    sink.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(sink))
    threading.Thread(target=sink.server.serve_forever, daemon=True).start()
    return sink
