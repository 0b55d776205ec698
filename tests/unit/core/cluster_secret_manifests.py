"""Cluster Secret manifests for tests, shaped as Argo CD documents them (``data`` or ``stringData``)."""

from __future__ import annotations

import base64


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def secret(name: str = "c1", *, data: dict | None = None, string_data: dict | None = None, **meta) -> dict:
    obj = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"cluster-{name}",
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": "prod"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "a"},
            **meta,
        },
    }
    if data is not None:
        obj["data"] = data
    if string_data is not None:
        obj["stringData"] = string_data
    return obj
