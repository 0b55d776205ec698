"""The converter registry against the table, and rename-only pairs against the shipped schemas."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.convert import registry
from argocd_lifecycle.plugin.validate import _schemas, bundled_releases

# Built-in pairs with a same-kind replacement but no automatic conversion carry `manual: <why>` in the
# knowledge base (the generator's upgrade preflight reads that record): the registry must agree with it.
MANUAL = {key: rule.manual for key, rule in builtin().rules.items() if rule.manual}


def test_the_manual_record_is_the_one_the_registry_had() -> None:
    """The pairs that need a human, as the registry knew them before the record moved to the table."""
    assert sorted(MANUAL) == [
        ("coordination.k8s.io/v1alpha1", "LeaseCandidate"),
        ("resource.k8s.io/v1alpha3", "ResourceClaim"),
        ("resource.k8s.io/v1alpha3", "ResourceClaimTemplate"),
        ("resource.k8s.io/v1alpha3", "ResourceSlice"),
        ("resource.k8s.io/v1beta1", "ResourceClaim"),
        ("resource.k8s.io/v1beta1", "ResourceClaimTemplate"),
        ("resource.k8s.io/v1beta1", "ResourceSlice"),
        ("scheduling.k8s.io/v1alpha1", "Workload"),
        ("scheduling.k8s.io/v1alpha2", "PodGroup"),
        ("scheduling.k8s.io/v1alpha2", "Workload"),
        ("storagemigration.k8s.io/v1alpha1", "StorageVersionMigration"),
    ]


def test_converts_agrees_with_the_registry_for_every_persisted_pair() -> None:
    """`ApiRule.converts` (what the preflight believes) is true exactly when the registry has a chain to
    one of the pair's same-kind replacements."""
    disagree = []
    for (api, kind), rule in builtin().rules.items():
        if not rule.persisted or kind == "*":
            continue
        has_chain = any(registry.chain(api, kind, c.api_version) for c in rule.replacements if c.kind is None)
        if has_chain != rule.converts:
            disagree.append((api, kind, has_chain, rule.converts))
    assert disagree == []


def _pairs() -> list[tuple[str, str, str]]:
    out = []
    for rule in builtin().rules.values():
        for cand in rule.replacements:
            if rule.persisted and cand.kind is None:
                out.append((rule.api_version, rule.kind, cand.api_version))
    return out


@pytest.mark.parametrize(("api", "kind", "to"), _pairs(), ids=str)
def test_every_replacement_is_reachable_or_documented_manual(api: str, kind: str, to: str) -> None:
    steps = registry.chain(api, kind, to)
    if (api, kind) in MANUAL:
        assert steps is None
    else:
        assert steps, f"no converter chain from {api} {kind} to {to}"
        assert steps[0].old == api and steps[-1].new == to


def test_registry_has_no_stray_entries() -> None:
    """Every step starts from a row of the table or from a version a chain passes through."""
    registry.load()
    kb = builtin()
    targets = {(s.new, s.kind) for s in registry.STEPS.values()}
    for (old, kind), _step in registry.STEPS.items():
        assert kb.lookup(old, kind) is not None or (old, kind) in targets, (old, kind)


def test_chain_refuses_unknown_paths() -> None:
    assert registry.chain("apps/v1beta1", "Deployment", "apps/v2") is None
    assert registry.chain("example.test/v1", "Widget", "example.test/v2") is None
    assert registry.chain("apps/v1", "Deployment", "apps/v1") == []


# --- rename-only pairs agree with the schemas kubernetes-validate ships ------------------------------
_IGNORED = {
    "description",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-group-version-kind",
}


@functools.cache
def _definitions(release: tuple[int, int]) -> dict[str, Any]:
    folder = _schemas() / f"v{release[0]}.{release[1]}.0-local"
    data: dict[str, Any] = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    return data


@functools.cache
def _index(release: tuple[int, int]) -> dict[tuple[str, str], str]:
    out = {}
    for name, schema in _definitions(release).items():
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            out[(api, gvk["kind"])] = name
    return out


def _resolved(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            ref = node["$ref"].rsplit("/", 1)[-1]
            return "<recursive>" if ref in seen else _resolved(defs[ref], defs, (*seen, ref))
        return {k: _resolved(v, defs, seen) for k, v in node.items() if k not in _IGNORED}
    if isinstance(node, list):
        return [_resolved(v, defs, seen) for v in node]
    return node


def _accepts_all_of(old: Any, new: Any, path: str = "") -> list[str]:
    """Where ``new`` would refuse something ``old`` allowed (new optional fields are fine)."""
    if isinstance(old, dict) and isinstance(new, dict):
        problems = []
        for key, value in old.items():
            if key == "required":
                extra = set(new.get("required", [])) - set(value)
                problems += [f"{path}: newly required {sorted(extra)}"] if extra else []
            elif key not in new:
                problems.append(f"{path}.{key}: gone")
            else:
                problems += _accepts_all_of(value, new[key], f"{path}.{key}")
        problems += [f"{path}: newly required {new['required']}"] if "required" in new and "required" not in old else []
        return problems
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"]


def _schema(api: str, kind: str, release: tuple[int, int]) -> Any | None:
    name = _index(release).get((api, kind))
    if name is None:
        return None
    schema = _resolved(_definitions(release)[name], _definitions(release))
    for field in ("apiVersion", "status"):
        schema.get("properties", {}).pop(field, None)
    return schema


def _rename_steps() -> list[registry.Step]:
    registry.load()
    return [s for s in registry.STEPS.values() if s.fn is registry.rename]


def test_rename_only_pairs_accept_every_old_object() -> None:
    """For each rename step whose two versions appear in the bundled schemas (1.25+), the new version's
    schema accepts everything the old one did: same fields, nothing newly required."""
    releases = bundled_releases()
    compared = []
    for step in _rename_steps():
        both = [r for r in releases if _schema(step.old, step.kind, r) and _schema(step.new, step.kind, r)]
        if both:  # compare within one release where the two coexist
            old, new = _schema(step.old, step.kind, both[-1]), _schema(step.new, step.kind, both[-1])
        else:  # the old one's last release against the new one's first
            old = next((s for r in reversed(releases) if (s := _schema(step.old, step.kind, r))), None)
            new = next((s for r in releases if (s := _schema(step.new, step.kind, r))), None)
        if old is None or new is None:
            continue  # one side predates 1.25: no schema to compare; the rename-only list is the authority there
        assert _accepts_all_of(old, new) == [], f"{step.old} -> {step.new} {step.kind}"
        compared.append((step.old, step.kind))
    # most rename steps are checked this way, not just a handful
    assert len(compared) >= 25, compared


def test_schema_comparison_catches_real_changes() -> None:
    """The comparator flags the pairs we refuse to rename (so the test above can fail)."""
    old = _schema("coordination.k8s.io/v1alpha1", "LeaseCandidate", (1, 31))
    new = _schema("coordination.k8s.io/v1alpha2", "LeaseCandidate", (1, 32))
    assert any("preferredStrategies: gone" in p for p in _accepts_all_of(old, new))
    old = _schema("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration", (1, 26))
    new = _schema("flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration", (1, 26))
    assert any("assuredConcurrencyShares: gone" in p for p in _accepts_all_of(old, new))
