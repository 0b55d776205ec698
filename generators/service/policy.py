"""The phase-driven sync policy: which phases may sync automatically, prune and self-heal.

By default a cluster that is Ready gets the full automated sync; Pending clusters do not sync yet;
while a cluster upgrades or is degraded nothing is pruned (resources that look orphaned may only be
missing for a moment); Unreachable and Decommissioning clusters get no automation at all. Operators
override single cells with a small YAML file::

    Upgrading: {prune: true}
    Degraded:  {selfHeal: false}

The same file's ``driftWindows`` (break-glass windows per project) is the drift watch's
(generators/drift/window.py); the phase table leaves it alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.label_selector import kind_of
from argocd_lifecycle.model import Phase
from argocd_lifecycle.yaml import yamlio

#: the policy file's key the drift watch reads (generators/drift/window.py)
DRIFT_WINDOWS = "driftWindows"


@dataclass(frozen=True)
class SyncRule:
    """What automated sync may do for Applications on a cluster in one phase."""

    sync_enabled: bool
    prune: bool
    self_heal: bool


#: the policy file's keys (the parameter names without the ``lifecycle.`` prefix) -> SyncRule fields
_KEYS = {"syncEnabled": "sync_enabled", "prune": "prune", "selfHeal": "self_heal"}

_ALL = SyncRule(sync_enabled=True, prune=True, self_heal=True)
_NONE = SyncRule(sync_enabled=False, prune=False, self_heal=False)

DEFAULT_RULES: Mapping[Phase, SyncRule] = {
    Phase.READY: _ALL,
    Phase.PENDING: _NONE,
    Phase.UPGRADING: SyncRule(sync_enabled=True, prune=False, self_heal=True),
    Phase.DEGRADED: SyncRule(sync_enabled=True, prune=False, self_heal=True),
    Phase.UNREACHABLE: _NONE,
    Phase.DECOMMISSIONING: _NONE,
}


@dataclass(frozen=True)
class PolicyTable:
    """Phase -> SyncRule, complete for every phase."""

    rules: Mapping[Phase, SyncRule]

    @classmethod
    def default(cls) -> PolicyTable:
        return cls(dict(DEFAULT_RULES))

    def rule(self, phase: Phase) -> SyncRule:
        return self.rules[phase]

    def with_overrides(self, overrides: Mapping[str, Any], *, where: str = "policy") -> PolicyTable:
        """Apply ``{Phase: {syncEnabled|prune|selfHeal: bool}}``; unknown names are errors naming the key."""
        if not isinstance(overrides, Mapping):
            raise ConfigError(f"{where}: expected a mapping of phase to settings, got {kind_of(overrides)}")
        rules = dict(self.rules)
        for phase_name, cells in overrides.items():
            if phase_name == DRIFT_WINDOWS:
                continue
            try:
                phase = Phase(phase_name)
            except ValueError:
                known = ", ".join(p.value for p in Phase)
                raise ConfigError(f"{where}: unknown phase {phase_name!r} (one of {known})") from None
            if not isinstance(cells, Mapping):
                raise ConfigError(f"{where}.{phase_name}: expected a mapping, got {kind_of(cells)}")
            changes: dict[str, bool] = {}
            for key, value in cells.items():
                if key not in _KEYS:
                    raise ConfigError(f"{where}.{phase_name}: unknown setting {key!r} (one of {', '.join(_KEYS)})")
                if not isinstance(value, bool):
                    raise ConfigError(f"{where}.{phase_name}.{key}: expected true or false, got {value!r}")
                changes[_KEYS[key]] = value
            rules[phase] = replace(rules[phase], **changes)
        return PolicyTable(rules)

    def as_dict(self) -> dict[str, dict[str, bool]]:
        """The table in the policy file's own shape (for docs and the fleet page)."""
        return {phase.value: {key: getattr(self.rules[phase], attr) for key, attr in _KEYS.items()} for phase in Phase}


def load_policy(path: Path | None) -> PolicyTable:
    """The default table, with the overrides of ``path`` (YAML) applied when given."""
    table = PolicyTable.default()
    if path is None:
        return table
    data = yamlio.load_config(path, "the policy file")
    if data is None:
        return table
    return table.with_overrides(data, where=str(path))
