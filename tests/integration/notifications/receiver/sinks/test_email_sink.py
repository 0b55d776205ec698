"""The optional e-mail sink against a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

import email
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from argocd_lifecycle.notifications.receiver.config import SinkSpec, SmtpSettings
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks import DeliveryError
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
