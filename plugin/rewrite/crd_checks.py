"""What the kube-apiserver refuses in an apiextensions.k8s.io/v1 CustomResourceDefinition beyond its
OpenAPI schema: the API-approval annotation of protected groups, the name, the versions, and the
structural-schema rules (apiextensions-apiserver's validation, checked here before a sync fails)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from argocd_lifecycle.plugin.rewrite.objects import items, mapping

APPROVAL = "api-approved.kubernetes.io"
#: what a protected group's CRD says when no approval is recorded (the API server takes the prefix)
UNAPPROVED = "unapproved, converted from apiextensions.k8s.io/v1beta1 without an approval annotation"
PRESERVE = "x-kubernetes-preserve-unknown-fields"
INT_OR_STRING = "x-kubernetes-int-or-string"
JUNCTORS = ("allOf", "anyOf", "oneOf", "not")
#: not allowed inside allOf/anyOf/oneOf/not of a structural schema
JUNCTOR_FORBIDDEN = ("type", "description", "default", "additionalProperties", "nullable")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def protected_group(group: str) -> bool:
    """Groups the Kubernetes project owns: their CRDs need an API review (KEP 1111)."""
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def approval_state(value: Any) -> str:
    """``missing``, ``bypassed`` (starts with "unapproved"), ``approved`` (a URL) or ``invalid``."""
    if not isinstance(value, str) or not value:
        return "missing"
    if value.startswith("unapproved"):
        return "bypassed"

    parts = urlsplit(value) if not any(c.isspace() for c in value) else None
    if parts and _SCHEME.fullmatch(parts.scheme) and parts.netloc:
        return "approved"
    return "invalid"


def _schema(node: Any, path: str, out: list[str], *, root: bool = False, junctor: bool = False) -> None:
    if not isinstance(node, dict):
        return
    if junctor:
        out.extend(
            f"{path}.{key}: must not be set inside allOf/anyOf/oneOf/not" for key in JUNCTOR_FORBIDDEN if key in node
        )
    elif root and node.get("type") != "object":
        out.append(f"{path}.type: Invalid value: {node.get('type')!r}: must be object at the root")
    elif not node.get("type") and not node.get(INT_OR_STRING) and not node.get(PRESERVE):
        out.append(f"{path}.type: Required value: must not be empty for specified object fields")
    if node.get(PRESERVE) is False:
        out.append(f"{path}.{PRESERVE}: Invalid value: false: must be true or undefined")
    if "properties" in node and "additionalProperties" in node:
        out.append(f"{path}: properties and additionalProperties are mutually exclusive")
    props = mapping(node.get("properties"))
    for name, child in props.items():
        _schema(child, f"{path}.properties[{name}]", out, junctor=junctor)
    if root and isinstance(props.get("metadata"), dict):
        extra = sorted(set(mapping(props["metadata"].get("properties"))) - {"name", "generateName"})
        if extra:
            out.append(f"{path}.properties[metadata]: only name and generateName may be specified, not {extra}")
    if isinstance(node.get("additionalProperties"), dict):
        _schema(node["additionalProperties"], f"{path}.additionalProperties", out, junctor=junctor)
    if isinstance(node.get("items"), dict):
        _schema(node["items"], f"{path}.items", out, junctor=junctor)
    for key in JUNCTORS:
        for i, part in enumerate(items(node.get(key)) if key != "not" else [node.get(key)]):
            _schema(part, f"{path}.{key}[{i}]" if key != "not" else f"{path}.not", out, junctor=True)


def problems(obj: Any) -> list[str]:
    """Why the API server would refuse this v1 CRD (empty when it would not, as far as checked here)."""
    out: list[str] = []
    meta, spec = mapping(obj.get("metadata")), mapping(obj.get("spec"))
    group, plural = str(spec.get("group", "")), str(mapping(spec.get("names")).get("plural", ""))
    if protected_group(group):
        state = approval_state(mapping(meta.get("annotations")).get(APPROVAL))
        if state in ("missing", "invalid"):
            out.append(
                f"metadata.annotations[{APPROVAL}]: {'Required' if state == 'missing' else 'Invalid'} value: "
                f"protected groups must have approval annotation {APPROVAL!r} with either a URL or a reason "
                'starting with "unapproved"'
            )
    if group and plural and meta.get("name") != f"{plural}.{group}":
        out.append(f"metadata.name: Invalid value: {meta.get('name')!r}: must be spec.names.plural+'.'+spec.group")
    if spec.get("preserveUnknownFields") is True:
        out.append("spec.preserveUnknownFields: Invalid value: true: must be false in v1")
    versions = [v for v in items(spec.get("versions")) if isinstance(v, dict)]
    if sum(1 for v in versions if v.get("storage") is True) != 1:
        out.append("spec.versions: Invalid value: must have exactly one version marked as storage version")
    names = [v.get("name") for v in versions]
    if len(set(names)) != len(names):
        out.append("spec.versions: Invalid value: must contain unique version names")
    for version in versions:
        schema = mapping(version.get("schema")).get("openAPIV3Schema")
        where = f"spec.versions[{version.get('name')}].schema.openAPIV3Schema"
        if not isinstance(schema, dict):
            out.append(f"{where}: Required value: schemas are required")
        else:
            _schema(schema, where, out, root=True)
    return out
