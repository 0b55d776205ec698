"""Dynamic parameter announcement: what Argo CD's UI offers to set for this application folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argocd_lifecycle import yamlio


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif not isinstance(value, dict | list):
        out[prefix] = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def helm_values(app_dir: Path) -> dict[str, str] | None:
    """A chart's default values as a flat ``a.b.c -> value`` map (lists left out), or None."""
    values_file = app_dir / "values.yaml"
    if not (app_dir / "Chart.yaml").is_file() or not values_file.is_file():
        return None
    try:
        data = yamlio.load(values_file.read_text(encoding="utf-8"))
    except Exception:  # the UI announcement must never fail the sidecar; render reports bad YAML
        return None
    out: dict[str, str] = {}
    _flatten("", data if isinstance(data, dict) else {}, out)
    return out


def announce(app_dir: Path) -> list[dict[str, Any]]:
    """Dynamic entries first; Argo CD appends the static ones from plugin.yaml after these."""
    items: list[dict[str, Any]] = []
    values = helm_values(app_dir)
    if values is not None:
        items.append({"name": "values", "title": "Helm values", "collectionType": "map", "map": values})
    return items
