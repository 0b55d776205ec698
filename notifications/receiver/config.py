"""The receiver's YAML config, read once at start-up into frozen dataclasses.

Secrets (bearer tokens, HMAC secrets, sink secrets, SMTP password) are read from the files the config
names, relative paths resolved next to the config file; they live only in ``repr=False`` fields. The two
bearer tokens are ``TokenFile``s, re-read when their file changes (a rotated Secret needs no restart):
``inbound.tokenFile`` is the ingest token (Argo CD's notifications controller), ``admin.tokenFile`` the
administration token (silences, the outbox, replays); without it the administration routes are off.
Each signed sender has its own HMAC secret (``senders.py``): ``inbound.lifecycleSecretFile`` the
generator's, ``inbound.externalSecretFile`` every other system's (without it ``/v1/events/external`` is
off). ``argocdUrl`` is the Argo CD UI the "Open" links point into; no sender's body decides a link.
"""

from __future__ import annotations

import dataclasses
import hmac
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.http.tokens import TokenFile
from argocd_lifecycle.times import parse_duration
from argocd_lifecycle.yaml import yamlio

SINK_TYPES = ("slack", "dingtalk", "teams", "webhook", "email")
MATCH_KEYS = ("severity", "trigger", "cluster", "clusterPhase", "project", "app", "namespace")
# Documented per-destination limits: Slack ~1 message/s per webhook, DingTalk 20 messages/min per robot.
DEFAULT_RATES: dict[str, tuple[int, float]] = {"slack": (1, 1.0), "dingtalk": (20, 60.0), "teams": (4, 1.0)}
# The Argo CD UI's base URL: scheme, host (a name, IPv4 or [IPv6]), port, path; nothing a link's markup
# (a markdown destination, a header) would read as its end, no user info, query or fragment.
ARGOCD_URL = re.compile(r"^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]*)?$")


@dataclass(frozen=True)
class RateLimit:
    messages: int
    per: float  # seconds


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    sender: str
    to: tuple[str, ...]
    starttls: bool
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SinkSpec:
    name: str
    type: str
    url: str = field(default="", repr=False)  # webhook URLs carry tokens (Slack, DingTalk access_token)
    secret: bytes | None = field(default=None, repr=False)
    rate: RateLimit | None = None
    smtp: SmtpSettings | None = None


@dataclass(frozen=True)
class Route:
    match: dict[str, frozenset[str]]
    receiver: str
    continue_: bool = False


@dataclass(frozen=True)
class Delivery:
    max_attempts: int = 12
    initial_backoff: float = 1.0
    max_backoff: float = 300.0
    timeout: float = 10.0
    lease: float = 60.0
    retention: float = 86400.0


@dataclass(frozen=True)
class ReceiverConfig:
    ingest_token: TokenFile
    #: signs the generator's lifecycle events, accepted on /v1/events/lifecycle only
    lifecycle_secret: bytes = field(repr=False)
    sinks: tuple[SinkSpec, ...]
    routes: tuple[Route, ...]
    #: signs external events, accepted on /v1/events/external only; None: that route answers 403
    external_secret: bytes | None = field(default=None, repr=False)
    #: None: the administration routes answer 403
    admin_token: TokenFile | None = None
    #: the Argo CD UI the "Open" links point into ("" = no links)
    argocd_url: str = ""
    tolerance: int = 300
    dedupe_window: float = 1800.0
    flap_threshold: int = 6
    flap_window: float = 600.0
    storm_group_wait: float = 10.0
    storm_group_interval: float = 300.0
    storm_max_names: int = 50
    delivery: Delivery = Delivery()
    listen: str = "127.0.0.1:8080"
    state: str = "sqlite:///receiver-state/state.db"  # a folder of its own, created 0700


