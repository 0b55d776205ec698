"""Builders for Applications and cluster Secrets as the API serves them, and the recorded story."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret, parse_secret

REPO = Path(__file__).resolve().parents[4]
FIXTURES = REPO / "tests" / "fixtures" / "preflight"
APPS_FILE = FIXTURES / "applications.json"
SECRETS_FILE = FIXTURES / "secrets.json"


def resource(api: str, kind: str, name: str, namespace: str = "shop") -> dict[str, Any]:
    group, _, version = api.rpartition("/")
    out: dict[str, Any] = {"version": version, "kind": kind, "name": name}
    if group:
        out["group"] = group
    if namespace:
        out["namespace"] = namespace
    return out


def application(
    name: str,
    resources: list[dict[str, Any]],
    *,
    server: str = "https://prod.example.test:6443",
    dest_name: str = "",
    plugin: dict[str, Any] | None = None,
    source_type: str = "Directory",
    namespace: str = "argocd",
    project: str = "default",
) -> dict[str, Any]:
    source: dict[str, Any] = {"repoURL": "https://git.example.test/fleet.git", "path": name}
    if plugin is not None:
        source["plugin"] = plugin
    destination = {"name": dest_name} if dest_name else {"server": server}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": project, "destination": destination, "source": source},
        "status": {"resources": resources, "sourceType": source_type},
    }


def secret_object(
    name: str = "prod", server: str = "https://prod.example.test:6443", annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"cluster-{name}",
            "namespace": "argocd",
            "uid": f"uid-{name}",
            "labels": {"argocd.argoproj.io/secret-type": "cluster"},
            "annotations": annotations or {},
        },
        "data": {"name": b64(name), "server": b64(server), "config": b64(json.dumps({"bearerToken": "t0ken-value"}))},
    }


def cluster_secret(**kwargs: Any) -> ClusterSecret:
    return parse_secret(secret_object(**kwargs))  # type: ignore[arg-type]
