"""Applications as the preflight reads them: destination, what they deploy, and who renders them.

**Rendered by our plugin** when every source names it (``plugin.name: argocd-lifecycle-v1``), or when a
source asks for a plugin without a name (``plugin: {}``, or no plugin at all) and Argo CD reports that
a plugin rendered it (``status.sourceType(s)`` ``Plugin``): that is discovery, and our plugin is
discovered by its marker file ``.argocd-lifecycle.yaml``. A repo-server with another discovering
plugin should name ours explicitly, or its Applications are taken for ours. An Application whose
parameters say ``rewriteApis: "false"`` is rendered by us but not rewritten (the marker file's
defaults cannot be seen from here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from argocd_lifecycle.application_wire import ApplicationWire
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.model import CMP_PLUGIN

PLUGIN_SOURCE_TYPE = "Plugin"
REWRITE_PARAMETER = "rewriteApis"
#: the project of an Application whose ``spec.project`` is empty, as Argo CD reads it (``GetProject``)
DEFAULT_PROJECT = "default"


class PreflightInputError(LifecycleError):
    """Input the preflight cannot use; the message names the file or object and the field."""


@dataclass(frozen=True)
class Resource:
    """One object an Application deploys (an entry of ``status.resources``)."""

    api_version: str
    kind: str
    namespace: str
    name: str

    @property
    def label(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


@dataclass(frozen=True)
class AppRecord:
    namespace: str
    name: str
    project: str = ""
    dest_server: str = ""
    dest_name: str = ""
    #: our plugin renders it ("name": named in the source, "discovery": found by the marker)
    plugin: str = ""
    #: the plugin rewrites API versions for it (rewriteApis not switched off)
    rewrites: bool = False
    resources: tuple[Resource, ...] = ()
    #: the ApplicationSets named in its ownerReferences
    owners: tuple[str, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _resources(status: Mapping[str, Any], where: str) -> tuple[Resource, ...]:
    raw = status.get("resources")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PreflightInputError(f"{where}: status.resources should be a list")
    out = []
    for item in raw:
        entry = _mapping(item)
        kind, version, group = _text(entry.get("kind")), _text(entry.get("version")), _text(entry.get("group"))
        if not kind or not version:
            continue  # Argo CD always sets both; a hand-made entry without them names nothing
        api = f"{group}/{version}" if group else version
        out.append(Resource(api, kind, _text(entry.get("namespace")), _text(entry.get("name"))))
    return tuple(out)


def _sources(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    many = spec.get("sources")
    if isinstance(many, list) and many:
        return [_mapping(s) for s in many]
    return [_mapping(spec.get("source"))]


def _source_types(status: Mapping[str, Any]) -> list[str]:
    many = status.get("sourceTypes")
    if isinstance(many, list) and many:
        return [_text(t) for t in many]
    return [_text(status.get("sourceType"))]


def _plugin(sources: list[Mapping[str, Any]], status: Mapping[str, Any]) -> tuple[str, bool]:
    """(how our plugin renders it, or "" when some source is not ours; whether it rewrites APIs)."""
    types = _source_types(status)
    how = []
    rewrites = True
    for i, source in enumerate(sources):
        plugin = _mapping(source.get("plugin"))
        name = _text(plugin.get("name"))
        if name == CMP_PLUGIN:
            how.append("name")
        elif not name and types[min(i, len(types) - 1)] == PLUGIN_SOURCE_TYPE:
            how.append("discovery")
        else:
            return "", False  # a source we do not render: its objects cannot be told from ours
        for param in plugin.get("parameters") or []:
            entry = _mapping(param)
            if entry.get("name") == REWRITE_PARAMETER and _text(entry.get("string")).strip().lower() == "false":
                rewrites = False
    return ("name" if all(h == "name" for h in how) else "discovery"), rewrites


def read_application(wire: ApplicationWire | Mapping[str, Any], where: str) -> AppRecord:
    """Checked at this edge: any field may be missing or of another type (files are hostile)."""
    obj: Mapping[str, Any] = cast(Mapping[str, Any], wire)
    meta = _mapping(obj.get("metadata"))
    name = _text(meta.get("name"))
    if not name:
        raise PreflightInputError(f"{where}: metadata.name is missing")
    spec, status = _mapping(obj.get("spec")), _mapping(obj.get("status"))
    destination = _mapping(spec.get("destination"))
    plugin, rewrites = _plugin(_sources(spec), status)
    owners = tuple(
        _text(ref.get("name"))
        for ref in (meta.get("ownerReferences") or [])
        if isinstance(ref, Mapping) and ref.get("kind") == "ApplicationSet"
    )
    return AppRecord(
        namespace=_text(meta.get("namespace")),
        name=name,
        project=_text(spec.get("project")) or DEFAULT_PROJECT,
        dest_server=_text(destination.get("server")).strip().rstrip("/"),
        dest_name=_text(destination.get("name")).strip(),
        plugin=plugin,
        rewrites=bool(plugin) and rewrites,
        resources=_resources(status, f"{where} ({_text(meta.get('namespace'))}/{name})"),
        owners=owners,
    )
