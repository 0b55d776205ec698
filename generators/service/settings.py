"""Settings of the plugin-generator HTTP service, read once at start-up, and its bearer token file.

Wiring for ``generator serve`` (generators/cli.py)::

    from argocd_lifecycle.generators.service.app import build_app
    from argocd_lifecycle.generators.service.settings import ServiceSettings, service_options

    @click.command()
    @service_options                   # adds the six flags below, passed as keyword arguments
    def serve(..., token_file, insecure_no_auth, max_staleness, max_drop_percent, drop_settle, policy_file):
        settings = ServiceSettings.from_options(
            token_file=token_file, insecure_no_auth=insecure_no_auth, max_staleness=max_staleness,
            max_drop_percent=max_drop_percent, drop_settle=drop_settle,
            policy_file=policy_file)                                       # ConfigError/UsageError
        app = build_app(fleet, settings)                                   # a Starlette app
        uvicorn.run(app, ...)

Flags (environment variable in brackets):

``--token-file FILE`` [ARGOCD_LIFECYCLE_TOKEN_FILE]
    File holding the bearer token Argo CD sends (the Secret key that the plugin ConfigMap's ``token``
    references, mounted as a volume). Surrounding whitespace is ignored. The file is re-read when it
    changes, so a rotated Secret needs no restart. Required unless ``--insecure-no-auth``.
``--insecure-no-auth``
    Serve getparams.execute without authentication (tests and local demos only).
``--max-staleness SECONDS`` (default 60)
    Answer 503 while the cluster Secret watch has been broken for longer than this.
``--max-drop-percent PERCENT`` (default 50, 0-100)
    Answer 503 when an answer would lose more than this share of the clusters the ApplicationSet's
    Applications target (unless the input sets ``allowMassDrop: true``); 100 disables it.
``--drop-settle SECONDS`` (default 5)
    An answer that would lose clusters waits until the loss has been seen this long (503 meanwhile),
    so a batch of Secret deletions or relabellings is judged as a whole by the mass-drop guard.
``--policy-file FILE`` [ARGOCD_LIFECYCLE_POLICY_FILE]
    YAML overrides of the phase -> syncEnabled/prune/selfHeal table (see generators/service/policy.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.service.policy import PolicyTable, load_policy
from argocd_lifecycle.http.tokens import TokenFile

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1 << 20
DEFAULT_MAX_STALENESS = 60.0
DEFAULT_MAX_DROP_PERCENT = 50.0
DEFAULT_DROP_SETTLE = 5.0


@dataclass(frozen=True)
class ServiceSettings:
    #: None only together with insecure_no_auth
    token: TokenFile | None = field(repr=False)
    insecure_no_auth: bool = False
    max_staleness: float = DEFAULT_MAX_STALENESS
    max_drop_percent: float = DEFAULT_MAX_DROP_PERCENT
    drop_settle: float = DEFAULT_DROP_SETTLE
    policy: PolicyTable = field(default_factory=PolicyTable.default)
    max_body_bytes: int = MAX_BODY_BYTES
    #: how often the fleet page refreshes its rows
    page_refresh_seconds: int = 15

    def __post_init__(self) -> None:
        if self.token is None and not self.insecure_no_auth:
            raise UsageError("a token file is required unless insecure_no_auth is set")

    @classmethod
    def from_options(
        cls,
        *,
        token_file: Path | None,
        insecure_no_auth: bool = False,
        max_staleness: float = DEFAULT_MAX_STALENESS,
        max_drop_percent: float = DEFAULT_MAX_DROP_PERCENT,
        drop_settle: float = DEFAULT_DROP_SETTLE,
        policy_file: Path | None = None,
    ) -> ServiceSettings:
        if token_file is not None and insecure_no_auth:
            raise UsageError("--token-file and --insecure-no-auth exclude each other")
        if token_file is None and not insecure_no_auth:
            raise UsageError(
                "refusing to serve getparams.execute without a token: give --token-file FILE "
                "(the Secret key the plugin ConfigMap's token references) or --insecure-no-auth"
            )
        if max_staleness < 0:
            raise UsageError(f"--max-staleness: {max_staleness:g} is negative")
        if not 0 <= max_drop_percent <= 100:
            raise UsageError(f"--max-drop-percent: {max_drop_percent:g} is not between 0 and 100")
        if not 0 <= drop_settle <= 600:
            raise UsageError(f"--drop-settle: {drop_settle:g} is not between 0 and 600 seconds")
        return cls(
            token=TokenFile(token_file) if token_file is not None else None,
            insecure_no_auth=insecure_no_auth,
            max_staleness=max_staleness,
            max_drop_percent=max_drop_percent,
            drop_settle=drop_settle,
            policy=load_policy(policy_file),
        )


F = TypeVar("F", bound=Callable[..., Any])


def service_options(func: F) -> F:
    """Click options for the service settings, named like ServiceSettings.from_options' arguments."""
    file_type = click.Path(path_type=Path, dir_okay=False)
    options = [
        click.option(
            "--token-file",
            type=file_type,
            envvar="ARGOCD_LIFECYCLE_TOKEN_FILE",
            help="File with the bearer token Argo CD sends (re-read when it changes).",
        ),
        click.option("--insecure-no-auth", is_flag=True, help="Serve without authentication (tests only)."),
        click.option(
            "--max-staleness",
            type=click.FloatRange(min=0),
            default=DEFAULT_MAX_STALENESS,
            show_default=True,
            help="Answer 503 once the Secret watch has been broken this many seconds.",
        ),
        click.option(
            "--max-drop-percent",
            type=click.FloatRange(0, 100),
            default=DEFAULT_MAX_DROP_PERCENT,
            show_default=True,
            help="Answer 503 when an answer would lose more than this share of clusters.",
        ),
        click.option(
            "--drop-settle",
            type=click.FloatRange(0, 600),
            default=DEFAULT_DROP_SETTLE,
            show_default=True,
            help="Seconds a loss of clusters must last before the mass-drop guard judges it (503 meanwhile).",
        ),
        click.option(
            "--policy-file",
            type=file_type,
            envvar="ARGOCD_LIFECYCLE_POLICY_FILE",
            help="YAML overrides of the phase -> syncEnabled/prune/selfHeal table.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func
