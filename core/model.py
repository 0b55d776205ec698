"""Names every part uses (docs/architecture.md lists them): phases, annotation keys, Event reasons."""

from __future__ import annotations

from enum import StrEnum

PREFIX = "argocd-lifecycle.io/"


class Phase(StrEnum):
    PENDING = "Pending"
    READY = "Ready"
    UPGRADING = "Upgrading"
    DEGRADED = "Degraded"
    UNREACHABLE = "Unreachable"
    DECOMMISSIONING = "Decommissioning"


class Annotation:
    """Annotation keys (prefix ``argocd-lifecycle.io/``) and the Argo CD keys we write."""

    PHASE = PREFIX + "phase"
    PHASE_SINCE = PREFIX + "phase-since"
    KUBERNETES_VERSION = PREFIX + "kubernetes-version"
    UPGRADE_TO = PREFIX + "upgrade-to"
    DECOMMISSION = PREFIX + "decommission"
    CLUSTER_PHASE = PREFIX + "cluster-phase"
    CLUSTER_PHASE_SINCE = PREFIX + "cluster-phase-since"
    RENDERED_FOR = PREFIX + "rendered-for"
    REWRITTEN_FROM = PREFIX + "rewritten-from"
    SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
    APPSET_REFRESH = "argocd.argoproj.io/application-set-refresh"


class Reason(StrEnum):
    """Kubernetes Event reasons emitted on cluster Secrets (source component ``argocd-lifecycle``)."""

    REGISTERED = "ClusterRegistered"
    READY = "ClusterReady"
    UPGRADE_STARTED = "ClusterUpgradeStarted"
    UPGRADED = "ClusterUpgraded"
    SCALED = "ClusterScaled"
    DEGRADED = "ClusterDegraded"
    UNREACHABLE = "ClusterUnreachable"
    RECOVERED = "ClusterRecovered"
    CREDENTIALS_ROTATED = "ClusterCredentialsRotated"
    CERTIFICATE_EXPIRING = "ClusterCertificateExpiring"
    DECOMMISSIONING = "ClusterDecommissioning"
    REMOVED = "ClusterRemoved"


CLUSTER_SECRET_LABEL = "argocd.argoproj.io/secret-type"  # noqa: S105 - a label key
CLUSTER_SECRET_LABEL_VALUE = "cluster"  # noqa: S105 - a label value
EVENT_SOURCE = "argocd-lifecycle"
