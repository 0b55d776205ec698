"""The namespaces Argo CD acts in beside its own, as argocd-cmd-params-cm sets them, read once at start-up.

Argo CD's ApplicationSet controller takes ApplicationSets from ``applicationsetcontroller.namespaces``,
its application controller and API server Applications from ``application.namespaces``: each a
comma-separated list whose entries are trimmed of blanks and matched by Argo CD's glob package (a
namespace name, a glob such as ``team-*``, or a regular expression between slashes, ``/^team-/``).

The generator never evaluates a pattern (no glob or regular expression engine runs on this text): a
pattern is *covered* when the generator watches every namespace (``*``), or when it is a namespace
name the generator watches. Any other pattern may enable a namespace the generator cannot see, and
``ArgoNamespaces.unwatched`` lists it, so that the placement of an ApplicationSet (appsets.py) and
the upgrade gate (generators/preflight/gate.py) refuse instead of answering from half the picture.

No ConfigMap (404) is Argo CD's default: no other namespace. A ConfigMap that cannot be read, or whose
value breaks a bound (``MAX_VALUE`` characters, ``MAX_PATTERNS`` entries, ``MAX_PATTERN`` characters
each, no control character), stops the start with one ArgoParamsError naming the ConfigMap and key:
guessing Argo CD's namespaces would be guarding as if all were well.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.kube.client import Kube, KubeError
from argocd_lifecycle.kube.names import is_namespace

ARGOCD_CMD_PARAMS_CM = "argocd-cmd-params-cm"
#: the ApplicationSet controller's namespaces, and the application controller's (and API server's)
APPSET_NAMESPACES = "applicationsetcontroller.namespaces"
APPLICATION_NAMESPACES = "application.namespaces"
#: bounds of one key's value: its characters, its entries, the characters of one entry
MAX_VALUE = 64 * 1024
MAX_PATTERNS = 1024
MAX_PATTERN = 512
#: patterns named in a message; the rest are counted
NAMED = 10
_SHOWN = 64
#: blanks a value may hold between its entries (a YAML block scalar's line breaks)
_BLANKS = frozenset("\t\n\r")


class ArgoParamsError(ConfigError):
    """argocd-cmd-params-cm cannot be read, or one of its namespace lists breaks a bound."""


@dataclass(frozen=True)
class ArgoNamespaces:
    """Argo CD's namespace patterns beside its own namespace, in the order the ConfigMap lists them."""

    #: ``applicationsetcontroller.namespaces``
    appsets: tuple[str, ...] = ()
    #: ``application.namespaces``
    applications: tuple[str, ...] = ()

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str) -> ArgoNamespaces:
        """From the ConfigMap's ``data``; ``where`` names it in errors (``namespace/name``)."""
        return cls(
            _patterns(data.get(APPSET_NAMESPACES), f"{where} {APPSET_NAMESPACES}"),
            _patterns(data.get(APPLICATION_NAMESPACES), f"{where} {APPLICATION_NAMESPACES}"),
        )

    def unwatched(self, watched: Namespaces) -> ArgoNamespaces:
        """The patterns ``watched`` does not cover: all but the watched namespace names, none with ``*``."""
        if watched.everywhere:
            return ArgoNamespaces()

        def left(patterns: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(p for p in patterns if not (is_namespace(p) and watched.watched(p)))

        return ArgoNamespaces(left(self.appsets), left(self.applications))


def _patterns(value: object, where: str) -> tuple[str, ...]:
    """One key's entries as Argo CD splits them (on commas, blanks trimmed), empty ones dropped."""
    if value is None:
        return ()
    if not isinstance(value, str):
        raise ArgoParamsError(f"{where}: not a string")
    if len(value) > MAX_VALUE:
        raise ArgoParamsError(f"{where}: {len(value)} characters, more than {MAX_VALUE} (a list of namespaces)")
    if any((ord(c) < 0x20 and c not in _BLANKS) or 0x7F <= ord(c) < 0xA0 for c in value):
        raise ArgoParamsError(f"{where}: holds a control character (a list of namespaces is plain text)")
    patterns = tuple(p for p in (entry.strip() for entry in value.split(",")) if p)
    if len(patterns) > MAX_PATTERNS:
        raise ArgoParamsError(f"{where}: {len(patterns)} entries, more than {MAX_PATTERNS}")
    long = next((p for p in patterns if len(p) > MAX_PATTERN), None)
    if long is not None:
        raise ArgoParamsError(f"{where}: an entry of {len(long)} characters, more than {MAX_PATTERN}")
    return tuple(dict.fromkeys(patterns))


def shown(patterns: Iterable[str]) -> str:
    """Patterns for a message: quoted, each cut to a few dozen characters, the first few then a count."""
    listed = list(patterns)
    named = [repr(p if len(p) <= _SHOWN else p[:_SHOWN] + "...") for p in listed[:NAMED]]
    more = f" and {len(listed) - NAMED} more" if len(listed) > NAMED else ""
    return ", ".join(named) + more


def read_argo_namespaces(kube: Kube, namespace: str) -> ArgoNamespaces:
    """argocd-cmd-params-cm of the Argo CD ``namespace``, one ``get``: no ConfigMap is Argo CD's default
    (no other namespace); any other failure is an ArgoParamsError naming the grant it needs."""
    where = f"{namespace}/{ARGOCD_CMD_PARAMS_CM}"
    try:
        found = kube.call(
            f"read ConfigMap {where}", kube.core.read_namespaced_config_map, ARGOCD_CMD_PARAMS_CM, namespace
        )
    except KubeError as exc:
        if exc.status == 404:
            return ArgoNamespaces()
        raise ArgoParamsError(
            f"{exc.message} (Argo CD's namespaces, {APPSET_NAMESPACES} and {APPLICATION_NAMESPACES}, are read "
            f"there at start-up: the chart's generator Role grants get on ConfigMap {ARGOCD_CMD_PARAMS_CM}; "
            "or watch every namespace, generator.applicationNamespaces: ['*'])"
        ) from exc
    data = found.get("data") if isinstance(found, dict) else None
    return ArgoNamespaces.parse(data if isinstance(data, dict) else {}, f"ConfigMap {where}")
