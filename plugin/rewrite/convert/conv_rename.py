"""Pairs whose fields are the same in both versions: only apiVersion changes (for pairs that share a
bundled release, a test compares their kubernetes-validate schemas)."""

from __future__ import annotations

from argocd_lifecycle.plugin.rewrite.convert.registry import renames

renames(
    [
        ("extensions/v1beta1", ["NetworkPolicy"], "networking.k8s.io/v1"),
        ("extensions/v1beta1", ["PodSecurityPolicy"], "policy/v1beta1"),
        ("scheduling.k8s.io/v1alpha1", ["PriorityClass"], "scheduling.k8s.io/v1"),
        ("scheduling.k8s.io/v1beta1", ["PriorityClass"], "scheduling.k8s.io/v1"),
        ("batch/v2alpha1", ["CronJob"], "batch/v1beta1"),
        ("batch/v1beta1", ["CronJob"], "batch/v1"),
        ("apiregistration.k8s.io/v1beta1", ["APIService"], "apiregistration.k8s.io/v1"),
        ("storage.k8s.io/v1beta1", ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"], "storage.k8s.io/v1"),
        ("storage.k8s.io/v1alpha1", ["VolumeAttachment"], "storage.k8s.io/v1"),
        ("storage.k8s.io/v1alpha1", ["CSIStorageCapacity"], "storage.k8s.io/v1beta1"),
        ("storage.k8s.io/v1beta1", ["CSIStorageCapacity"], "storage.k8s.io/v1"),
        ("storage.k8s.io/v1alpha1", ["VolumeAttributesClass"], "storage.k8s.io/v1beta1"),
        ("storage.k8s.io/v1beta1", ["VolumeAttributesClass"], "storage.k8s.io/v1"),
        ("coordination.k8s.io/v1beta1", ["Lease"], "coordination.k8s.io/v1"),
        ("coordination.k8s.io/v1alpha2", ["LeaseCandidate"], "coordination.k8s.io/v1beta1"),
        ("node.k8s.io/v1beta1", ["RuntimeClass"], "node.k8s.io/v1"),
        ("networking.k8s.io/v1alpha1", ["IPAddress", "ServiceCIDR"], "networking.k8s.io/v1beta1"),
        ("networking.k8s.io/v1beta1", ["IPAddress", "ServiceCIDR"], "networking.k8s.io/v1"),
        (
            "admissionregistration.k8s.io/v1alpha1",
            ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
            "admissionregistration.k8s.io/v1beta1",
        ),
        (
            "admissionregistration.k8s.io/v1beta1",
            ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
            "admissionregistration.k8s.io/v1",
        ),
        (
            "admissionregistration.k8s.io/v1alpha1",
            ["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"],
            "admissionregistration.k8s.io/v1beta1",
        ),
        (
            "admissionregistration.k8s.io/v1beta1",
            ["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"],
            "admissionregistration.k8s.io/v1",
        ),
        ("certificates.k8s.io/v1alpha1", ["ClusterTrustBundle"], "certificates.k8s.io/v1beta1"),
        ("certificates.k8s.io/v1beta1", ["ClusterTrustBundle"], "certificates.k8s.io/v1"),
        ("certificates.k8s.io/v1alpha1", ["PodCertificateRequest"], "certificates.k8s.io/v1beta1"),
        ("storagemigration.k8s.io/v1beta1", ["StorageVersionMigration"], "storagemigration.k8s.io/v1"),
        ("resource.k8s.io/v1alpha3", ["DeviceClass"], "resource.k8s.io/v1"),
        ("resource.k8s.io/v1beta1", ["DeviceClass"], "resource.k8s.io/v1"),
        (
            "resource.k8s.io/v1beta2",
            ["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"],
            "resource.k8s.io/v1",
        ),
        ("resource.k8s.io/v1alpha3", ["DeviceTaintRule"], "resource.k8s.io/v1beta2"),
        ("resource.k8s.io/v1beta2", ["DeviceTaintRule"], "resource.k8s.io/v1"),
    ]
)
