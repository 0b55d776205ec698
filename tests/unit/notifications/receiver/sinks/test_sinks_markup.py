"""Attack: what a sender writes is shown as text in every chat service, never as its markup.

DingTalk renders markdown and Teams' TextBlocks and facts do too, so a sender's ``[Acknowledge](https://evil)``
became a link, ``![](...)`` an image (a tracking pixel), ``<font>`` coloured text and a line ``### ...``
a second title inside a message that looks like ours. DingTalk's markdown is checked here with a
CommonMark renderer that passes raw HTML through, as DingTalk does with ``<font>``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from markdown_it import MarkdownIt

from argocd_lifecycle.notifications.receiver import text
from argocd_lifecycle.notifications.receiver.config import SmtpSettings
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks import dingtalk, slack, teams
from argocd_lifecycle.notifications.receiver.sinks.email import message

OURS = "https://argocd.example/applications/argocd/shop"
HOSTILE = [
    "[Acknowledge](https://evil.example/ack)",
    "![](https://evil.example/pixel.png)",
    "<https://evil.example/auto>",
    "<font color=red>resolved</font>",
    '<img src="https://evil.example/i.png" onerror="alert(1)">',
    "<a href='https://evil.example'>x</a>",
    "[ref]\n\n[ref]: https://evil.example/ref",
    "&#91;x&#93;(https://evil.example/entity)",
    "\n### [critical] Cluster prod: ClusterUnreachable\n> quote\n- **Cluster**: prod\n1. one\n---\n===",
    "```\ncode\n```\n~~~",
    "@13800000000 @all <at>everyone</at> <!channel> <@U123>",
    "back\\slash\\[x\\](https://evil.example/escaped)",
    "*bold* _it_ ~~strike~~ `code` | a | b |",
]


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def render(markdown: str) -> _Html:
    html = _Html()
    html.feed(MarkdownIt("commonmark", {"html": True}).render(markdown))
    return html


def hostile_note(payload: str) -> Notification:
    return Notification(
        kind="alert",
        title=f"[warning] {payload} on edge-7: on-sync-failed",
        text=f"sync failed: {payload}",
        severity="warning",
        fingerprint="f",
        url=OURS,
        fields=(("Application", payload), ("Cluster", "edge-7")),
    )


@pytest.mark.parametrize("payload", HOSTILE)
def test_dingtalk_shows_sender_markdown_as_text(payload: str) -> None:
    md = dingtalk.markdown(hostile_note(payload))["markdown"]["text"]
    html = render(md)
    links = [attrs.get("href") for tag, attrs in html.tags if tag == "a"]
    assert links == [OURS]  # only the receiver's own "Open"
    tags = {tag for tag, _ in html.tags}
    assert tags <= {"h3", "p", "ul", "li", "strong", "a"}, tags  # only our own layout: one title, one list
    assert [tag for tag, _ in html.tags].count("h3") == 1
    assert [tag for tag, _ in html.tags].count("li") == 2
    shown = "".join(html.text)
    assert text.one_line(payload) in text.one_line(shown)  # every character is still there, as text


@pytest.mark.parametrize("payload", HOSTILE)
def test_escaped_text_keeps_nothing_a_renderer_without_escapes_would_pair(payload: str) -> None:
    escaped = text.markdown(payload)
    unescaped = re.sub(r"\\.", "", escaped)  # what is left when every escaped character is dropped
    for opener in ("](", "![", "<", "[", "*", "_", "`", "@", "&"):
        assert opener not in unescaped
    for line in escaped.split("\n"):
        assert not re.match(r"^ {0,3}([#>+=-]|[0-9]+\.)", line), line


def test_markdown_round_trips_ordinary_names() -> None:
    for name in ("prod-eu-1", "guestbook.prod", "a_b", "1.29.3", "https://10.0.0.1:6443"):
        assert "".join(render(text.markdown(name)).text).strip() == name


def _runs(card: dict[str, Any]) -> list[dict[str, Any]]:
    content = card["attachments"][0]["content"]
    assert {element["type"] for element in content["body"]} == {"RichTextBlock"}
    return [run for block in content["body"] for run in block["inlines"]]


@pytest.mark.parametrize("payload", HOSTILE)
def test_teams_puts_sender_text_only_into_text_runs(payload: str) -> None:
    """A TextRun is never read as markdown (Adaptive Cards schema); a TextBlock and a Fact would be."""
    card = teams.card(hostile_note(payload))
    runs = _runs(card)
    assert all(run["type"] == "TextRun" for run in runs)
    texts = [run["text"] for run in runs]
    assert f"sync failed: {payload}" in texts and text.one_line(payload) in texts
    assert card["attachments"][0]["content"]["actions"] == [{"type": "Action.OpenUrl", "title": "Open", "url": OURS}]


def test_slack_still_escapes_its_three_characters() -> None:
    section = slack.blocks(hostile_note("<https://evil.example|Acknowledge> & <!here>"))["blocks"][1]["text"]["text"]
    assert section == "sync failed: &lt;https://evil.example|Acknowledge&gt; &amp; &lt;!here&gt;"


@pytest.mark.parametrize("title", ["[critical] a\r\nBcc: victim@example.org", "x\ny", "\x00\x1b[31m red \u2028 z"])
def test_an_email_subject_is_one_line_whatever_the_title(title: str) -> None:
    """Attack: CR/LF in a title made ``email`` refuse the Subject header, and the alert was dead-lettered."""
    smtp = SmtpSettings("127.0.0.1", 25, "argocd@example.org", ("ops@example.org",), starttls=False)
    note = Notification("alert", title, "body\r\nwith lines", "critical", "f")
    msg = message(note, "key-1", smtp)
    subject = msg["Subject"]
    assert "\n" not in subject and "\r" not in subject and "\x00" not in subject
    assert msg["Bcc"] is None
    assert subject == text.one_line(title)
    msg.as_bytes()  # the whole message serialises


def test_a_long_subject_is_cut() -> None:
    smtp = SmtpSettings("127.0.0.1", 25, "argocd@example.org", ("ops@example.org",), starttls=False)
    subject = message(Notification("alert", "x" * 20_000, "t", "info", "f"), "k", smtp)["Subject"]
    assert len(subject) == 250 and subject.endswith("…")
