"""The domain value the plugin pipeline passes along: one Kubernetes object and where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: a Kubernetes object as parsed from YAML or JSON: a plain mapping (the plugin's one name for it)
Obj = dict[str, Any]


@dataclass(frozen=True)
class Manifest:
    obj: Obj
    #: file path relative to the app folder, or a description such as "helm template"
    source: str
    #: 0-based document index inside ``source``
    index: int

    @property
    def where(self) -> str:
        return f"{self.source}#{self.index}"

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion", ""))

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind", ""))

    @property
    def group(self) -> str:
        api = self.api_version
        return api.rsplit("/", 1)[0] if "/" in api else ""

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name", ""))

    @property
    def namespace(self) -> str:
        return str((self.obj.get("metadata") or {}).get("namespace") or "")

    @property
    def ref(self) -> str:
        """``Deployment/web`` or ``Deployment/shop/web``: how messages name an object."""
        ns = self.namespace
        return f"{self.kind}/{ns}/{self.name}" if ns else f"{self.kind}/{self.name}"

    def with_obj(self, obj: Obj) -> Manifest:
        return Manifest(obj, self.source, self.index)
