"""What a Kubernetes release serves, from the table alone: the upgrade preflight's questions.

The plugin decides per object with the cluster's API list when it has one (plugin/rewrite/target.py);
before an upgrade there is no list of the release to come, so the preflight asks the table: is this
apiVersion + kind served by release X, which same-kind replacement would a cluster of X serve by default
(betas that are off by default do not count), and will the plugin convert to it by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from argocd_lifecycle.deprecations.rules import ApiRule, Key, KnowledgeBase, Replacement


@dataclass(frozen=True)
class Verdict:
    """What release ``target`` makes of one apiVersion + kind that the table knows."""

    rule: ApiRule
    #: the target no longer serves it (removed at or before the target)
    removed: bool
    #: deprecated at the target (and, unless ``removed``, still served)
    deprecated: bool
    #: the newest same-kind replacement the target serves by default, or None
    served_replacement: Replacement | None
    #: the plugin rewrites objects to ``served_replacement`` at render without a human
    converts: bool

    @property
    def advice(self) -> str:
        """The replacement to name in a report: the served one, else the table's newest (maybe another kind)."""
        if self.served_replacement is not None:
            return self.served_replacement.api_version
        newest = self.rule.newest_replacement
        if newest is None:
            return ""
        return f"{newest.api_version} {newest.kind}" if newest.kind else newest.api_version


def serves(kb: KnowledgeBase, candidate: Replacement, kind: str, target: Key) -> bool:
    """Whether a cluster of ``target`` serves ``candidate`` for ``kind`` with its default API set."""
    if candidate.kind is not None and candidate.kind != kind:
        return False  # another kind is advice for a human, not a version of this object
    if candidate.default_off or (candidate.since is not None and target < candidate.since):
        return False
    own = kb.lookup(candidate.api_version, kind)
    return own is None or not own.removed_at(target)


def verdict(kb: KnowledgeBase, api_version: str, kind: str, target: Key) -> Verdict | None:
    """None when the target serves it and does not deprecate it (nothing to report)."""
    rule = kb.lookup(api_version, kind)
    if rule is None:
        return None
    removed, deprecated = rule.removed_at(target), rule.deprecated_at(target)
    if not removed and not deprecated:
        return None
    # candidates are listed oldest first: the last one served is the newest
    served = [c for c in rule.replacements if serves(kb, c, kind, target)]
    best = served[-1] if served else None
    return Verdict(rule, removed, deprecated, best, converts=rule.converts and best is not None)


def dropped_between(kb: KnowledgeBase, current: Key, target: Key) -> list[ApiRule]:
    """Persisted apiVersion + kind pairs a cluster of ``current`` still serves that ``target`` drops, by
    removal release then name (what the upgrade takes away, whether anything deploys them or not)."""
    found = [
        rule
        for rule in kb.rules.values()
        if rule.persisted and rule.removed_in is not None and current < rule.removed_in <= target
    ]
    return sorted(found, key=lambda r: (r.removed_in or (0, 0), r.api_version, r.kind))
