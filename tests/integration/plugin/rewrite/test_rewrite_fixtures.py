"""Every fixture pair (the reference set and ours): parsed comparison, expected warnings, and strict
validation of every output with kubernetes-validate at its target version."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.plugin.validate import validate_objects
from tests.unit.plugin.rewrite.helpers import (
    OWN_FIXTURES,
    REFERENCE_FIXTURES,
    fixture_pairs,
    load_docs,
    run_fixture,
    without_own_annotations,
)

PAIRS = fixture_pairs(REFERENCE_FIXTURES) + fixture_pairs(OWN_FIXTURES)
OPT_IN = {"hpa-v1-alpha-annotations"}  # README: OPT-IN fixtures need the option on

# The reference set README's "expected warnings" column, as fragments of our messages.
EXPECTED_WARNINGS = {
    "deployment-extensions": [
        "spec.rollbackTo dropped",
        "revisionHistoryLimit now defaults to 10",
        "progressDeadlineSeconds now defaults to 600",
        "selectors are immutable",
    ],
    "daemonset-extensions": ["spec.templateGeneration dropped"],
    "apps-beta-mixed": ["selectors are immutable"],
    "cronjob-pdb": ["empty spec.selector removed", "consider deleting it"],
    "psp-rbac-runtimeclass": [
        "PodSecurityPolicy/restricted",
        "Pod Security Admission",
        "grants use on PodSecurityPolicies, which no longer exist",
    ],
    "crd-v1beta1": ["preserveUnknownFields", "conversionReviewVersions pinned"],
    "admission-webhooks": ["pinned v1beta1 defaults", "sideEffects Unknown assumed to be None"],
    "endpointslice-v1beta1": ["topology.kubernetes.io/region"],
    "flowcontrol-v1beta1": [],
}
EXPECTED_INFOS = {"ingress-legacy": ["deprecated kubernetes.io/ingress.class annotation"]}


def test_there_are_fixtures_to_run() -> None:
    assert len(fixture_pairs(REFERENCE_FIXTURES)) == 8, "the reference fixture set moved or changed"
    assert len(fixture_pairs(OWN_FIXTURES)) >= 9


@pytest.mark.parametrize(
    ("name", "source", "expected", "version"),
    PAIRS,
    ids=lambda v: str(v) if isinstance(v, tuple) else getattr(v, "name", v),
)
def test_fixture_converts_as_expected(name: str, source: Path, expected: Path, version: tuple[int, int]) -> None:
    got, rw = run_fixture(source, version, opt_in=name in OPT_IN)
    assert rw.problems == []
    assert [without_own_annotations(o) for o in got] == load_docs(expected)
    # every rewritten object says where it came from
    assert rw.converted == sum(
        1 for o in got if "argocd-lifecycle.io/rewritten-from" in (o["metadata"].get("annotations") or {})
    )
    for fragment in EXPECTED_WARNINGS.get(name, []):
        assert any(fragment in w for w in rw.warnings), (fragment, rw.warnings)
    for fragment in EXPECTED_INFOS.get(name, []):
        assert any(fragment in i for i in rw.infos), (fragment, rw.infos)


@pytest.mark.parametrize(
    ("name", "source", "expected", "version"),
    PAIRS,
    ids=lambda v: str(v) if isinstance(v, tuple) else getattr(v, "name", v),
)
def test_fixture_output_validates_strictly_at_its_target(
    name: str, source: Path, expected: Path, version: tuple[int, int]
) -> None:
    got, _ = run_fixture(source, version, opt_in=name in OPT_IN)
    report = validate_objects([(f"{name}#{i}", o) for i, o in enumerate(got)], version)
    assert report.problems == []
    assert report.skipped == [], "every output kind must have a bundled schema"
    assert report.checked == len(got)


def test_opt_in_fixture_is_left_alone_without_the_option() -> None:
    source = REFERENCE_FIXTURES / "hpa-v1-alpha-annotations.in.yaml"
    got, rw = run_fixture(source, (1, 30))
    assert got == load_docs(source) and rw.converted == 0
