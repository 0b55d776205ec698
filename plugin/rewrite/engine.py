"""The rewrite engine: decide per object, run the converter chain, apply the removed-API policy.

Objects that need nothing are returned as the very same dict (no copy), so they serialise exactly as
before; converted objects share every unchanged subtree with their input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.deprecations.rules import BUILTIN, ApiRule, KnowledgeBase, Replacement, minor
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.plugin.rewrite.candidates import ROLE_KINDS
from argocd_lifecycle.plugin.rewrite.convert import registry
from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, Step
from argocd_lifecycle.plugin.rewrite.objects import describe, mapping
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Action, Target, decide, usable
from argocd_lifecycle.plugin.stream.manifest import Obj

#: emitted instead of an object that the ``drop`` policy removed
DROPPED: None = None


@dataclass
class Rewriter:
    """Rewrites objects one at a time, collecting diagnostics and problems for the whole run."""

    kb: KnowledgeBase
    target: Target
    policy: Policy = field(default_factory=Policy)
    warnings: list[str] = field(default_factory=list)
    infos: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    converted: int = 0
    dropped: int = 0

    def __post_init__(self) -> None:
        # the registry loads its converters at the first conversion, not here: a render with nothing
        # to convert never loads them; the opt-in table is filled by their import
        self._opt_in: dict[tuple[str, str], Step] = {}
        self._renames: dict[tuple[str, str], tuple[str, list[Step]] | None] = {}
        if self.policy.upgrade_hpa_v1:
            registry.load()
            self._opt_in = registry.OPT_IN
        psp = self.kb.lookup("policy/v1beta1", "PodSecurityPolicy")
        #: PodSecurityPolicy is gone at the target: RBAC granting "use" on it is dead
        self.psp_gone = psp is not None and any(
            v is not None and psp.removed_at(v) for v in (self.target.current, self.target.upgrade_to)
        )

    def needs(self, api_version: str | None, kind: str | None) -> bool:
        """Whether an object with this identity may change or be reported (cheap pre-check)."""
        return (
            (api_version is not None and kind is not None and self.kb.lookup(api_version, kind) is not None)
            or (api_version, kind) in self._opt_in
            or (self.psp_gone and kind in ROLE_KINDS)
        )

    def rewrite(self, obj: Any, where: str = "") -> Any:
        """The object for the target: the same dict when nothing changes, DROPPED when dropped."""
        if not isinstance(obj, dict):
            return obj
        api, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api, str) or not isinstance(kind, str):
            return obj
        if isinstance(obj.get("items"), list) and kind.endswith("List"):
            return self._list(obj, where)
        if kind in ROLE_KINDS and self.psp_gone:
            self._dead_psp_grant(obj, where)
        if self.kb.lookup(api, kind) is None and (api, kind) not in self._opt_in:
            return obj  # the common case: nothing known about this apiVersion and kind
        decision = decide(self.kb, self.target, api, kind)
        label = self._label(obj, where)
        if decision.action is Action.CONVERT and decision.to and decision.rule:
            return self._convert(obj, decision.rule, decision.to, label)
        if decision.action is Action.REMOVED and decision.rule:
            return self._removed(obj, decision.rule, label, "")
        if decision.action is Action.UNSERVED:
            self.warnings.append(
                f"{label}: {api} {kind} is not in the cluster's API list (KUBE_API_VERSIONS) and no "
                "replacement it serves is known; kept as is"
            )
            return obj
        opt_in = self._opt_in.get((api, kind))
        if opt_in is not None and usable(self.kb, self.target, Replacement(opt_in.new, opt_in.since), kind):
            return self._run(obj, [opt_in], api, opt_in.new, label)
        if decision.rule is not None:
            self._deprecated(decision.rule, label)
        return obj

    def _label(self, obj: Obj, where: str) -> str:
        return f"{describe(obj)} ({where})" if where else describe(obj)

    def _list(self, obj: Obj, where: str) -> Obj:
        items = obj["items"]
        new = [self.rewrite(item, f"{where} items[{i}]" if where else f"items[{i}]") for i, item in enumerate(items)]
        if all(a is b for a, b in zip(new, items, strict=True)):
            return obj
        # a typed list (DeploymentList) of a removed version would itself be refused: use v1 List
        kept = [i for i in new if i is not DROPPED]
        return {**obj, "apiVersion": "v1", "kind": "List", "items": kept}

    def _steps(self, rule: ApiRule, api: str, kind: str, to: str) -> list[Step] | None:
        steps = registry.chain(api, kind, to)
        if steps is None and rule.origin != BUILTIN:
            steps = [registry.Step(rule.api_version, kind, to, registry.rename)]  # users' rules: a rename
        return steps

    def _convert(self, obj: Obj, rule: ApiRule, to: str, label: str) -> Any:
        steps = self._steps(rule, str(obj["apiVersion"]), str(obj["kind"]), to)
        if steps is None:
            return self._removed(obj, rule, label, f"{to} exists but needs a manual migration")
        return self._run(obj, steps, str(obj["apiVersion"]), to, label)

    def renamed_to(self, api_version: str, kind: str, text: str) -> str | None:
        """The apiVersion the object of document ``text`` (no escapes, merge keys, aliases or tags) is
        rewritten to when that rewrite is renames only (apiVersion and the rewritten-from annotation
        change, nothing is noted): its text can be edited without loading it (``record_rename`` then
        does what ``rewrite`` would). None otherwise."""
        key = (api_version, kind)
        if key not in self._renames:
            self._renames[key] = self._rename_steps(api_version, kind)
        found = self._renames[key]
        return found[0] if found is not None and all(s.keeps(text) for s in found[1]) else None

    def _rename_steps(self, api: str, kind: str) -> tuple[str, list[Step]] | None:
        if (kind in ROLE_KINDS and self.psp_gone) or self.kb.lookup(api, kind) is None:
            return None  # RBAC rules are looked at; no rule: nothing to rename
        decision = decide(self.kb, self.target, api, kind)
        if decision.action is not Action.CONVERT or not decision.to or not decision.rule:
            return None
        steps = self._steps(decision.rule, api, kind, decision.to)
        if steps is None or any(s.fn is not registry.rename and s.keeps_text is None for s in steps):
            return None  # a step that may change more, whatever the text
        return decision.to, steps

    def record_rename(self, identity: Obj, where: str, api: str, to: str) -> None:
        """What ``rewrite`` records for an object ``renamed_to`` answered for (``identity`` holds its
        kind and metadata identity fields)."""
        self._done(self._label(identity, where), api, to, [], [])

    def _run(self, obj: Obj, steps: list[Step], api: str, to: str, label: str) -> Any:
        notes = Notes()
        new = obj
        try:
            for step in steps:
                new = step.fn(new, notes)
                new = {**new, "apiVersion": step.new}
        except ConversionError as exc:
            self.problems.append(f"{label}: cannot convert {api} to {to}: {exc.message}")
            return obj
        meta = mapping(new.get("metadata"))
        annotations = {**mapping(meta.get("annotations")), Annotation.REWRITTEN_FROM: api}
        new = {**new, "metadata": {**meta, "annotations": annotations}}
        self._done(label, api, to, notes.warnings, notes.infos)
        return new

    def _done(self, label: str, api: str, to: str, warnings: list[str], infos: list[str]) -> None:
        self.converted += 1
        self.infos.append(f"{label}: rewritten from {api} to {to} for Kubernetes {self.target.describe()}")
        self.warnings.extend(f"{label}: {api} -> {to}: {message}" for message in warnings)
        self.infos.extend(f"{label}: {api} -> {to}: {message}" for message in infos)

    def _removed(self, obj: Obj, rule: ApiRule, label: str, why: str) -> Any:
        when = f"removed in {minor(rule.removed_in)}" if rule.removed_in else "not served"
        what = f"{rule.api_version} {obj['kind']} is {when}"
        reason = why or rule.note or "it has no replacement"
        if self.policy.on_removed is OnRemoved.DROP:
            self.dropped += 1
            self.warnings.append(f"{label}: dropped: {what}: {reason}")
            return DROPPED
        if self.policy.on_removed is OnRemoved.KEEP:
            self.warnings.append(f"{label}: kept although {what} (the sync will fail): {reason}")
            return obj
        self.problems.append(
            f"{label}: {what}: {reason}; remove or migrate it, or set onRemoved (--on-removed) to drop or keep"
        )
        return obj

    def rewrite_all(self, objs: list[Any], wheres: list[str] | None = None) -> list[Any]:
        """Every object rewritten (DROPPED where dropped)."""
        return [self.rewrite(o, wheres[i] if wheres else "") for i, o in enumerate(objs)]

    def _dead_psp_grant(self, obj: Obj, where: str) -> None:
        """RBAC granting ``use`` on PodSecurityPolicies stays valid but grants nothing once PSP is gone."""
        rules = obj.get("rules")
        for rule in rules if isinstance(rules, list) else []:  # any shape may come in: never iterate a number
            if (
                isinstance(rule, dict)
                and isinstance(rule.get("resources"), list)
                and "podsecuritypolicies" in rule["resources"]
                and isinstance(rule.get("verbs"), list)
                and "use" in rule["verbs"]
            ):
                self.warnings.append(
                    f"{self._label(obj, where)}: grants use on PodSecurityPolicies, which no longer exist: "
                    "the rule is dead"
                )
                return

    def _deprecated(self, rule: ApiRule, label: str) -> None:
        current = self.target.current
        if current is None or not rule.deprecated_at(current):
            return
        newest = rule.newest_replacement
        hint = f"; use {newest.api_version}" + (f" {newest.kind}" if newest.kind else "") if newest else ""
        removal = f", removal in {minor(rule.removed_in)}" if rule.removed_in else ""
        self.infos.append(f"{label}: {rule.api_version} is deprecated since {minor(rule.deprecated_in)}{removal}{hint}")
