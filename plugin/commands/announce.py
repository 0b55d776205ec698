"""Dynamic parameter announcement: what Argo CD's UI offers to set for this application folder.

``values.yaml`` is read like every other input: inside the folder (a symlink leading out is refused, as
by ``generate``), under the same YAML limits. A file that is merely not valid YAML announces nothing
(``generate`` reports it); a refused one is an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.plugin.walk import check_symlinks
from argocd_lifecycle.yaml import yamlio


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
    root = app_dir.resolve()
    check_symlinks(root)
    text = yamlio.read_file(values_file, "values.yaml")
    try:
        data = yamlio.load(text)
    except yamlio.LimitError as exc:
        raise LifecycleError(yamlio.syntax_error("values.yaml", exc)) from exc
    except yaml.YAMLError:  # the UI announcement must never fail on a typo; render reports bad YAML
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


def run_command(app_dir: Path) -> int:
    """`plugin parameters` as a process: the JSON array on stdout, or ``error:`` lines and exit 1."""
    try:
        text = json.dumps(announce(app_dir), indent=None, sort_keys=False)
    except LifecycleError as exc:
        sys.stderr.write("".join(f"error: {line}\n" for line in exc.lines()))
        return 1
    except (RecursionError, MemoryError, OSError) as exc:
        sys.stderr.write(f"error: values.yaml: refused ({type(exc).__name__})\n")
        return 1
    sys.stdout.write(text + "\n")
    return 0
