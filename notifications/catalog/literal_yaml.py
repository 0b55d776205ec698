"""YAML output of the catalog: multi-line strings as literal blocks, so the generated ConfigMap,
Helm values and docs read like the sources (and diff well)."""

from __future__ import annotations

from typing import Any

import yaml


class _LiteralDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # literal blocks cannot carry trailing spaces or tabs; PyYAML then falls back to quoting itself
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralDumper.add_representer(str, _str)


def dump_literal(obj: Any) -> str:
    """Block-style YAML in insertion order, multi-line strings as ``|`` blocks, no line wrapping."""
    out: str = yaml.dump(
        obj, Dumper=_LiteralDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 30
    )
    return out
