"""Kubernetes versions in every form Argo CD and the clusters hand them to us."""

from __future__ import annotations

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.versions import KubeVersion


@pytest.mark.parametrize(
    ("text", "parsed", "shown"),
    [
        ("1.29", KubeVersion(1, 29), "1.29"),  # KUBE_VERSION up to Argo CD v3.3.2
        ("1.29.3", KubeVersion(1, 29, 3), "1.29.3"),  # KUBE_VERSION from v3.3.3
        ("v1.29.3", KubeVersion(1, 29, 3), "1.29.3"),  # a cluster's /version gitVersion
        ("1.29+", KubeVersion(1, 29), "1.29"),  # vendor minors such as GKE's "29+"
        ("v1.31.2-eks-7f9249a", KubeVersion(1, 31, 2), "1.31.2"),
        (" 1.30 ", KubeVersion(1, 30), "1.30"),
    ],
)
def test_parse_accepts_every_form(text: str, parsed: KubeVersion, shown: str) -> None:
    version = KubeVersion.parse(text)
    assert version == parsed
    assert str(version) == shown


def test_derived_forms() -> None:
    version = KubeVersion.parse("1.29")
    assert version.minor_version == "1.29"
    assert version.semver == "1.29.0"  # helm --kube-version wants a full semver
    assert version.key == (1, 29)
    assert KubeVersion.parse("v1.29.7").minor_version == "1.29"


def test_versions_order_numerically() -> None:
    assert KubeVersion.parse("1.9") < KubeVersion.parse("1.10") < KubeVersion.parse("2.0")


@pytest.mark.parametrize("bad", ["", "1", "one.two", "1.x.3", "v", "1.29.3.4"])
def test_bad_versions_name_the_source(bad: str) -> None:
    with pytest.raises(
        UsageError, match=r"^KUBE_VERSION: .* is not a Kubernetes version \(expected 1\.29 or 1\.29\.3\)$"
    ):
        KubeVersion.parse(bad, where="KUBE_VERSION")
