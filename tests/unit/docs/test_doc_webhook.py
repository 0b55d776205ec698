"""Every `service.webhook.<name>` the docs show reaches the receiver: its URL is the receiver's base (the
catalog's templates add the path), so URL + path is the receiver's ingest route, and its bearer token
names the key the chart and the catalog use in argocd-notifications-secret."""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import build
from argocd_lifecycle.notifications.receiver.app import INGEST, Receiver
from tests.unit.docs.blocks import REPO, Block, all_blocks

CATALOG = build()
SERVICE = CATALOG.settings.webhook_service
VALUES = yaml.safe_load((REPO / "charts" / "argocd-lifecycle" / "values.yaml").read_text(encoding="utf-8"))
TOKEN_KEY = VALUES["notifications"]["webhookService"]["tokenSecretKey"]


def ingest_route() -> str:
    # the receiver's route table, read without a running receiver: only the routes' shapes are needed
    stub = types.SimpleNamespace(**{n: getattr(Receiver, n) for n in dir(Receiver) if not n.startswith("__")})
    (route,) = [e.path for e in Receiver.endpoints(stub) if e.role == INGEST]  # type: ignore[arg-type]
    return str(route)


def template_paths() -> set[str]:
    return {t.fields["webhook"][SERVICE]["path"] for t in CATALOG.templates}


def services(node: Any) -> Iterator[tuple[str, str]]:
    """(key, options text) of every `service.webhook.*` key anywhere in a YAML document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("service.webhook.") and isinstance(value, str):
                yield key, value
            else:
                yield from services(value)
    elif isinstance(node, list):
        for item in node:
            yield from services(item)


def webhook_blocks() -> list[Block]:
    return [b for b in all_blocks() if b.lang in ("yaml", "yml") and "service.webhook." in b.text]


def test_the_docs_show_the_webhook_service() -> None:
    assert webhook_blocks(), "no doc shows the service.webhook the catalog delivers through"


def test_the_catalog_posts_to_the_ingest_route() -> None:
    assert template_paths() == {ingest_route()}


def check(where: str, key: str, text: str) -> None:
    options = yaml.safe_load(text)
    assert key == f"service.webhook.{SERVICE}", f"{where}: the catalog's templates deliver through {SERVICE}"
    url = urlsplit(options["url"])
    assert url.path in ("", "/"), (
        f"{where}: {key} url {options['url']!r} has the path {url.path!r}; the templates add "
        f"{sorted(template_paths())[0]!r}, so every notification would get a 404"
    )
    tokens = [
        m.group(1)
        for h in options.get("headers", [])
        if h.get("name") == "Authorization"
        for m in [re.fullmatch(r"Bearer \$([\w.-]+)", str(h.get("value", "")))]
        if m
    ]
    assert tokens == [TOKEN_KEY], (
        f"{where}: {key} must send 'Bearer ${TOKEN_KEY}' (the key in argocd-notifications-secret the chart "
        f"and the catalog use), not {tokens}"
    )


@pytest.mark.parametrize("block", webhook_blocks(), ids=lambda b: b.where)
def test_every_documented_webhook_service_reaches_the_receiver(block: Block) -> None:
    found = [s for doc in yaml.safe_load_all(block.text) for s in services(doc)]
    assert found, f"{block.where}: a service.webhook block that does not parse to one"
    for key, text in found:
        check(block.where, key, text)


def test_the_catalogs_own_example_reaches_the_receiver() -> None:
    check("notifications render", f"service.webhook.{SERVICE}", CATALOG.webhook_service_example)


def test_a_path_in_the_url_is_caught(tmp_path: Path) -> None:
    text = "url: http://receiver:8080/v1/events/argocd\nheaders:\n- {name: Authorization, value: Bearer $x}\n"
    with pytest.raises(AssertionError, match="404"):
        check("t", f"service.webhook.{SERVICE}", text)
    text = "url: http://receiver:8080\nheaders:\n- {name: Authorization, value: Bearer $receiver-token}\n"
    with pytest.raises(AssertionError, match=TOKEN_KEY):
        check("t", f"service.webhook.{SERVICE}", text)
