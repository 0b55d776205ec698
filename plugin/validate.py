"""Strict schema validation of final objects with the schemas shipped in ``kubernetes-validate``.

``kubernetes_validate.validate`` re-reads the 1.4 MB definitions file on every call (~25 ms per
object); this module reads the same packaged schemas once per release and caches one validator per
(apiVersion, kind), which makes validating a whole application cheap enough for the plugin path.
Releases older than the oldest bundled schema are checked against that oldest one.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonschema  # type: ignore[import-untyped]
from referencing import Registry, Resource

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.rewrite.crd_checks import problems as crd_problems

PACKAGE = "kubernetes_validate"
CRD_V1 = "apiextensions.k8s.io/v1"
MAX_ERRORS_PER_OBJECT = 5
_RELEASE_DIR = re.compile(r"^v(\d+)\.(\d+)\.\d+-local-strict$")
_Validator = jsonschema.Draft202012Validator


#: wire types every group version lists in the schemas; a cluster's API list never has them
_NOT_RESOURCES = frozenset(("DeleteOptions", "WatchEvent"))


def _schemas() -> Any:
    return importlib.resources.files(PACKAGE) / "kubernetes-json-schema"


@functools.cache
def bundled_releases() -> tuple[tuple[int, int], ...]:
    found = []
    for entry in _schemas().iterdir():
        m = _RELEASE_DIR.match(entry.name)
        if m:
            found.append((int(m.group(1)), int(m.group(2))))
    return tuple(sorted(found))


def schema_release(target: tuple[int, int]) -> tuple[int, int]:
    """The newest bundled release not newer than ``target`` (the oldest one for older targets)."""
    releases = bundled_releases()
    if not releases:
        raise RenderError(f"{PACKAGE} ships no schemas: reinstall it")
    older = [r for r in releases if r <= target]
    return older[-1] if older else releases[0]


@functools.cache
def api_versions_at(target: tuple[int, int]) -> tuple[str, ...]:
    """Built-in ``group/version`` and ``group/version/Kind`` entries of the bundled release for ``target``,
    in KUBE_API_VERSIONS form (empty for targets older than the oldest bundled release)."""
    release = schema_release(target)
    if release > target:
        return ()
    folder = _schemas() / f"v{release[0]}.{release[1]}.0-local"
    definitions = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    out: set[str] = set()
    for schema in definitions.values():
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            if gvk["kind"] in _NOT_RESOURCES or gvk["kind"].endswith("List"):
                continue
            group_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            out.update((group_version, f"{group_version}/{gvk['kind']}"))
    return tuple(sorted(out))


def _file_name(api_version: str, kind: str) -> str:
    # the bundle's naming: rbac.authorization.k8s.io/v1 -> rbac-v1, v1 -> v1
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


@functools.cache
def _registry(release: tuple[int, int]) -> tuple[Any, Registry[Any]]:
    folder = _schemas() / f"v{release[0]}.{release[1]}.0-local-strict"
    definitions = Resource.from_contents(json.loads((folder / "_definitions.json").read_text(encoding="utf-8")))
    return folder, definitions @ Registry()


@functools.cache
def _validator(release: tuple[int, int], api_version: str, kind: str) -> Any | None:
    folder, registry = _registry(release)
    path = folder / _file_name(api_version, kind)
    if not path.is_file():
        return None
    schema = json.loads(path.read_text(encoding="utf-8"))
    return _Validator(schema, registry=Resource.from_contents(schema) @ registry)


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


@dataclass
class Report:
    release: tuple[int, int]
    problems: list[str] = field(default_factory=list)
    #: objects whose kind has no bundled schema (custom resources): not validated
    skipped: list[str] = field(default_factory=list)
    checked: int = 0


def validate_objects(objects: list[tuple[str, Any]], target: tuple[int, int]) -> Report:
    """Validate ``(label, object)`` pairs strictly at ``target``; problems name object and field."""
    release = schema_release(target)
    report = Report(release)
    where = f"Kubernetes {release[0]}.{release[1]} strict schema"
    for label, obj in objects:
        if not isinstance(obj, dict):
            continue
        validator = _validator(release, str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
        if validator is None:
            report.skipped.append(label)
            continue
        report.checked += 1
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.absolute_path))
        for error in errors[:MAX_ERRORS_PER_OBJECT]:
            report.problems.append(f"{label}: {_path(error.absolute_path)}: {error.message} ({where})")
        if len(errors) > MAX_ERRORS_PER_OBJECT:
            report.problems.append(f"{label}: {len(errors) - MAX_ERRORS_PER_OBJECT} more schema errors")
        if obj.get("kind") == "CustomResourceDefinition" and obj.get("apiVersion") == CRD_V1 and not errors:
            # what the API server refuses beyond the schema: approval, name, versions, structural schemas
            report.problems.extend(f"{label}: {line} (kube-apiserver)" for line in crd_problems(obj))
    return report


def refuse_invalid(objects: list[tuple[str, Any]], targets: Iterable[tuple[int, int]]) -> None:
    """Validate ``(label, object)`` pairs at every target; RenderError naming every problem, if any."""
    problems = [line for target in targets for line in validate_objects(objects, target).problems]
    if problems:
        raise RenderError(problems[0], problems=problems)
