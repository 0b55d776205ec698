"""Every Kubernetes or Argo CD object in README, the docs and the example ApplicationSet is valid: Argo CD's
kinds against the CRDs of the pinned Argo CD module (unknown fields refused), the rest against
kubernetes-validate's strict schemas. A block after `<!-- illustrative: why -->` is left out."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.integration.docs.argocd_module import crd_errors, crd_schemas
from tests.unit.docs.blocks import REPO, all_blocks

pytestmark = pytest.mark.upstream

KUBE_VERSION = "1.34"  # the newest release the chart tests render for
#: kinds served by neither Kubernetes nor Argo CD, validated by the tests of their own install path
OTHER_KINDS = {
    "Kustomization": "built with the real kustomize by tests/integration/deploy/test_deploy_install_paths.py",
}


def objects() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in all_blocks():
        if block.lang in ("yaml", "yml") and not block.illustrative:
            for doc in yaml.safe_load_all(block.text):
                if isinstance(doc, dict) and "apiVersion" in doc and "kind" in doc:
                    out.append((block.where, doc))
    example = REPO / "examples" / "applicationset.yaml"
    out.append((str(example.relative_to(REPO)), yaml.safe_load(example.read_text(encoding="utf-8"))))
    return out


def validate(where: str, doc: dict[str, Any]) -> list[str]:
    what = f"{where}: {doc['kind']}/{doc.get('metadata', {}).get('name', '?')}"
    if doc["kind"] in OTHER_KINDS:
        return []
    errors = crd_errors(doc)
    if errors is not None:
        return [f"{what}: {e}" for e in errors]
    try:
        kubernetes_validate.validate(doc, KUBE_VERSION, strict=True)
    except kubernetes_validate.SchemaNotFoundError as exc:
        return [f"{what}: no schema: {exc.message}"]
    except kubernetes_validate.ValidationError as exc:
        return [f"{what}: {'.'.join(str(p) for p in exc.path)}: {exc.message}"]
    return []


@pytest.mark.parametrize(("where", "doc"), objects(), ids=[f"{w}-{d['kind']}" for w, d in objects()])
def test_every_documented_object_is_valid(where: str, doc: dict[str, Any]) -> None:
    assert validate(where, doc) == []


def test_argo_cds_crds_are_read() -> None:
    kinds = {kind for _, kind in crd_schemas()}
    assert {"Application", "ApplicationSet", "AppProject"} <= kinds


def test_a_wrong_field_is_caught() -> None:
    example = yaml.safe_load((REPO / "examples" / "applicationset.yaml").read_text(encoding="utf-8"))
    example["spec"]["template"]["spec"]["sourc"] = example["spec"]["template"]["spec"].pop("source")
    assert any("sourc" in e for e in validate("t", example))
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringdata": {}}
    assert any("stringdata" in e for e in validate("t", secret))
