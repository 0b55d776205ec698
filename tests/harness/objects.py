"""Reading and writing Kubernetes objects of one cluster through the dynamic client (server-side apply)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client as k8s
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import NotFoundError

FIELD_MANAGER = "e2e-harness"


def load_documents(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                yield doc


class Kube:
    """One cluster as the admin: apply/get/delete any kind by apiVersion and kind."""

    def __init__(self, api_client: k8s.ApiClient, discovery_cache: Path) -> None:
        self.api_client = api_client
        self.dynamic = DynamicClient(api_client, cache_file=str(discovery_cache))

    def resource(self, api_version: str, kind: str) -> Any:
        return self.dynamic.resources.get(api_version=api_version, kind=kind)

    def refresh_discovery(self) -> None:
        """After new CRDs: forget the cached discovery so their kinds resolve."""
        self.dynamic.resources.invalidate_cache()

    def apply(self, doc: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
        res = self.resource(doc["apiVersion"], doc["kind"])
        ns = doc.get("metadata", {}).get("namespace") or (namespace if res.namespaced else None)
        out = self.dynamic.server_side_apply(
            res, body=doc, namespace=ns, field_manager=FIELD_MANAGER, force_conflicts=True
        )
        return dict(out.to_dict())

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        try:
            return dict(self.resource(api_version, kind).get(name=name, namespace=namespace).to_dict())
        except NotFoundError:
            return None

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        items = self.resource(api_version, kind).get(namespace=namespace).to_dict()["items"]
        return [dict(i) for i in items]

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        with contextlib.suppress(NotFoundError):
            self.resource(api_version, kind).delete(name=name, namespace=namespace)

    def merge_patch(
        self, api_version: str, kind: str, name: str, patch: dict[str, Any], namespace: str | None = None
    ) -> dict[str, Any]:
        out = self.resource(api_version, kind).patch(
            name=name, namespace=namespace, body=patch, content_type="application/merge-patch+json"
        )
        return dict(out.to_dict())
