"""E-mail through an SMTP relay (optional sink). smtplib is blocking, so it runs in a worker thread.

Header values are one line (``text.one_line``) and cut: a CR or LF a sender put into a title would
make ``email`` refuse the header, and the alert would be dead-lettered rather than sent.
"""

from __future__ import annotations

import asyncio
import smtplib
from email.message import EmailMessage

from argocd_lifecycle.notifications.receiver import text
from argocd_lifecycle.notifications.receiver.config import SinkSpec, SmtpSettings
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import DeliveryError

SUBJECT_LIMIT = 250  # characters; the header is folded into lines of at most 78 anyway


def _header(value: str, limit: int = 998) -> str:
    value = text.one_line(value)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def message(note: Notification, key: str, smtp: SmtpSettings) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = _header(note.title, SUBJECT_LIMIT)
    msg["From"] = _header(smtp.sender)
    msg["To"] = _header(", ".join(smtp.to))
    # The idempotency key as Message-ID lets mail systems drop a re-sent copy.
    msg["Message-ID"] = _header(f"<{key}@argocd-lifecycle>")
    lines = [note.text, "", *(f"{k}: {v}" for k, v in note.fields)]
    if note.url:
        lines += ["", note.url]
    msg.set_content("\n".join(lines))
    return msg


class EmailSink:
    def __init__(self, spec: SinkSpec, timeout: float = 10.0) -> None:
        assert spec.smtp is not None  # config requires it for email
        self.name, self._smtp, self._timeout = spec.name, spec.smtp, timeout

    def _send(self, note: Notification, key: str) -> None:
        smtp = self._smtp
        with smtplib.SMTP(smtp.host, smtp.port, timeout=self._timeout) as conn:
            if smtp.starttls:
                conn.starttls()
            if smtp.username and smtp.password:
                conn.login(smtp.username, smtp.password)
            conn.send_message(message(note, key, smtp))

    async def send(self, note: Notification, key: str) -> None:
        try:
            await asyncio.to_thread(self._send, note, key)
        except smtplib.SMTPResponseException as exc:
            # 4xx replies are transient in SMTP, 5xx permanent.
            raise DeliveryError(f"smtp answered {exc.smtp_code}", retryable=exc.smtp_code < 500) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"smtp: {type(exc).__name__}", retryable=True) from exc
