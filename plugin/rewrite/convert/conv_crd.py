"""CustomResourceDefinition apiextensions.k8s.io/v1beta1 -> v1.

v1 has no top-level schema, subresources or printer columns (each version carries its own), requires
``scope``, a *structural* schema per version and the webhook conversion layout, and refuses
``preserveUnknownFields: true`` (v1beta1's default), whose behaviour is kept per object node instead.
A CRD of a group the Kubernetes project owns also needs the API-approval annotation in v1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, converter
from argocd_lifecycle.plugin.rewrite.crd_checks import APPROVAL, UNAPPROVED, approval_state, protected_group
from argocd_lifecycle.plugin.rewrite.objects import drop, items, mapping, rename_key, with_spec
from argocd_lifecycle.plugin.stream.manifest import Obj

PRESERVE = "x-kubernetes-preserve-unknown-fields"
INT_OR_STRING = "x-kubernetes-int-or-string"
JUNCTORS = ("allOf", "anyOf", "oneOf")
#: not allowed inside allOf/anyOf/oneOf/not of a structural schema
JUNCTOR_FORBIDDEN = ("type", "description", "default", "additionalProperties", "nullable")
OPEN_SCHEMA: Obj = {"type": "object", PRESERVE: True}


@dataclass
class _Walk:
    keep_unknown: bool
    typed: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    stripped: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _junctor(node: Any, path: str, outer_type: Any, walk: _Walk) -> Any:
    if isinstance(node, list):
        return [_junctor(n, f"{path}[{i}]", outer_type, walk) for i, n in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out: Obj = {}
    for key, value in node.items():
        if key == "description":
            walk.stripped.append(f"{path}.description")
        elif key == "type" and value == outer_type:
            walk.stripped.append(f"{path}.type")
        elif key in JUNCTOR_FORBIDDEN:
            walk.refused.append(f"{path}.{key}")
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _junctor(v, f"{path}.properties.{k}", None, walk) for k, v in value.items()}
        elif key in (*JUNCTORS, "not", "items"):
            out[key] = _junctor(value, f"{path}.{key}", None, walk)
        else:
            out[key] = value
    return out


def _node(node: Any, path: str, walk: _Walk) -> Any:
    if not isinstance(node, dict):
        return node
    out = dict(node)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _node(v, f"{path}.properties.{k}", walk) for k, v in out["properties"].items()}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _node(out["additionalProperties"], f"{path}.additionalProperties", walk)
    if isinstance(out.get("items"), dict):
        out["items"] = _node(out["items"], f"{path}.items", walk)
    if not out.get(INT_OR_STRING):
        for key in (*JUNCTORS, "not"):
            if key in out:
                out[key] = _junctor(out[key], f"{path}.{key}", out.get("type"), walk)
    if not out.get("type") and not out.get(INT_OR_STRING) and not out.get(PRESERVE):
        if "properties" in out or "additionalProperties" in out:
            out = {"type": "object", **out}
            walk.typed.append(path)
        elif "items" in out:
            out = {"type": "array", **out}
            walk.typed.append(path)
        else:
            out[PRESERVE] = True
            walk.opened.append(path)
    if walk.keep_unknown and out.get("type") == "object" and not out.get(PRESERVE):
        out[PRESERVE] = True
    return out


def _metadata_only_names(schema: Obj, path: str, notes: Notes) -> Obj:
    """v1 allows a schema for metadata to constrain name and generateName only."""
    props = mapping(schema.get("properties"))
    meta = props.get("metadata")
    if not isinstance(meta, dict):
        return schema
    names = {k: v for k, v in mapping(meta.get("properties")).items() if k in ("name", "generateName")}
    kept: Obj = {"type": "object", **({"properties": names} if names else {})}
    if {k: v for k, v in meta.items() if k != PRESERVE} != kept:  # our own keep-unknown mark is no rule
        notes.warn(f"{path}.properties.metadata: only name/generateName may be constrained in v1; other rules dropped")
    return {**schema, "properties": {**props, "metadata": kept}}


def _schema(schema: Obj, path: str, keep_unknown: bool, notes: Notes) -> Obj:
    walk = _Walk(keep_unknown)
    out = _node(schema, path, walk)
    if walk.refused:
        raise ConversionError(
            "schema is not structural and cannot be fixed automatically: "
            f"{', '.join(walk.refused)} inside allOf/anyOf/oneOf/not (move them outside)"
        )
    if walk.typed:
        notes.info(f"type written where properties/items imply it: {', '.join(walk.typed)}")
    if walk.opened:
        notes.warn(f"untyped schema nodes now keep any value ({PRESERVE}): {', '.join(walk.opened)}")
    if walk.stripped:
        notes.info(f"removed from allOf/anyOf/oneOf/not: {', '.join(walk.stripped)}")
    return _metadata_only_names(out, path, notes)


def _conversion(conversion: Obj, notes: Notes) -> Obj:
    strategy = conversion.get("strategy") or "None"
    if strategy != "Webhook":
        return {"strategy": strategy}
    webhook: Obj = {}
    if conversion.get("webhookClientConfig") is not None:
        webhook["clientConfig"] = conversion["webhookClientConfig"]
    review = conversion.get("conversionReviewVersions")
    if not review:
        review = ["v1beta1"]
        notes.warn("spec.conversion: conversionReviewVersions pinned to the v1beta1 default [v1beta1]")
    webhook["conversionReviewVersions"] = review
    return {"strategy": strategy, "webhook": webhook}


@converter("apiextensions.k8s.io/v1beta1", ["CustomResourceDefinition"], "apiextensions.k8s.io/v1")
def crd(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    versions = [v for v in items(spec.get("versions")) if isinstance(v, dict)]
    if not versions:
        if not spec.get("version"):
            raise ConversionError("has neither spec.version nor spec.versions")
        versions = [{"name": spec["version"], "served": True, "storage": True}]
    preserve = spec.get("preserveUnknownFields", True) is not False
    if preserve:
        notes.warn(
            "spec.preserveUnknownFields (v1beta1 default true) is refused by v1: "
            f"{PRESERVE} set on every object schema instead, so unknown fields are still kept"
        )
    top_schema = mapping(spec.get("validation")).get("openAPIV3Schema")
    new_versions = []
    for version in versions:
        name = version.get("name", "?")
        out = dict(version)
        for key in ("subresources", "additionalPrinterColumns"):
            if key not in out and spec.get(key) is not None:
                out[key] = spec[key]
        if "additionalPrinterColumns" in out:
            out["additionalPrinterColumns"] = [
                rename_key(c, "JSONPath", "jsonPath") if isinstance(c, dict) else c
                for c in items(out["additionalPrinterColumns"])
            ]
        schema = mapping(mapping(out.get("schema")).get("openAPIV3Schema")) or mapping(top_schema)
        if schema:
            schema = _schema(schema, f"versions[{name}].schema.openAPIV3Schema", preserve, notes)
        else:
            schema = dict(OPEN_SCHEMA)
            notes.warn(f"version {name}: no schema: wrote an open one (type object, {PRESERVE})")
        out["schema"] = {"openAPIV3Schema": schema}
        new_versions.append(out)
    new = drop(spec, "version", "validation", "subresources", "additionalPrinterColumns", "preserveUnknownFields")
    if not new.get("scope"):
        new = {**new, "scope": "Namespaced"}
        notes.info("spec.scope written as Namespaced (the v1beta1 default; v1 requires it)")
    new["versions"] = new_versions
    if isinstance(spec.get("conversion"), dict):
        new["conversion"] = _conversion(spec["conversion"], notes)
    return _approved(with_spec(obj, new), str(spec.get("group", "")), notes)


def _approved(obj: Obj, group: str, notes: Notes) -> Obj:
    """v1beta1 let a protected group (``*.k8s.io``, ``*.kubernetes.io``) go without an API review; v1
    refuses the CRD unless ``api-approved.kubernetes.io`` holds a URL or a reason starting "unapproved"."""
    if not protected_group(group):
        return obj
    meta = mapping(obj.get("metadata"))
    annotations = mapping(meta.get("annotations"))
    state = approval_state(annotations.get(APPROVAL))
    if state in ("approved", "bypassed"):
        return obj
    was = f" (it held {annotations[APPROVAL]!r}, neither a URL nor a reason)" if state == "invalid" else ""
    notes.warn(
        f"{group} is a protected group: v1 requires {APPROVAL}; wrote {UNAPPROVED!r}{was}. Move the API to a "
        "group of your own, or record its Kubernetes API review there"
    )
    return {**obj, "metadata": {**meta, "annotations": {**annotations, APPROVAL: UNAPPROVED}}}
