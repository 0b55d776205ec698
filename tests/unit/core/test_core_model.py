"""The names every part shares are contracts with the outside (Argo CD templates, alert rules, operators'
annotations): pinned here, and each one documented in docs/architecture.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, EVENT_SOURCE, PREFIX, Annotation, Phase, Reason

ARCHITECTURE = (Path(__file__).resolve().parents[3] / "docs" / "architecture.md").read_text(encoding="utf-8")
ANNOTATIONS = sorted(v for k, v in vars(Annotation).items() if k.isupper())


def test_phases_are_exactly_the_six_strings() -> None:
    assert [p.value for p in Phase] == ["Pending", "Ready", "Upgrading", "Degraded", "Unreachable", "Decommissioning"]


def test_our_annotations_carry_the_prefix() -> None:
    ours = [a for a in ANNOTATIONS if not a.startswith("argocd.argoproj.io/")]
    assert ours and all(a.startswith(PREFIX) for a in ours)
    assert PREFIX == "argocd-lifecycle.io/"


@pytest.mark.parametrize("name", [*(p.value for p in Phase), *(r.value for r in Reason)])
def test_every_phase_and_reason_is_documented(name: str) -> None:
    assert f"`{name}`" in ARCHITECTURE, f"{name} is a contract: document it in docs/architecture.md"


@pytest.mark.parametrize("key", ANNOTATIONS)
def test_every_annotation_key_is_documented(key: str) -> None:
    short = key.removeprefix(PREFIX)
    documented = f"`{key}" in ARCHITECTURE or f"`{short}`" in ARCHITECTURE
    assert documented, f"annotation {key} is a contract: document it in docs/architecture.md"


def test_secret_label_and_event_source_are_documented() -> None:
    assert f"`{CLUSTER_SECRET_LABEL}=cluster`" in ARCHITECTURE
    assert f"`{EVENT_SOURCE}`" in ARCHITECTURE
