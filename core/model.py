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
    #: written by the upgrade gate while upgrade-to is set: blocking objects, a one-line summary of
    #: them, and when the blocked episode began (the episode's identity for notifications)
    UPGRADE_BLOCKERS = PREFIX + "upgrade-blockers"
    UPGRADE_BLOCKED = PREFIX + "upgrade-blocked"
    UPGRADE_BLOCKED_SINCE = PREFIX + "upgrade-blocked-since"
    DECOMMISSION = PREFIX + "decommission"
    CLUSTER_PHASE = PREFIX + "cluster-phase"
    CLUSTER_PHASE_SINCE = PREFIX + "cluster-phase-since"
    #: the gate's results as the ApplicationSet template stamps them on Applications (for the catalog)
    CLUSTER_UPGRADE_BLOCKERS = PREFIX + "cluster-upgrade-blockers"
    CLUSTER_UPGRADE_BLOCKED = PREFIX + "cluster-upgrade-blocked"
    CLUSTER_UPGRADE_BLOCKED_SINCE = PREFIX + "cluster-upgrade-blocked-since"
    #: drift: the break-glass window of one Application (a duration, set by its owners; the policy file
    #: sets one per project), and what the generator writes on an Application while its live state drifts
    #: under an unchanged revision: the episode's start, when its window ends, who changed what (bounded)
    DRIFT_WINDOW = PREFIX + "drift-window"
    DRIFT_SINCE = PREFIX + "drift-since"
    DRIFT_DEADLINE = PREFIX + "drift-deadline"
    DRIFT_ATTRIBUTION = PREFIX + "drift-attribution"
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
    UPGRADE_BLOCKED = "ClusterUpgradeBlocked"
    UPGRADE_CLEAR = "ClusterUpgradeClear"


class DriftReason(StrEnum):
    """Kubernetes Event reasons the generator's drift watch records on Applications."""

    DETECTED = "DriftDetected"
    RESOLVED = "DriftResolved"


class RolloutReason(StrEnum):
    """Kubernetes Event reasons the generator's rollouts record on ApplicationSets (docs/guide/rollouts.md)."""

    WAVE_STARTED = "RolloutWaveStarted"
    WAVE_BAKED = "RolloutWaveBaked"
    PAUSED = "RolloutPaused"
    RESUMED = "RolloutResumed"
    FINISHED = "RolloutFinished"
    ABORTED = "RolloutAborted"
    REFUSED = "RolloutRefused"


CLUSTER_SECRET_LABEL = "argocd.argoproj.io/secret-type"  # noqa: S105 - a label key
CLUSTER_SECRET_LABEL_VALUE = "cluster"  # noqa: S105 - a label value
EVENT_SOURCE = "argocd-lifecycle"
#: how an Application names our config-management plugin (``<name>-<version>`` of plugin.yaml)
CMP_PLUGIN = "argocd-lifecycle-v1"
#: the cluster Argo CD runs in: it exists without a cluster Secret, under this server URL and name
IN_CLUSTER_SERVER = "https://kubernetes.default.svc"
IN_CLUSTER_NAME = "in-cluster"