class _Section:
    """Typed access to one mapping of the config, with errors naming the file and the key path."""

    def __init__(self, data: Any, where: str, base: Path) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: must be a mapping")
        self.data, self.where, self.base = data, where, base

    def fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.where}.{key}: {why}")

    def sub(self, key: str) -> _Section:
        return _Section(self.data.get(key) or {}, f"{self.where}.{key}", self.base)

    def text(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str) or not value:
            raise self.fail(key, "required, a non-empty string" if value is None else "must be a string")
        return value

    def integer(self, key: str, default: int) -> int:
        value = self.data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise self.fail(key, "must be a positive whole number")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, "must be true or false")
        return value

    def duration(self, key: str, default: float) -> float:
        value = self.data.get(key)
        if value is None:
            return default
        try:
            return parse_duration(str(value))
        except ValueError as exc:
            raise self.fail(key, str(exc)) from exc

    def token_file(self, key: str) -> TokenFile:
        path = self.base / self.text(key)
        try:
            return TokenFile(path)
        except ConfigError as exc:
            raise self.fail(key, exc.message) from None

    def secret_file(self, key: str) -> bytes:
        path = self.base / self.text(key)
        try:
            data = path.read_bytes().strip()
        except OSError as exc:
            raise self.fail(key, f"cannot read {path}: {exc.strerror}") from exc
        if not data:
            raise self.fail(key, f"{path} is empty")
        return data


# Plain settings: dataclass field -> (key path in the file, kind); the defaults are the dataclasses'.
# kind: "duration" (seconds), "seconds" (whole seconds of a duration), "integer" (positive), "text".
_SETTINGS: dict[str, tuple[str, str]] = {
    "tolerance": ("inbound.tolerance", "seconds"),
    "dedupe_window": ("dedupe.window", "duration"),
    "flap_threshold": ("flap.threshold", "integer"),
    "flap_window": ("flap.window", "duration"),
    "storm_group_wait": ("storm.groupWait", "duration"),
    "storm_group_interval": ("storm.groupInterval", "duration"),
    "storm_max_names": ("storm.maxNames", "integer"),
    "listen": ("listen", "text"),
    "state": ("state", "text"),
}
_DELIVERY: dict[str, tuple[str, str]] = {
    "max_attempts": ("maxAttempts", "integer"),
    "initial_backoff": ("initialBackoff", "duration"),
    "max_backoff": ("maxBackoff", "duration"),
    "timeout": ("timeout", "duration"),
    "lease": ("lease", "duration"),
    "retention": ("retention", "duration"),
}


def _settings(root: _Section, table: dict[str, tuple[str, str]], cls: Any) -> dict[str, Any]:
    """The values ``table`` names, read below ``root``, defaulting to the fields of dataclass ``cls``."""
    defaults: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    for name, (path, kind) in table.items():
        *sections, key = path.split(".")
        section = root
        for sub in sections:
            section = section.sub(sub)
        if kind == "integer":
            out[name] = section.integer(key, defaults[name])
        elif kind == "text":
            out[name] = section.text(key, defaults[name])
        else:
            seconds = section.duration(key, float(defaults[name]))
            out[name] = int(seconds) if kind == "seconds" else seconds
    return out


def _rate(section: _Section, kind: str) -> RateLimit | None:
    raw = section.data.get("rateLimit")
    if raw is None:
        default = DEFAULT_RATES.get(kind)
        return RateLimit(*default) if default else None
    rate = section.sub("rateLimit")
    return RateLimit(rate.integer("messages", 1), rate.duration("per", 60.0))


def _sink(section: _Section, names: set[str]) -> SinkSpec:
    name = section.text("name")
    if name in names:
        raise section.fail("name", f"{name!r} is defined twice")
    kind = section.text("type")
    if kind not in SINK_TYPES:
        raise section.fail("type", f"must be one of {', '.join(SINK_TYPES)}")
    secret = section.secret_file("secretFile") if "secretFile" in section.data else None
    if kind == "email":
        smtp = section.sub("smtp")
        to = smtp.data.get("to")
        if not isinstance(to, list) or not to or not all(isinstance(t, str) and "@" in t for t in to):
            raise smtp.fail("to", "must be a list of e-mail addresses")
        settings = SmtpSettings(
            host=smtp.text("host"),
            port=smtp.integer("port", 25),
            sender=smtp.text("from"),
            to=tuple(to),
            starttls=smtp.flag("starttls", False),
            username=smtp.secret_file("usernameFile").decode() if "usernameFile" in smtp.data else None,
            password=smtp.secret_file("passwordFile").decode() if "passwordFile" in smtp.data else None,
        )
        return SinkSpec(name, kind, rate=_rate(section, kind), smtp=settings)
    url = section.secret_file("urlFile").decode() if "urlFile" in section.data else section.text("url")
    if not url.startswith(("http://", "https://")):
        raise section.fail("url", "must be an http(s) URL")
    if kind == "webhook" and secret is None:
        raise section.fail("secretFile", "required: generic webhooks are always signed")
    return SinkSpec(name, kind, url=url, secret=secret, rate=_rate(section, kind))


