"""``argocd-lifecycle receiver serve``: run the alert receiver (HTTP API + delivery) until stopped."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import click

from argocd_lifecycle import logs
from argocd_lifecycle.http import server
from argocd_lifecycle.http.address import parse_listen
from argocd_lifecycle.http.server import ServerSettings, limits_from_options, server_options
from argocd_lifecycle.notifications.receiver import config as receiver_config
from argocd_lifecycle.notifications.receiver.app import Receiver, build_app
from argocd_lifecycle.notifications.receiver.stores import open_state

log = logging.getLogger("argocd_lifecycle.receiver")


@click.group()
def receiver() -> None:
    """The alert receiver: verify, de-duplicate, silence, collapse, route and deliver."""


@receiver.command()
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Receiver config (YAML).",
)
@click.option("--listen", default=None, help="HOST:PORT to listen on (default from config, 127.0.0.1:8080).")
@click.option("--state", default=None, help="sqlite:///file.db (default) or redis://host:port/db.")
@click.option("--log-level", default="INFO", show_default=True, help="Logging level.")
@server_options
def serve(config_path: Path, listen: str | None, state: str | None, log_level: str, **limits: Any) -> None:
    """Serve the receiver API and deliver from the outbox until SIGTERM/SIGINT."""
    cfg = receiver_config.load(config_path)
    host, port = parse_listen(listen or cfg.listen)
    settings = ServerSettings(((host, port),), limits_from_options(**limits), log_level=log_level)
    logs.setup(log_level)
    url = state or cfg.state

    async def main() -> None:
        # Opened inside the serving loop: asyncio Redis clients belong to the loop that made them.
        app = build_app(Receiver(cfg, await open_state(url)))
        log.info("receiver listening on %s:%d, state %s", host, port, url.split("@")[-1])
        await server.serve(app, settings, lifespan="on")

    server.run(main())
