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

The flags, their defaults, ranges and help are declared once, in ``OPTIONS`` below; what they mean
in full: README ("Plugin generator service"). ``--token-file`` is re-read when it changes, so a rotated
Secret needs no restart; ``--policy-file`` is described in generators/service/policy.py.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import click

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.service.policy import PolicyTable, load_policy
from argocd_lifecycle.http.body import MAX_BODY_BYTES
from argocd_lifecycle.http.tokens import TokenFile
from argocd_lifecycle.options import Option, Options

log = logging.getLogger(__name__)

_FILE = click.Path(path_type=Path, dir_okay=False)
#: the service's flags, each declared once: click options, defaults, ranges and help
OPTIONS = Options(
    Option(
        "--token-file",
        type=_FILE,
        envvar="ARGOCD_LIFECYCLE_TOKEN_FILE",
        help="File with the bearer token Argo CD sends (re-read when it changes).",
    ),
    Option("--insecure-no-auth", is_flag=True, help="Serve without authentication (tests only)."),
    Option(
        "--max-staleness",
        type=float,
        default=60.0,
        low=0,
        help="Answer 503 once the Secret watch has been broken this many seconds.",
    ),
    Option(
        "--max-drop-percent",
        type=float,
        default=50.0,
        low=0,
        high=100,
        help="Answer 503 when an answer would lose more than this share of clusters.",
    ),
    Option(
        "--drop-settle",
        type=float,
        default=5.0,
        low=0,
        high=600,
        unit="seconds",
        help="Seconds a loss of clusters must last before the mass-drop guard judges it (503 meanwhile).",
    ),
    Option(
        "--policy-file",
        type=_FILE,
        envvar="ARGOCD_LIFECYCLE_POLICY_FILE",
        help="YAML overrides of the phase -> syncEnabled/prune/selfHeal table.",
    ),
)
DEFAULT_MAX_STALENESS: float = OPTIONS["max_staleness"].default
DEFAULT_MAX_DROP_PERCENT: float = OPTIONS["max_drop_percent"].default
DEFAULT_DROP_SETTLE: float = OPTIONS["drop_settle"].default


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
        # the ranges of the option table: click checks them too, but not every caller is click
        OPTIONS.check(
            {"max_staleness": max_staleness, "max_drop_percent": max_drop_percent, "drop_settle": drop_settle}
        )
        return cls(
            token=TokenFile(token_file) if token_file is not None else None,
            insecure_no_auth=insecure_no_auth,
            max_staleness=max_staleness,
            max_drop_percent=max_drop_percent,
            drop_settle=drop_settle,
            policy=load_policy(policy_file),
        )


#: click options for the service settings, named like ServiceSettings.from_options' arguments
service_options = OPTIONS.decorate
