"""Guards on the final object list: duplicates and unwanted empty output are errors."""

from __future__ import annotations

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.stream.manifest import Manifest


def check_duplicates(manifests: list[Manifest]) -> None:
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    problems = []
    for m in manifests:
        if not m.name:  # generateName objects are unique by construction
            continue
        key = (m.group, m.kind, m.namespace, m.name)
        first = seen.get(key)
        if first is not None:
            group = f"{m.group}/" if m.group else ""
            problems.append(f"duplicate object {group}{m.ref}: defined in {first.where} and {m.where}")
        else:
            seen[key] = m
    if problems:
        raise RenderError(problems[0], problems=problems)


def check_not_empty(manifests: list[Manifest], *, allow_empty: bool) -> None:
    if not manifests and not allow_empty:
        raise RenderError(
            "rendered no objects; refusing, because empty output makes Argo CD prune everything "
            "(set the parameter allowEmpty=true if this is intended)"
        )
