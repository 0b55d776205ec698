"""The optional e-mail sink against a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

import email
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from argocd_lifecycle.notifications.receiver.config import SinkSpec, SmtpSettings
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import DeliveryError
from argocd_lifecycle.notifications.receiver.sinks.email import EmailSink
from tests.integration.notifications.receiver.conftest import free_port

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Inbox(Message):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[email.message.Message] = []

    def handle_message(self, message: email.message.Message) -> None:
        self.messages.append(message)


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


def sink(port: int) -> EmailSink:
    settings = SmtpSettings("127.0.0.1", port, "argocd@example.org", ("ops@example.org",), starttls=False)
    return EmailSink(SinkSpec("mail", "email", smtp=settings))


async def test_email_carries_title_fields_and_the_idempotency_key(smtp) -> None:
    inbox, port = smtp
    note = Notification(
        kind="alert",
        title="[critical] shop on edge-7: on-sync-failed",
        text="sync failed",
        severity="critical",
        fingerprint="f",
        url="https://argocd.example/applications/argocd/shop",
        fields=(("Cluster", "edge-7"),),
    )
    await sink(port).send(note, "key-123")
    [message] = inbox.messages
    assert message["Subject"] == note.title
    assert message["To"] == "ops@example.org"
    assert message["Message-ID"] == "<key-123@argocd-lifecycle>"
    body = message.get_payload()
    assert "Cluster: edge-7" in body and note.url in body


async def test_unreachable_smtp_is_retryable() -> None:
    with pytest.raises(DeliveryError) as err:
        await sink(free_port()).send(Notification("alert", "t", "x", "info", "f"), "k")
    assert err.value.retryable


async def test_cr_lf_in_a_title_is_delivered_on_one_subject_line(smtp) -> None:
    """Attack: a CR/LF in a sender's app or trigger made the Subject header invalid, so the message was
    never sent and the alert went to the dead letters; nor may it add a header (Bcc)."""
    inbox, port = smtp
    title = "[critical] shop\r\nBcc: victim@example.org\r\n\r\nbody on edge-7: on-sync-failed"
    await sink(port).send(Notification("alert", title, "text\r\n.\r\nmore", "critical", "f"), "key-1")
    [message] = inbox.messages
    unfolded = message["Subject"].replace("\r\n", "").strip()  # RFC 5322 folding of a long line
    assert unfolded == "[critical] shop Bcc: victim@example.org body on edge-7: on-sync-failed"
    assert message["Bcc"] is None and message["X-RcptTo"] == "ops@example.org"
    assert "more" in message.get_payload()