def _route(section: _Section, sinks: set[str]) -> Route:
    receiver = section.text("receiver")
    if receiver not in sinks:
        raise section.fail("receiver", f"{receiver!r} is not one of the receivers")
    match = section.sub("match")
    matchers: dict[str, frozenset[str]] = {}
    for key, raw in match.data.items():
        if key not in MATCH_KEYS:
            raise match.fail(str(key), f"unknown match key; use {', '.join(MATCH_KEYS)}")
        values = [raw] if isinstance(raw, str) else raw
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise match.fail(key, "must be a list of strings")
        if values:
            matchers[key] = frozenset(values)
    return Route(matchers, receiver, section.flag("continue", False))


def parse(data: Any, where: str, base: Path) -> ReceiverConfig:
    root = _Section(data, where, base)
    inbound = root.sub("inbound")
    ingest = inbound.token_file("tokenFile")
    if "hmacSecretFile" in inbound.data:
        raise inbound.fail(
            "hmacSecretFile",
            "replaced by lifecycleSecretFile (the generator's, accepted on /v1/events/lifecycle only) and "
            "externalSecretFile (other senders', on /v1/events/external only); the old secret signed both, "
            "so every external sender could sign lifecycle events: give each a new secret",
        )
    lifecycle = inbound.secret_file("lifecycleSecretFile")
    external = inbound.secret_file("externalSecretFile") if "externalSecretFile" in inbound.data else None
    if external is not None and hmac.compare_digest(external, lifecycle):
        raise inbound.fail("externalSecretFile", "holds the same secret as lifecycleSecretFile; give each its own")
    admin_section = root.sub("admin")
    admin = admin_section.token_file("tokenFile") if "tokenFile" in admin_section.data else None
    if admin is not None and admin.same_as(ingest):
        raise admin_section.fail("tokenFile", "holds the same token as inbound.tokenFile; give each its own token")
    raw_sinks = root.data.get("receivers")
    if not isinstance(raw_sinks, list) or not raw_sinks:
        raise root.fail("receivers", "required, a list of at least one receiver")
    sinks: list[SinkSpec] = []
    for i, item in enumerate(raw_sinks):
        sinks.append(_sink(_Section(item, f"{where}.receivers[{i}]", base), {s.name for s in sinks}))
    raw_routes = root.data.get("routes") or []
    if not isinstance(raw_routes, list):
        raise root.fail("routes", "must be a list")
    names = {s.name for s in sinks}
    routes = tuple(_route(_Section(r, f"{where}.routes[{i}]", base), names) for i, r in enumerate(raw_routes))
    settings = _settings(root, _SETTINGS, ReceiverConfig)
    delivery = Delivery(**_settings(root.sub("delivery"), _DELIVERY, Delivery))
    return ReceiverConfig(
        ingest_token=ingest,
        lifecycle_secret=lifecycle,
        sinks=tuple(sinks),
        routes=routes,
        external_secret=external,
        admin_token=admin,
        argocd_url=_argocd_url(root),
        delivery=delivery,
        **settings,
    )


def _argocd_url(root: _Section) -> str:
    if root.data.get("argocdUrl") in (None, ""):
        return ""
    url = root.text("argocdUrl")
    if not ARGOCD_URL.match(url):
        raise root.fail("argocdUrl", "must be the Argo CD UI's http(s) URL (scheme, host, port, path; no query)")
    return url.rstrip("/")


def load(path: Path) -> ReceiverConfig:
    """Read and check ``path``; every problem is a ConfigError naming the file and key."""
    data = yamlio.load_config(path, "receiver config")
    return parse(data, str(path), path.parent)
