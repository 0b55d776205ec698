"""Objects and plans for the transform tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.transforms.plan import Transform, plan


def planned(tmp_path: Path, **env: str) -> tuple[Transform, ...]:
    return plan(PluginSettings.from_environ(env, app_dir=tmp_path))


def obj(kind: str, name: str, api: str = "apps/v1", ns: str | None = None, **spec: Any) -> Manifest:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    return Manifest({"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}, "x.yaml", 0)


def hpa(target_kind: str, name: str, api: str = "autoscaling/v2", ns: str | None = None) -> Manifest:
    return obj(
        "HorizontalPodAutoscaler",
        f"{name}-hpa",
        api,
        ns,
        scaleTargetRef={"apiVersion": "apps/v1", "kind": target_kind, "name": name},
    )
