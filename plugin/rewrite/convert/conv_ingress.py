"""Ingress extensions/v1beta1 and networking.k8s.io/v1beta1 -> networking.k8s.io/v1."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.rewrite.convert.registry import Notes, converter, rename
from argocd_lifecycle.plugin.rewrite.objects import drop, items, mapping, rename_key, with_spec
from argocd_lifecycle.plugin.stream.manifest import Obj

V1 = "networking.k8s.io/v1"
CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _port(value: Any) -> Obj:
    # upstream maps by int-or-string type; a digits-only string would be an invalid port name
    if isinstance(value, bool):
        return {"name": str(value).lower()}
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return {"number": int(value)}
    return {"name": str(value)}


def _backend(backend: Any) -> Any:
    if not isinstance(backend, dict) or "serviceName" not in backend:
        return backend  # a resource backend, or nothing to convert
    service: Obj = {"name": backend["serviceName"]}
    if backend.get("servicePort") is not None:
        service["port"] = _port(backend["servicePort"])
    out: Obj = {"service": service}
    out.update(drop(backend, "serviceName", "servicePort"))
    return out


def _paths(http: Obj) -> Obj:
    paths = []
    for path in items(http.get("paths")):
        if not isinstance(path, dict):
            paths.append(path)
            continue
        new = dict(path)
        if not new.get("pathType"):
            # the v1beta1 defaulter set exactly this; v1 requires the field
            rest = drop(new, "path", "pathType")
            head = {"path": new["path"]} if "path" in new else {}
            new = {**head, "pathType": "ImplementationSpecific", **rest}
        if "backend" in new:
            new["backend"] = _backend(new["backend"])
        paths.append(new)
    return {**http, "paths": paths}


@converter("extensions/v1beta1", ["Ingress"], V1)
@converter("networking.k8s.io/v1beta1", ["Ingress"], V1)
def ingress(obj: Obj, notes: Notes) -> Obj:
    spec = rename_key(mapping(obj.get("spec")), "backend", "defaultBackend")
    if "defaultBackend" in spec:
        spec = {**spec, "defaultBackend": _backend(spec["defaultBackend"])}
    rules = []
    for rule in items(spec.get("rules")):
        if isinstance(rule, dict) and isinstance(rule.get("http"), dict):
            rules.append({**rule, "http": _paths(rule["http"])})
        else:
            rules.append(rule)
    if "rules" in spec:
        spec = {**spec, "rules": rules}
    annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
    if CLASS_ANNOTATION in annotations and not spec.get("ingressClassName"):
        notes.info(
            f"class chosen by the deprecated {CLASS_ANNOTATION} annotation (kept: controllers still "
            "honour it); spec.ingressClassName needs an IngressClass of that name"
        )
    return with_spec(obj, spec)


converter("networking.k8s.io/v1beta1", ["IngressClass"], V1)(rename)
