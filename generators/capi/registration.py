"""The Argo CD cluster Secret a CAPI Cluster should have, and the merge patch that gets it there (pure).

Names: the Secret is ``capi.<namespace>.<cluster>`` in the Argo CD namespace and the Argo CD cluster is
named ``<cluster>.<namespace>``. Namespaces hold no dots, so both are one-to-one with the CAPI Cluster:
two namespaces may use the same cluster name without their Applications colliding.

What we own on the Secret: its data (``name``, ``server``, ``config``), its labels (Argo CD's
``secret-type``, our ``managed-by``, and the CAPI Cluster's labels the allow-list admits; nothing else),
and the annotations of ``MANAGED_ANNOTATIONS``. The phase annotations are the lifecycle machine's and
every other annotation is left as it is.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret, SecretWire, parse_secret
from argocd_lifecycle.generators.capi import secret_rules
from argocd_lifecycle.generators.capi.intent import Intent
from argocd_lifecycle.generators.capi.kubeconfig import Endpoint
from argocd_lifecycle.generators.capi.names import (
    MANAGED_BY_LABEL,
    MANAGED_BY_VALUE,
    SOURCE_ANNOTATION,
    SOURCE_UID_ANNOTATION,
    WORKERS_ANNOTATION,
    reserved,
)
from argocd_lifecycle.generators.capi.objects import CapiCluster, ClusterKey, InvalidCapiObject
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, Annotation

SECRET_PREFIX = "capi."  # noqa: S105 - a name prefix
#: a Secret's name is a DNS subdomain
MAX_NAME = 253
MANAGED_ANNOTATIONS = (
    SOURCE_ANNOTATION,
    SOURCE_UID_ANNOTATION,
    WORKERS_ANNOTATION,
    Annotation.UPGRADE_TO,
    Annotation.DECOMMISSION,
)


def secret_name(key: ClusterKey) -> str:
    return f"{SECRET_PREFIX}{key.namespace}.{key.name}"


def cluster_name(key: ClusterKey) -> str:
    return f"{key.name}.{key.namespace}"


def source_of(annotations: Mapping[str, str]) -> ClusterKey | None:
    """The CAPI Cluster a Secret of ours was made for (its ``capi-cluster`` annotation), or None."""
    namespace, _, name = annotations.get(SOURCE_ANNOTATION, "").partition("/")
    return ClusterKey(namespace, name) if namespace and name else None


def is_ours(labels: Mapping[str, str]) -> bool:
    return labels.get(MANAGED_BY_LABEL) == MANAGED_BY_VALUE


def copied_labels(cluster: CapiCluster, allow: Sequence[str]) -> dict[str, str]:
    """The CAPI Cluster's labels admitted by the allow-list (exact keys or ``prefix/*`` globs)."""
    return {
        k: v
        for k, v in sorted(cluster.labels.items())
        if not reserved(k) and any(fnmatch.fnmatchcase(k, pattern) for pattern in allow)
    }


@dataclass(frozen=True)
class Desired:
    """Our Secret as it should be; ``data`` values are plain text (base64 is applied on write)."""

    name: str
    labels: dict[str, str]
    annotations: dict[str, str | None]
    data: dict[str, str] = field(repr=False)

    @property
    def fingerprint(self) -> str:
        """As ``Credentials.fingerprint``: the digest of the canonical ``config`` JSON."""
        canonical = json.dumps(json.loads(self.data["config"]), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


def desired(cluster: CapiCluster, endpoint: Endpoint | None, intent: Intent, allow: Sequence[str]) -> Desired:
    """Without an ``endpoint`` (the kubeconfig is gone or unusable) the data is left as it is.
    ``InvalidCapiObject`` when the names cannot be a Secret's (CAPI keeps Cluster names to 63 characters;
    without its webhook they could be longer), or when the data is what the chart's admission policy
    refuses (secret_rules.py: a token holding the word "password", say)."""
    if len(secret_name(cluster.key)) > MAX_NAME:
        raise InvalidCapiObject(
            f"Cluster {cluster.key}: the name is too long for an Argo CD cluster Secret "
            f"({len(secret_name(cluster.key))} > {MAX_NAME} characters)"
        )
    labels = {CLUSTER_SECRET_LABEL: CLUSTER_SECRET_LABEL_VALUE, MANAGED_BY_LABEL: MANAGED_BY_VALUE}
    labels.update(copied_labels(cluster, allow))
    annotations: dict[str, str | None] = {
        SOURCE_ANNOTATION: str(cluster.key),
        SOURCE_UID_ANNOTATION: cluster.uid or None,
        WORKERS_ANNOTATION: None if intent.workers is None else str(intent.workers),
        Annotation.UPGRADE_TO: intent.upgrade_to or None,
        Annotation.DECOMMISSION: "true" if intent.decommission else None,
    }
    data: dict[str, str] = {}
    if endpoint is not None:
        config = json.dumps(endpoint.config, sort_keys=True, separators=(",", ":"))
        data = {"name": cluster_name(cluster.key), "server": endpoint.server, "config": config}
        if why := secret_rules.refusal(data):  # the chart's admission policy would refuse it: say so here
            raise InvalidCapiObject(f"Cluster {cluster.key}: {why}, which the chart's admission policy refuses")
    return Desired(secret_name(cluster.key), labels, annotations, data)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


def manifest(want: Desired, namespace: str) -> SecretWire:
    """The whole Secret, for a create (``want`` must carry data); checked with the inventory's parser."""
    annotations = {k: v for k, v in want.annotations.items() if v is not None}
    body: SecretWire = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": want.name, "namespace": namespace, "labels": want.labels, "annotations": annotations},
        "data": {k: _b64(v) for k, v in want.data.items()},
    }
    parse_secret(body)  # InvalidClusterSecret: the CAPI data would not make a usable cluster Secret
    return body


def patch(want: Desired, have: ClusterSecret | None, *, resource_version: str = "") -> dict[str, Any] | None:
    """The merge patch from ``have`` (the Secret as parsed, None when it does not parse) to ``want``,
    or None when nothing differs. With ``resource_version`` the API refuses it if the Secret moved."""
    labels: dict[str, str | None] = {}
    annotations: dict[str, str | None] = {}
    current_labels = have.labels if have else {}
    current_annotations = have.annotations if have else {}
    for k, v in want.labels.items():
        if current_labels.get(k) != v:
            labels[k] = v
    for k in current_labels:
        if k not in want.labels and not reserved(k):
            labels[k] = None  # a label the allow-list (or the CAPI Cluster) no longer has
    for k, value in want.annotations.items():
        if current_annotations.get(k) != value:
            annotations[k] = value
    same_data = not want.data or (
        have is not None
        and have.name == want.data["name"]
        and have.server == want.data["server"]
        and have.credentials.fingerprint == want.fingerprint
    )
    if not labels and not annotations and same_data:
        return None
    meta: dict[str, Any] = {}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    if resource_version:
        meta["resourceVersion"] = resource_version
    out: dict[str, Any] = {"metadata": meta}
    if not same_data:
        out["data"] = {k: _b64(v) for k, v in want.data.items()}
    return out
