"""Sink payloads for hostile or oversized notifications stay inside each service's rules."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks import dingtalk, slack, teams
from tests.integration.notifications.receiver.loopback import dingtalk_sign, slack_problems

HUGE = Notification(
    kind="alert",
    title="[critical] " + "very-long-app-name-" * 20,
    text="<@U123> & <!channel> " + "x" * 5000,
    severity="critical",
    fingerprint="f",
    url="https://argocd.example/applications/argocd/shop",
    fields=tuple((f"Field {n}", "v" * 2500) for n in range(14)),
)


def test_slack_blocks_respect_block_kit_limits_and_escape_mentions() -> None:
    body = slack.blocks(HUGE)
    assert slack_problems(body) == []
    section = body["blocks"][1]["text"]["text"]
    assert section.startswith("&lt;@U123&gt; &amp; &lt;!channel&gt;")  # no pings from alert text
    assert len(body["blocks"][2]["fields"]) == 10


def test_slack_drops_a_button_without_an_http_url() -> None:
    note = Notification("alert", "t", "x", "info", "f", url="javascript:alert(1)")
    assert all(b["type"] != "actions" for b in slack.blocks(note)["blocks"])


def test_dingtalk_signed_url_matches_the_published_algorithm() -> None:
    url = dingtalk.sign_url("https://oapi.example/robot/send?access_token=abc", b"SECxyz", 1_760_000_000.123)
    query = parse_qs(urlsplit(url).query)
    assert query["access_token"] == ["abc"]
    assert query["timestamp"] == ["1760000000123"]
    assert query["sign"] == [dingtalk_sign("SECxyz", "1760000000123")]


def test_dingtalk_markdown_and_teams_card() -> None:
    md = dingtalk.markdown(HUGE)
    assert md["msgtype"] == "markdown" and len(md["markdown"]["title"]) <= 64
    card = teams.card(HUGE)["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["content"]["actions"][0]["url"] == HUGE.url
