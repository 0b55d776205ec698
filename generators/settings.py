"""The settings of ``generator serve`` as a whole, read once at start-up from its flags.

``ServeSettings`` is what the command (cli.py) hands to the wiring (runner.py); the HTTP service's own
settings are ``ServiceSettings`` (service/settings.py). The helpers below turn flag text into typed
values, each failure one UsageError or ConfigError naming the flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleSettings
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.generators.fleet.prober import ProberSettings
from argocd_lifecycle.http import address as http_address
from argocd_lifecycle.http.protocol import Limits


@dataclass(frozen=True)
class ServeSettings:
    clusters_from: Path | None
    #: with clusters_from: the state file (None: the default beside the inventory)
    state_file: Path | None
    kubeconfig: str | None
    context: str | None
    namespace: str
    host: str
    port: int
    lifecycle: LifecycleSettings
    probing: ProberSettings
    leader_election: bool
    identity: str
    receiver_url: str
    #: signs lifecycle events (the receiver's lifecycle secret)
    receiver_secret: bytes
    plugin_configmap: str
    log_level: str
    #: ``--capi``: register Cluster API clusters (None: off)
    capi: CapiSettings | None = None
    #: timeouts and the connection bound of the HTTP server (``--idle-timeout`` ... ``--max-connections``)
    limits: Limits = field(default_factory=Limits)
    #: further ``--listen`` addresses after (host, port), such as loopback beside the pod's IP
    more_listen: tuple[tuple[str, int], ...] = ()
    #: signs the held answers' external events (the receiver's external secret); b"": not posted
    receiver_external_secret: bytes = field(default=b"", repr=False)
    #: ``--in-cluster``: list Argo CD's implicit in-cluster entry (as argocd-cm allows), probed with the
    #: pod's own ServiceAccount
    in_cluster: bool = False
    #: ``--application-namespace``: where ApplicationSets and Applications are watched beside ``namespace``
    #: (None: the Argo CD namespace alone)
    watched: Namespaces | None = None

    @property
    def namespaces(self) -> Namespaces:
        return self.watched or Namespaces(self.namespace)


def parse_listen(text: str) -> tuple[str, int]:
    """``--listen HOST:PORT``; a bare ``:PORT`` listens on loopback only (the chart passes the pod's IP)."""
    return http_address.parse_listen(text, default_host="127.0.0.1")


def parse_percent(text: str, *, where: str) -> float:
    """``90`` or ``90%`` -> 0.9, for the nodes-Ready threshold flag."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError as exc:
        raise UsageError(f"{where}: {text!r} is not a percentage") from exc
    if not 0 <= value <= 100:
        raise UsageError(f"{where}: {text!r} must be between 0 and 100")
    return value / 100


_UNITS = {"": 1, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3}
#: the bounds of ``--probe-page-bytes``
PAGE_BYTES = (64 * 1024, 256 << 20)


def format_size(size: int) -> str:
    """Bytes as ``parse_size`` reads them: ``2Mi``, ``512Ki``, ``1000``."""
    for suffix in ("Gi", "Mi", "Ki"):
        if size >= _UNITS[suffix] and size % _UNITS[suffix] == 0:
            return f"{size // _UNITS[suffix]}{suffix}"
    return str(size)


def parse_size(text: str, *, where: str, low: int, high: int) -> int:
    """``2Mi``, ``512Ki`` or ``1048576`` -> bytes (Kubernetes' binary suffixes), between ``low`` and ``high``."""
    number = text.strip().rstrip("KMGi")
    unit = text.strip()[len(number) :]
    if not number.isdigit() or unit not in _UNITS:
        raise UsageError(f"{where}: {text!r} is not a size (such as 2Mi, 512Ki or 1048576)")
    value = int(number) * _UNITS[unit]
    if not low <= value <= high:
        raise UsageError(f"{where}: {text!r} must be between {low // 1024}Ki and {high // 1024**2}Mi")
    return value


def receiver_secret(path: Path | None, url: str, flag: str = "--receiver-secret-file") -> bytes:
    """A HMAC secret of the receiver's, from ``flag``: ``--receiver-secret-file`` (the lifecycle secret,
    needed with a URL) or ``--receiver-external-secret-file`` (the external one, optional)."""
    if not url:
        return b""
    if path is None:
        if flag != "--receiver-secret-file":
            return b""
        raise UsageError("--receiver-url needs --receiver-secret-file (the receiver's lifecycle secret)")
    try:
        secret = path.read_bytes().strip()
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: {exc.strerror}") from exc
    if not secret:
        raise ConfigError(f"{flag} {path}: the file is empty")
    return secret
