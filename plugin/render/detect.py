"""Which renderer an application folder needs: Kustomize, then Helm, then plain files (with Jinja2)."""

from __future__ import annotations

from pathlib import Path

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def detect(app_dir: Path) -> str:
    if any((app_dir / name).is_file() for name in KUSTOMIZATION_FILES):
        return "kustomize"
    if (app_dir / "Chart.yaml").is_file():
        return "helm"
    return "plain"
