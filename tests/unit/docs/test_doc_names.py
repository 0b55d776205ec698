"""Names the docs give are names the code has: every `a.b.c` that starts like one of the chart's values is
a value of values.yaml, unless it is one of the few fields of Argo CD's own objects or of argo-helm's
`argo-cd` chart that share a first word with ours, and an argo-helm value only in a paragraph that says
it is argo-helm's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.unit.docs import names
from tests.unit.docs.blocks import REPO, doc_files

VALUES = yaml.safe_load((REPO / "charts" / "argocd-lifecycle" / "values.yaml").read_text(encoding="utf-8"))
#: fields of Argo CD's objects that begin with a word our values begin with too
ARGOCD_FIELDS = {
    "plugin.name": "Application spec.source.plugin",
    "plugin.env": "Application spec.source.plugin",
    "plugin.configMapRef": "ApplicationSet plugin generator",
    "generator.input.parameters": "ApplicationSet plugin generator",
}
#: values of argo-helm's argo-cd chart named in our docs
ARGO_HELM = {
    "notifications.triggers",
    "notifications.templates",
    "notifications.argocdUrl",
    "notifications.notifiers",
    "notifications.subscriptions",
}
ARGO_HELM_CONTEXT = re.compile(r"argo-helm|`argo-cd` chart")
TOKEN = re.compile(r"`([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)+)(?:[:=][^`]*)?`")
FILE_NAME = re.compile(r"\.(ya?ml|json|md|py|txt|tpl|db)$")


def value_paths(node: Any, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            out |= {f"{prefix}{key}"} | value_paths(value, f"{prefix}{key}.")
    return out


PATHS = value_paths(VALUES)


def wrong_values(path: Path, root: Path = REPO) -> list[str]:
    problems = []
    for paragraph in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        for match in TOKEN.finditer(paragraph):
            token = match.group(1)
            if token.split(".")[0] not in VALUES or token in PATHS or FILE_NAME.search(token):
                continue
            if token in ARGOCD_FIELDS or (token in ARGO_HELM and ARGO_HELM_CONTEXT.search(paragraph)):
                continue
            problems.append(f"{path.relative_to(root)}: `{token}` is not a value of charts/argocd-lifecycle")
    return problems


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_chart_values_the_docs_name_exist(path: Path) -> None:
    assert wrong_values(path) == []


def test_a_value_the_chart_lacks_is_caught(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("The chart sets it from `notifications.argocdUrl`.\n\nargo-helm: `notifications.argocdUrl`.\n")
    (problem,) = wrong_values(doc, tmp_path)
    assert problem == "doc.md: `notifications.argocdUrl` is not a value of charts/argocd-lifecycle"


#: flags of other programs the docs name in prose, with the program
FOREIGN_FLAGS = {
    "--api-versions": "helm template",
    "--enable-progressive-syncs": "argocd-applicationset-controller",
    "--include-crds": "helm template",
    "--set": "helm",
    "--values": "helm",
    "--post-renderer": "helm",
    "--enable-helm": "kustomize build",
    "--enable-alpha-plugins": "kustomize build",
    "--enable-exec": "kustomize build",
    "--enable-dns": "kustomize build",
    "--etcd-prefix": "kube-apiserver",
    "--runtime-config": "kube-apiserver",
    "--token-auth-file": "kube-apiserver",
    "--generate-hashes": "pip-compile",
    "--require-hashes": "pip install",
    "--net": "tools/image/run.sh",
    "--smoke": "benchmarks/*.py",
    "--before": "benchmarks/*.py",
    "--events": "benchmarks/*.py",
    "--now": "benchmarks/*.py",
    "--runs": "benchmarks/*.py",
    "--flag": "the shape of one helm argument (`--flag=value`)",
    "--application-namespaces": "argocd-application-controller",
    "--applicationset-namespaces": "argocd-applicationset-controller",
    "--enable-scm-providers": "argocd-applicationset-controller",
    "--self-service-notification-enabled": "argocd-notifications-controller",
    "--skip-schema-validation": "helm",
}
#: Argo CD's own notification triggers, which are not the catalog's
ARGOCD_TRIGGERS = {"on-created", "on-deleted", "on-deployed", "on-health-degraded", "on-sync-failed",
                   "on-sync-running", "on-sync-status-unknown", "on-sync-succeeded"}  # fmt: skip
FLAG = re.compile(r"`(--[a-z][a-z0-9-]*)")
ANNOTATION = re.compile(r"argocd-lifecycle\.io/([a-z0-9-]+)")
TRIGGER = re.compile(r"(?<![-\w.])on-[a-z]+(?:-[a-z]+)*")
MAKE = re.compile(r"`make (?:-s )?([a-z][a-z0-9-]*)")


def wrong_names(text: str) -> list[str]:
    problems = [
        f"`{f}` is an option of no argocd-lifecycle command (a flag of another program: add it to FOREIGN_FLAGS)"
        for f in FLAG.findall(text)
        if f not in names.all_options() and f not in FOREIGN_FLAGS
    ]
    problems += [
        f"argocd-lifecycle.io/{k} is a key the code neither writes nor reads"
        for k in ANNOTATION.findall(text)
        if k not in names.annotation_keys()
    ]
    problems += [
        f"{t} is not a trigger of the catalog"
        for t in TRIGGER.findall(text)
        if t not in names.triggers() and t not in ARGOCD_TRIGGERS
    ]
    problems += [
        f"make {t}: the Makefile has no such target" for t in MAKE.findall(text) if t not in names.make_targets()
    ]
    return sorted(set(problems))


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_flags_annotations_triggers_and_targets_the_docs_name_exist(path: Path) -> None:
    assert wrong_names(path.read_text(encoding="utf-8")) == [], path.relative_to(REPO)


def test_the_example_names_only_what_exists() -> None:
    assert wrong_names((REPO / "examples" / "applicationset.yaml").read_text(encoding="utf-8")) == []


def test_wrong_names_are_caught() -> None:
    text = "`--token-fil`, argocd-lifecycle.io/phases, `on-cluster-gone`, `make docs-site`"
    assert len(wrong_names(text)) == 4
