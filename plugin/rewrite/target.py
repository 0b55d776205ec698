"""What the target cluster serves, and which apiVersion an object should use there.

When ``KUBE_API_VERSIONS`` is known it is the truth about the cluster (Argo CD fills it from the
cluster's discovery API); otherwise the table and the target version decide. While a cluster is
Upgrading to a known version, the chosen apiVersion must also be served by that next version, so the
same manifests survive the upgrade.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from argocd_lifecycle.deprecations.rules import ApiRule, Key, KnowledgeBase, Replacement, minor

_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_STABILITY = {"alpha": 0, "beta": 1, None: 2}


def api_priority(api_version: str) -> tuple[int, int, int]:
    """Kubernetes' version order: GA > beta > alpha, then the higher major, then the higher pre-release."""
    version = api_version.rsplit("/", 1)[-1]
    m = _VERSION.match(version)
    if not m:
        return (-1, 0, 0)
    return (_STABILITY[m.group(2)], int(m.group(1)), int(m.group(3) or 0))


@dataclass(frozen=True)
class Target:
    #: the cluster's minor; None when only the API list is known
    current: Key | None = None
    #: the minor the cluster is being upgraded to (cluster phase Upgrading), if known
    upgrade_to: Key | None = None
    #: ``group/version/Kind`` entries of KUBE_API_VERSIONS (empty: unknown)
    api_list: frozenset[str] = field(default_factory=frozenset)
    #: also move objects off deprecated-but-served versions
    rewrite_deprecated: bool = False

    @classmethod
    def of(
        cls,
        current: Key | None,
        *,
        upgrade_to: Key | None = None,
        api_versions: Iterable[str] = (),
        rewrite_deprecated: bool = False,
    ) -> Target:
        kinds = frozenset(v for v in api_versions if v.count("/") == 2 or (v.count("/") == 1 and _kindish(v)))
        if upgrade_to is not None and current is not None and upgrade_to <= current:
            upgrade_to = None
        return cls(current, upgrade_to, kinds, rewrite_deprecated)

    @property
    def known(self) -> bool:
        return self.current is not None or bool(self.api_list)

    def describe(self) -> str:
        now = minor(self.current) if self.current else "the cluster's API list"
        return f"{now} and {minor(self.upgrade_to)} (upgrading)" if self.upgrade_to else now


def _kindish(entry: str) -> bool:
    """``v1/ConfigMap`` (core group) names a kind; ``apps/v1`` names a group version."""
    return entry.split("/", 1)[1][:1].isupper()


class Action(Enum):
    KEEP = "keep"
    CONVERT = "convert"
    REMOVED = "removed"
    UNSERVED = "unserved"  # not served by the cluster, yet not removed either: nothing to switch to


@dataclass(frozen=True)
class Decision:
    action: Action
    rule: ApiRule | None = None
    to: str | None = None


KEEP = Decision(Action.KEEP)


def _listable(rule: ApiRule | None) -> bool:
    return rule is None or rule.persisted


def served(kb: KnowledgeBase, target: Target, api_version: str, kind: str) -> bool:
    """Whether the target serves the object as it is, now and (when upgrading) after the upgrade."""
    rule = kb.lookup(api_version, kind)
    if target.api_list and _listable(rule):
        now = f"{api_version}/{kind}" in target.api_list
    else:
        now = rule is None or target.current is None or not rule.removed_at(target.current)
    later = rule is None or target.upgrade_to is None or not rule.removed_at(target.upgrade_to)
    return now and later


def _static_ok(kb: KnowledgeBase, cand: Replacement, kind: str, version: Key, listed: bool) -> bool:
    if cand.since is not None and version < cand.since:
        return False
    if cand.default_off and not listed:
        return False
    rule = kb.lookup(cand.api_version, kind)
    return rule is None or not rule.removed_at(version)


def usable(kb: KnowledgeBase, target: Target, cand: Replacement, kind: str) -> bool:
    if cand.kind is not None and cand.kind != kind:
        return False  # a different kind is advice for a human, not a conversion
    listed = f"{cand.api_version}/{kind}" in target.api_list
    if target.api_list and _listable(kb.lookup(cand.api_version, kind)):
        now = listed
    else:
        now = target.current is None or _static_ok(kb, cand, kind, target.current, listed)
    later = target.upgrade_to is None or _static_ok(kb, cand, kind, target.upgrade_to, listed)
    return now and later


def choose(kb: KnowledgeBase, target: Target, rule: ApiRule, kind: str) -> str | None:
    """The best replacement the target serves: GA before beta before alpha, newest first."""
    found = [c.api_version for c in rule.replacements if usable(kb, target, c, kind)]
    return max(found, key=api_priority) if found else None


def removed(target: Target, rule: ApiRule) -> bool:
    """Known to be gone: by the table at a target version, or absent from the cluster's list."""
    if target.current is not None and rule.removed_at(target.current):
        return True
    if target.upgrade_to is not None and rule.removed_at(target.upgrade_to):
        return True
    return target.current is None and rule.removed_in is not None


def decide(kb: KnowledgeBase, target: Target, api_version: str, kind: str) -> Decision:
    rule = kb.lookup(api_version, kind)
    if rule is None or not target.known:
        return KEEP
    if served(kb, target, api_version, kind):
        wanted = target.rewrite_deprecated and any(
            v is not None and rule.deprecated_at(v) for v in (target.current, target.upgrade_to)
        )
        if not wanted:
            return Decision(Action.KEEP, rule)
        to = choose(kb, target, rule, kind)
        return Decision(Action.CONVERT, rule, to) if to else Decision(Action.KEEP, rule)
    to = choose(kb, target, rule, kind)
    if to is not None:
        return Decision(Action.CONVERT, rule, to)
    return Decision(Action.REMOVED if removed(target, rule) else Action.UNSERVED, rule)
