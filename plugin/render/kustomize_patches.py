"""Warn about kustomize patches that kustomize cannot merge.

A strategic-merge patch is merged field by field (lists of containers, volumes, env by their keys) only
for types kustomize has a schema for: the Kubernetes 1.21 API compiled into it. For an apiVersion
removed before that (``apps/v1beta2``, ``extensions/v1beta1`` workloads) or first served after it
(``autoscaling/v2``), kustomize falls back to a plain merge that replaces every list: an old overlay
that adds one container or env var silently drops the others, before the plugin sees the output.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.deprecations.knowledge import knowledge_base
from argocd_lifecycle.deprecations.rules import Key, KnowledgeBase, minor
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.yaml import yamlio

#: the Kubernetes release whose OpenAPI schema kustomize v5 compiles in (kyaml's DefaultOpenAPI)
KUSTOMIZE_SCHEMA: Key = (1, 21)
_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def unmergeable(kb: KnowledgeBase, api_version: str, kind: str) -> str | None:
    """Why kustomize has no schema for ``api_version`` ``kind`` (None when it has one)."""
    rule = kb.lookup(api_version, kind)
    if rule is not None and rule.removed_at(KUSTOMIZE_SCHEMA):
        return f"{api_version} was removed in Kubernetes {minor(rule.removed_in)}"
    for other in kb.rules.values():
        for candidate in other.replacements:
            since = candidate.since
            same = candidate.api_version == api_version and candidate.kind in (None, kind) and other.kind in ("*", kind)
            if same and since is not None and since > KUSTOMIZE_SCHEMA:
                return f"{api_version} is served from Kubernetes {minor(since)} on"
    return None


def _kustomization(folder: Path) -> Path | None:
    return next((folder / n for n in _FILES if (folder / n).is_file()), None)


def _patch_docs(entry: Any, folder: Path, limits: yamlio.Limits) -> Iterator[tuple[Any, Any]]:
    """(document, target) of each strategic-merge patch an entry names; JSON 6902 patches (lists) skip."""
    text: str | None
    if isinstance(entry, str):  # patchesStrategicMerge: a file or an inline patch
        text, target = (entry, None) if "\n" in entry else (_read(folder / entry, limits), None)
    elif isinstance(entry, dict):
        target = entry.get("target")
        patch = entry.get("patch")
        text = patch if isinstance(patch, str) else None
        if text is None and isinstance(entry.get("path"), str):
            text = _read(folder / entry["path"], limits)
    else:
        return
    for doc in yamlio.load_all(text or "", limits):
        if isinstance(doc, dict):
            yield doc, target


def _read(path: Path, limits: yamlio.Limits) -> str:
    resolved = path.resolve()
    return yamlio.read_file(resolved, path.name, limits) if resolved.is_file() else ""


def warn_unmergeable(app_dir: Path, diagnostics: Diagnostics, limits: yamlio.Limits = yamlio.DEFAULT_LIMITS) -> None:
    """A warning per strategic-merge patch, in the app's kustomization and its local bases, whose type
    kustomize cannot merge. Never fails the render: kustomize has already accepted the files."""
    kb = knowledge_base()
    seen: set[str] = set()
    todo = [app_dir]
    while todo:
        folder = todo.pop()
        real = os.path.realpath(folder)
        path = _kustomization(folder)
        if real in seen or path is None:  # bases outside the repository were refused before kustomize ran
            continue
        seen.add(real)
        try:
            doc = yamlio.load(yamlio.read_file(path, path.name, limits), limits)
            if not isinstance(doc, dict):
                continue
            for key in ("resources", "bases", "components"):
                refs = [r for r in doc.get(key) or [] if isinstance(r, str)]
                todo.extend(folder / ref for ref in refs if (folder / ref).is_dir())
            for entry in [*(doc.get("patches") or []), *(doc.get("patchesStrategicMerge") or [])]:
                for patch, target in _patch_docs(entry, folder, limits):
                    _check(kb, patch, target, os.path.relpath(path, app_dir), diagnostics)
        except (yaml.YAMLError, LifecycleError, OSError, ValueError):
            continue  # kustomize read these files; a warning is all this step adds


def _check(kb: KnowledgeBase, patch: dict[str, Any], target: Any, where: str, diag: Diagnostics) -> None:
    api, kind = patch.get("apiVersion"), patch.get("kind")
    if isinstance(target, dict) and target.get("version") and target.get("kind"):
        group = target.get("group") or ""
        api, kind = f"{group}/{target['version']}" if group else target["version"], target["kind"]
    if not isinstance(api, str) or not isinstance(kind, str):
        return
    why = unmergeable(kb, api, kind)
    if why is None:
        return
    name = (patch.get("metadata") or {}).get("name") if isinstance(patch.get("metadata"), dict) else None
    diag.warn(
        f"{where}: patch of {api} {kind}{'/' + name if name else ''}: kustomize has no schema for it ({why}; "
        "it knows the Kubernetes 1.21 API), so the patch replaces whole lists (containers, env, volumes) "
        "instead of merging them; move the patch and its target to a served apiVersion, or use a JSON 6902 "
        "patch"
    )
