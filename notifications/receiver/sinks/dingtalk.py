"""DingTalk custom robot: markdown message, signed URL (加签) when a secret is configured.

Every sender-controlled text is escaped into the markdown as text (``text.markdown``: no link, image,
HTML, heading or mention a sender writes is rendered as one); field values are one line. The only link
is the "Open" one, whose URL the receiver built (``links.py``). No ``at`` block is ever sent, so a
message cannot ping anyone.

Signing as DingTalk publishes it: ``sign = urlencode(base64(HMAC-SHA256(key=secret,
msg=timestamp_ms + "\\n" + secret)))``, appended with ``timestamp`` to the webhook URL. The robot
answers HTTP 200 with ``{"errcode": 0}`` on success; a non-zero errcode is a failure.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable
from typing import Any
from urllib.parse import quote_plus

import httpx

from argocd_lifecycle.notifications.receiver import text
from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import DeliveryError, post

_RETRYABLE_ERRCODES = {-1, 130101}  # system busy; sending too fast (20 messages a minute)


def sign_url(url: str, secret: bytes, now: float) -> str:
    timestamp = str(int(now * 1000))
    mac = hmac.new(secret, f"{timestamp}\n".encode() + secret, hashlib.sha256).digest()
    sign = quote_plus(base64.b64encode(mac).decode())
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}timestamp={timestamp}&sign={sign}"


def markdown(note: Notification) -> dict[str, Any]:
    title = text.one_line(note.title)
    lines = [f"### {text.markdown(title)}", "", text.markdown(note.text), ""]
    lines += [f"- **{text.markdown(k)}**: {text.markdown(text.one_line(v))}" for k, v in note.fields]
    if note.url.startswith(("http://", "https://")):
        lines += ["", f"[Open]({note.url})"]
    # the title is the plain text of the conversation list and the push notification
    return {"msgtype": "markdown", "markdown": {"title": title[:64], "text": "\n".join(lines)}}


class DingTalkSink:
    def __init__(self, spec: SinkSpec, client: httpx.AsyncClient, clock: Callable[[], float]) -> None:
        self.name, self._client, self._clock = spec.name, client, clock
        self._url, self._secret = spec.url, spec.secret

    async def send(self, note: Notification, key: str) -> None:
        url = sign_url(self._url, self._secret, self._clock()) if self._secret else self._url
        response = await post(self._client, "dingtalk", url, json=markdown(note))
        try:
            answer = response.json()
            code = int(answer.get("errcode", 0))
        except (ValueError, AttributeError, TypeError) as exc:
            raise DeliveryError("dingtalk answered with a body that is not its JSON", retryable=True) from exc
        if code != 0:
            message = str(answer.get("errmsg", ""))[:200]
            raise DeliveryError(f"dingtalk errcode {code}: {message}", retryable=code in _RETRYABLE_ERRCODES)
