"""Server-side apply of our notifications keys into Argo CD's ConfigMap, under our own field manager.

The chart's apply Job renders a ConfigMap holding only our keys (catalog triggers and templates, the
receiver's webhook service) and runs `argocd-lifecycle notifications apply` on it. A server-side apply
claims exactly those keys for the field manager: keys another manager (argo-helm, a person) owns stay
theirs, a key we applied before and no longer send is removed, and a key someone else owns is a
conflict that fails the Job, unless `--force-conflicts` takes it over.

Self-service notifications (README "Tenants") need the same keys in the ConfigMap of each tenant's
namespace too: one manifest naming no namespace, applied into each ``--namespace`` (the chart's apply
ConfigMap holds the catalog once; a copy per namespace would reach the API server's 1 MiB limit at
about six). Every namespace is checked, then every apply rehearsed as a server-side dry run (RBAC,
conflicts, a missing namespace), before any is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.kube.client import Kube, KubeConflict
from argocd_lifecycle.yaml import yamlio

APPLY_PATCH = "application/apply-patch+yaml"
MAX_BYTES = yamlio.MIB  # the API server stores at most 1 MiB in one ConfigMap
LIMITS = yamlio.Limits(max_file_bytes=MAX_BYTES, max_aliases=0, max_depth=8)
MAX_FIELD_MANAGER = 128  # the API server's limit
MAX_NAMESPACES = 100  # one run, two API calls each: bounded
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DATA_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_FIELDS = {"apiVersion", "kind", "metadata", "data"}
_METADATA = {"name", "namespace", "labels", "annotations"}


@dataclass(frozen=True)
class ConfigMapKeys:
    """The keys to apply to one ConfigMap (and the labels and annotations it should carry)."""

    namespace: str
    name: str
    data: dict[str, str]
    labels: dict[str, str]
    annotations: dict[str, str]

    def body(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            metadata["labels"] = self.labels
        if self.annotations:
            metadata["annotations"] = self.annotations
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": self.data}


def check_field_manager(name: str) -> str:
    if not name or len(name) > MAX_FIELD_MANAGER or not name.isprintable():
        raise UsageError(f"--field-manager {name!r}: expected 1 to {MAX_FIELD_MANAGER} printable characters")
    return name


def _shown(text: str) -> str:
    """A value from the command line, quoted and cut short for an error message."""
    return repr(text if len(text) <= 64 else text[:64] + "...")


def check_namespaces(names: Sequence[str]) -> tuple[str, ...]:
    """The ``--namespace`` values: namespace names (DNS labels), each once, at most MAX_NAMESPACES."""
    if len(names) > MAX_NAMESPACES:
        raise UsageError(f"--namespace: {len(names)} given, at most {MAX_NAMESPACES}")
    seen: set[str] = set()
    for name in names:
        if len(name) > 63 or not _DNS_LABEL.fullmatch(name):
            raise UsageError(f"--namespace {_shown(name)}: expected a namespace name (a DNS label)")
        if name in seen:
            raise UsageError(f"--namespace {_shown(name)}: given twice")
        seen.add(name)
    return tuple(names)


def _strings(value: object, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"{where}: expected a mapping of strings to strings")
    return dict(value)


def parse(doc: object, where: str, namespace: str | None = None) -> ConfigMapKeys:
    """The ConfigMap of a manifest: a v1 ConfigMap with a name, a namespace (its own, else
    ``namespace``; never two different ones) and string data only."""
    if not isinstance(doc, dict):
        raise ConfigError(f"{where}: expected one ConfigMap, found {type(doc).__name__}")
    if doc.get("apiVersion") != "v1" or doc.get("kind") != "ConfigMap":
        raise ConfigError(f"{where}: expected apiVersion v1 and kind ConfigMap")
    if extra := sorted(set(doc) - _FIELDS):
        raise ConfigError(f"{where}: refused: field {extra[0]!r} (only metadata and data are applied)")
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        raise ConfigError(f"{where}: metadata: expected a mapping with a name and a namespace")
    if extra := sorted(set(meta) - _METADATA):
        raise ConfigError(f"{where}: refused: metadata.{extra[0]} (only name, namespace, labels, annotations)")
    name, own = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        raise ConfigError(f"{where}: metadata.name: expected a DNS subdomain name")
    if own is not None and namespace is not None and own != namespace:
        raise ConfigError(f"{where}: metadata.namespace {own!r} is not the --namespace {namespace!r}")
    namespace = own if own is not None else namespace
    if not isinstance(namespace, str) or len(namespace) > 63 or not _DNS_LABEL.fullmatch(namespace):
        raise ConfigError(f"{where}: metadata.namespace: expected a DNS label (or give --namespace)")
    data = _strings(doc.get("data"), f"{where}: data")
    if not data:
        raise ConfigError(f"{where}: data: no keys to apply")
    if bad := [k for k in data if len(k) > 253 or not _DATA_KEY.fullmatch(k)]:
        raise ConfigError(f"{where}: data: key {bad[0]!r}: expected [-._a-zA-Z0-9], at most 253 characters")
    labels = _strings(meta.get("labels"), f"{where}: metadata.labels")
    annotations = _strings(meta.get("annotations"), f"{where}: metadata.annotations")
    return ConfigMapKeys(namespace, name, data, labels, annotations)


def load_all(path: Path, namespaces: Sequence[str] = ()) -> tuple[ConfigMapKeys, ...]:
    """The manifest's ConfigMap in each of ``namespaces`` (checked first), or in its own namespace."""
    targets = check_namespaces(namespaces)
    where = str(path)
    text = yamlio.read_file(path, where, LIMITS)
    try:
        doc = yamlio.load(text, LIMITS)
    except yaml.YAMLError as exc:
        raise ConfigError(yamlio.syntax_error(where, exc)) from exc
    if not targets:
        return (parse(doc, where),)
    return tuple(parse(doc, where, namespace) for namespace in targets)


def rehearse(kube: Kube, targets: Sequence[ConfigMapKeys], *, field_manager: str, force: bool = False) -> None:
    """A server-side dry run of every apply: the first that would fail raises, and nothing is written."""
    for keys in targets:
        _patch(kube, keys, field_manager=field_manager, force=force, dry_run=True)


def apply(kube: Kube, keys: ConfigMapKeys, *, field_manager: str, force: bool = False) -> str:
    """Apply the keys; one line saying what the ConfigMap holds now."""
    live = _patch(kube, keys, field_manager=field_manager, force=force, dry_run=False)
    total = len(live.get("data") or {}) if isinstance(live, dict) else 0
    return (
        f"applied {len(keys.data)} keys to ConfigMap {keys.namespace}/{keys.name} "
        f"(field manager {field_manager}; it holds {total} keys)"
    )


def _patch(kube: Kube, keys: ConfigMapKeys, *, field_manager: str, force: bool, dry_run: bool) -> Any:
    what = f"apply {len(keys.data)} keys to ConfigMap {keys.namespace}/{keys.name} as {field_manager}"
    if dry_run:
        what = f"{what} (dry run: nothing applied)"
    options: dict[str, Any] = {"dry_run": "All"} if dry_run else {}
    try:
        return kube.call(
            what,
            kube.core.patch_namespaced_config_map,
            keys.name,
            keys.namespace,
            keys.body(),
            field_manager=field_manager,
            force=force,
            _content_type=APPLY_PATCH,
            **options,
        )
    except KubeConflict as exc:
        hint = "another field manager owns these keys: change them there, or take them over with --force-conflicts"
        raise KubeConflict(f"{exc}; {hint}", status=exc.status) from exc
