"""Names Cluster API defines (checked against its v1beta2 Go types) and the ones we add to our Secrets."""

from __future__ import annotations

from dataclasses import dataclass

from argocd_lifecycle.model import PREFIX

#: CAPI's label on every object of a cluster (``ClusterNameLabel``)
CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name"
#: the kubeconfig Secret: ``<cluster>-kubeconfig``, type ``cluster.x-k8s.io/secret``, key ``value``
KUBECONFIG_SUFFIX = "-kubeconfig"
KUBECONFIG_TYPE = "cluster.x-k8s.io/secret"
KUBECONFIG_KEY = "value"
#: the Cluster condition CAPI sets once the control plane accepts requests
CONTROL_PLANE_INITIALIZED = "ControlPlaneInitialized"
KUBEADM_CONTROL_PLANE = "KubeadmControlPlane"
CONTROL_PLANE_GROUP = "controlplane.cluster.x-k8s.io"

#: on the Argo CD cluster Secrets we create: who owns them, and which CAPI Cluster they come from
MANAGED_BY_LABEL = PREFIX + "managed-by"
MANAGED_BY_VALUE = "cluster-api"
SOURCE_ANNOTATION = PREFIX + "capi-cluster"  # "<namespace>/<name>"
SOURCE_UID_ANNOTATION = PREFIX + "capi-cluster-uid"
#: total desired worker replicas last announced (a restart compares against it)
WORKERS_ANNOTATION = PREFIX + "capi-workers"
#: label keys the allow-list can never copy from a CAPI Cluster (Argo CD's and ours)
RESERVED_LABEL_PREFIXES = ("argocd.argoproj.io/", PREFIX)


def reserved(key: str) -> bool:
    return key.startswith(RESERVED_LABEL_PREFIXES)


@dataclass(frozen=True)
class Resource:
    """One CAPI kind as the API serves it (v1beta2, the storage version in Cluster API v1.14)."""

    group: str
    version: str
    plural: str
    kind: str


CLUSTERS = Resource("cluster.x-k8s.io", "v1beta2", "clusters", "Cluster")
MACHINE_DEPLOYMENTS = Resource("cluster.x-k8s.io", "v1beta2", "machinedeployments", "MachineDeployment")
MACHINE_POOLS = Resource("cluster.x-k8s.io", "v1beta2", "machinepools", "MachinePool")
KUBEADM_CONTROL_PLANES = Resource(CONTROL_PLANE_GROUP, "v1beta2", "kubeadmcontrolplanes", KUBEADM_CONTROL_PLANE)
CUSTOM_RESOURCES = (CLUSTERS, KUBEADM_CONTROL_PLANES, MACHINE_DEPLOYMENTS, MACHINE_POOLS)
