"""The domain value the plugin pipeline passes along: one Kubernetes object and where it came from.

A manifest read from a tool's output keeps that document's text and its identity (from
plugin/stream/documents.py); the object is built only when a transform asks for it (``obj``). As long as no
transform replaced the object (``with_obj``), the output is that text, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: a Kubernetes object as parsed from YAML or JSON: a plain mapping (the plugin's one name for it)
Obj = dict[str, "Any"]


@dataclass(frozen=True)
class Identity:
    api_version: str
    kind: str
    name: str
    namespace: str


@dataclass(frozen=True, eq=False)
class Manifest:
    #: the object when built (None until ``obj`` builds it from ``text`` with ``build``)
    built: Obj | None
    #: file path relative to the app folder, or a description such as "helm template"
    source: str
    #: 0-based document index inside ``source``
    index: int
    #: the document as the tool emitted it; None once a transform changed the object
    text: str | None = None
    identity: Identity | None = None
    build: Callable[[], Obj] | None = field(default=None, repr=False)

    @property
    def obj(self) -> Obj:
        if self.built is None:
            assert self.build is not None, "a manifest has its object or a way to build it"
            object.__setattr__(self, "built", self.build())  # a cache: the value never changes
        assert self.built is not None
        return self.built

    @property
    def where(self) -> str:
        return f"{self.source}#{self.index}"

    @property
    def api_version(self) -> str:
        return self.identity.api_version if self.identity else str(self.obj.get("apiVersion", ""))

    @property
    def kind(self) -> str:
        return self.identity.kind if self.identity else str(self.obj.get("kind", ""))

    @property
    def group(self) -> str:
        api = self.api_version
        return api.rsplit("/", 1)[0] if "/" in api else ""

    @property
    def name(self) -> str:
        return self.identity.name if self.identity else str((self.obj.get("metadata") or {}).get("name", ""))

    @property
    def namespace(self) -> str:
        if self.identity:
            return self.identity.namespace
        return str((self.obj.get("metadata") or {}).get("namespace") or "")

    @property
    def ref(self) -> str:
        """``Deployment/web`` or ``Deployment/shop/web``: how messages name an object."""
        ns = self.namespace
        return f"{self.kind}/{ns}/{self.name}" if ns else f"{self.kind}/{self.name}"

    def with_obj(self, obj: Obj) -> Manifest:
        """The same place with a changed object: from now on it is written out, not copied."""
        return Manifest(obj, self.source, self.index)
