"""Attacks through a kustomization: bases outside the repository, fetches from the network (the loopback
server records any), and helm charts kustomize would inflate with options smuggled into helm's argv."""

from __future__ import annotations

import json

from tests.integration.plugin.attacks.harness import Attack, Link, Script

MARKER = {"app/.argocd-lifecycle.yaml": ""}
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n"
REMOTE = "http://127.0.0.1:@PORT@/@CASE@"
HELM_ON = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "enableHelm", "string": "true"}])}
#: a vendored chart kustomize may inflate, and a program a tricked helm would run
VENDORED = {
    "app/charts/mini/Chart.yaml": "apiVersion: v2\nname: mini\nversion: 0.1.0\n",
    "app/charts/mini/values.yaml": "",
    "app/charts/mini/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mini}\n",
    "app/payload.sh": Script("#!/bin/sh\ntouch @MARKER@\ncat\n"),
}


def kustomization(text: str, **files: str) -> dict[str, object]:
    return {**MARKER, "app/kustomization.yaml": text, "app/cm.yaml": CM, **files}


CASES = [
    Attack(
        "kustomize-base-outside-the-repository",
        {
            **kustomization("resources: [cm.yaml, ../../outside-folder]\n"),
            "../outside-folder/kustomization.yaml": "resources: [cm.yaml]\n",
            "../outside-folder/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen-outside-value}\n",
        },
        refused="kustomization.yaml: resources: '../../outside-folder': refused: outside the repository root",
        secrets=("stolen-outside-value",),
    ),
    Attack(
        "kustomize-absolute-base",
        kustomization("resources: ['@OUTSIDE@']\n"),
        refused="refused: an absolute path",
    ),
    Attack(
        "kustomize-base-symlinked-out-of-the-repository",
        {**kustomization("resources: [../base]\n"), "base": Link("@OUTSIDE@")},
        refused="resources: '../base': refused: outside the repository root",
    ),
    Attack(
        "kustomize-remote-resource-over-http",
        kustomization(f"resources: [{REMOTE}/cm.yaml]\n"),
        refused="refused: a remote source (the sidecar fetches nothing unless the parameter allowRemoteBases is true)",
    ),
    Attack(
        "kustomize-remote-git-base",
        kustomization(f"resources: ['git::{REMOTE}/repo.git//base?ref=main']\n"),
        refused="refused: a remote source",
    ),
    Attack(
        "kustomize-github-shorthand-base",
        kustomization("resources: ['github.com/example/repo//deploy?ref=v1']\n"),
        refused="refused: a remote source",
    ),
    Attack(
        "kustomize-file-url-clones-a-local-repository",
        kustomization("resources: ['file://@OUTSIDE@//base']\n"),
        refused="refused: file:// clones a repository from outside the repository root",
    ),
    Attack(
        "kustomize-remote-base-hidden-in-a-base",
        {
            **kustomization("resources: [../base]\n"),
            "base/kustomization.yaml": f"resources: [{REMOTE}/deep.yaml]\n",
        },
        refused="base/kustomization.yaml: resources: 'http://127.0.0.1:",
    ),
    Attack(
        "kustomize-openapi-schema-over-http",
        kustomization(f"resources: [cm.yaml]\nopenapi:\n  path: {REMOTE}/schema.json\n"),
        refused="openapi.path: 'http://127.0.0.1:",
    ),
    Attack(
        "kustomize-patch-file-over-http",
        kustomization(f"resources: [cm.yaml]\npatches:\n- path: {REMOTE}/patch.yaml\n"),
        refused="patches[0].path: 'http://127.0.0.1:",
    ),
    Attack(
        "kustomize-remote-chart",
        kustomization(f"helmCharts:\n- name: mini\n  repo: {REMOTE}/charts\n  version: 0.1.0\n", **VENDORED),
        HELM_ON,
        refused="helmCharts[0].repo: 'http://127.0.0.1:",
    ),
    Attack(
        # kustomize writes a chart's releaseName into helm's argv as a bare word
        "kustomize-chart-release-name-runs-a-program",
        kustomization("helmCharts:\n- name: mini\n  releaseName: --post-renderer=./payload.sh\n", **VENDORED),
        HELM_ON,
        refused="helmCharts[0].releaseName: '--post-renderer=./payload.sh': refused",
    ),
    Attack(
        "kustomize-chart-name-leaves-the-chart-folder",
        kustomization("helmCharts:\n- name: ../../../outside-folder\n  releaseName: r\n", **VENDORED),
        HELM_ON,
        refused="helmCharts[0].name: '../../../outside-folder': refused",
    ),
    Attack(
        "kustomize-generator-file-injects-a-release-name",
        kustomization(
            "generators: [gen.yaml]\n",
            **VENDORED,
            **{
                "app/gen.yaml": "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: g}\n"
                "name: mini\nreleaseName: --post-renderer=./payload.sh\n"
            },
        ),
        HELM_ON,
        refused="gen.yaml.releaseName: '--post-renderer=./payload.sh': refused",
    ),
    Attack(
        "kustomize-secret-generator-literal-in-an-error",
        kustomization(
            "secretGenerator:\n- name: db\n  literals: [password=kustomize-literal-s3cret, kustomize-literal-s3cret]\n"
        ),
        refused="kustomize failed (exit 1)",
        secrets=("kustomize-literal-s3cret",),
    ),
    Attack(
        "kustomize-error-quotes-a-secret-resource",
        kustomization(
            "resources: [secret.yaml, missing-kustomize-resource-s3cret]\n",
            **{
                "app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
                "stringData: {pw: missing-kustomize-resource-s3cret}\n"
            },
        ),
        refused="kustomize failed (exit 1)",
        secrets=("missing-kustomize-resource-s3cret",),
    ),
    Attack(
        # kustomize's YAML parser quotes an alias by its name: here a Secret's own text
        "kustomize-yaml-error-quotes-a-secret-written-as-an-alias",
        kustomization(
            "resources: [secret.yaml]\n",
            **{
                "app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n"
                "  pw: *kustomize-alias-s3cret\n"
            },
        ),
        refused="kustomize failed (exit 1)",
        secrets=("kustomize-alias-s3cret",),
    ),
]
