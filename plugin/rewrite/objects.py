"""Copy-on-write helpers for converters: change a path, share everything else with the input."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.stream.manifest import Obj


def mapping(value: Any) -> Obj:
    """``value`` when it is a mapping, else an empty one (absent and malformed fields read alike)."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def put(d: Obj, key: str, value: Any, *, before: str | None = None) -> Obj:
    """A copy of ``d`` with ``key`` set; a new key goes just before ``before`` when that key exists."""
    if key in d or before is None or before not in d:
        return {**d, key: value}
    out: Obj = {}
    for k, v in d.items():
        if k == before:
            out[key] = value
        out[k] = v
    return out


def drop(d: Obj, *keys: str) -> Obj:
    return {k: v for k, v in d.items() if k not in keys}


def rename_key(d: Obj, old: str, new: str) -> Obj:
    """``old`` becomes ``new`` in place (same position); ``d`` when ``old`` is absent."""
    if old not in d:
        return d
    return {(new if k == old else k): v for k, v in d.items()}


def with_spec(obj: Obj, spec: Obj) -> Obj:
    return {**obj, "spec": spec}


def describe(obj: Obj) -> str:
    """``Deployment/shop/web``: how messages name an object (same form as Manifest.ref)."""
    meta = mapping(obj.get("metadata"))
    name = str(meta.get("name") or meta.get("generateName") or "")
    ns = meta.get("namespace")
    kind = str(obj.get("kind", ""))
    return f"{kind}/{ns}/{name}" if ns else f"{kind}/{name}"
