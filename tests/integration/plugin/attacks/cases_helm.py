"""Attacks on the helm argv and on ``values``: options smuggled in through names, values re-typed or split
by ``--set``, value files that reach outside the folder, and a chart that prints without end."""

from __future__ import annotations

import json
from typing import Any

from tests.integration.plugin.attacks.harness import Attack, Script

#: a chart that prints its release name and every value it got, as JSON
CHART = {
    "app/.argocd-lifecycle.yaml": "",
    "app/Chart.yaml": "apiVersion: v2\nname: probe\nversion: 0.1.0\n",
    "app/values.yaml": "keep: default\n",
    "app/templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        "data:\n  values: {{ .Values | toJson | quote }}\n"
    ),
    # what a tool tricked into running a program would run: it leaves the marker behind
    "app/payload.sh": Script("#!/bin/sh\ntouch @MARKER@\ncat\n"),
}
INJECT = "--post-renderer=./payload.sh"


def params(*items: dict[str, Any]) -> dict[str, str]:
    return {"ARGOCD_APP_PARAMETERS": json.dumps(list(items))}


def values_are(expected: dict[str, Any]) -> Any:
    def check(docs: list[dict[str, Any]]) -> None:
        assert len(docs) == 1, docs
        assert json.loads(docs[0]["data"]["values"]) == expected

    return check


CASES = [
    Attack(
        "helm-release-name-runs-a-program",
        CHART,
        params({"name": "releaseName", "string": INJECT}),
        refused="parameter releaseName: '--post-renderer=./payload.sh' is not a Helm release name",
    ),
    Attack(
        "helm-release-name-from-the-marker-file",
        {**CHART, "app/.argocd-lifecycle.yaml": f"parameters:\n  releaseName: '{INJECT}'\n"},
        refused="parameter releaseName:",
    ),
    Attack(
        "helm-release-name-reads-a-file",
        CHART,
        params({"name": "releaseName", "string": "--set-file=leak=/etc/hostname"}),
        refused="parameter releaseName:",
    ),
    Attack(
        "helm-release-name-adds-values-from-outside",
        CHART,
        params({"name": "releaseName", "string": "--values=@OUTSIDE@/values.yaml"}),
        refused="parameter releaseName:",
        secrets=("stolen-outside-value",),
    ),
    Attack(
        "helm-app-name-as-a-flag",
        CHART,
        {"ARGOCD_APP_NAME": INJECT},
        refused="ARGOCD_APP_NAME '--post-renderer=./payload.sh' is not a Helm release name",
    ),
    Attack(
        "helm-namespace-as-a-flag",
        CHART,
        {"ARGOCD_APP_NAMESPACE": INJECT},
        refused="ARGOCD_APP_NAMESPACE: '--post-renderer=./payload.sh' is not a Kubernetes namespace name",
    ),
    Attack(
        "helm-api-versions-entry-as-a-flag",
        CHART,
        {"KUBE_API_VERSIONS": f"v1,{INJECT}"},
        refused="KUBE_API_VERSIONS: '--post-renderer=./payload.sh' is not group/version",
    ),
    Attack(
        "helm-values-key-adds-a-second-set",
        CHART,
        params({"name": "values", "map": {"x=1,leak": "v"}}),
        check=values_are({"keep": "default", "x=1,leak": "v"}),
    ),
    Attack(
        "helm-values-braces-make-a-list",
        CHART,
        params({"name": "values", "map": {"p": "{a,b}"}}),
        check=values_are({"keep": "default", "p": "{a,b}"}),
    ),
    Attack(
        "helm-values-null-deletes-a-key",
        CHART,
        params({"name": "values", "map": {"keep": "null", "n": "3", "t": "true"}}),
        check=values_are({"keep": "null", "n": "3", "t": "true"}),
    ),
    Attack(
        "helm-values-from-the-marker-keep-their-types",
        {**CHART, "app/.argocd-lifecycle.yaml": "parameters:\n  values: {replicas: 3, on.off: true, none: null}\n"},
        check=values_are({"keep": "default", "replicas": 3, "on": {"off": True}, "none": None}),
    ),
    Attack(
        # --values is a CSV list for helm: an unquoted path "a,/b" would be two files, one outside
        "helm-value-file-name-with-a-comma",
        {**CHART, "app/v": "leak: in-app\n", "app/v,@OUTSIDE@/values.yaml": "leak: in-app-too\n"},
        params({"name": "valueFiles", "array": ["v,@OUTSIDE@/values.yaml"]}),
        check=values_are({"keep": "default", "leak": "in-app-too"}),
        secrets=("stolen-outside-value",),
    ),
    Attack(
        "helm-value-file-url",
        CHART,
        params({"name": "valueFiles", "array": ["http://127.0.0.1:@PORT@/@CASE@/values.yaml"]}),
        refused="parameter valueFiles: 'http://127.0.0.1:",
    ),
    Attack(
        "helm-chart-prints-without-end",
        {
            **CHART,
            "app/templates/flood.yaml": '{{ range until 40000 }}# {{ printf "%090d" . }}\n{{ end }}',
        },
        params({"name": "maxOutputBytes", "string": "1Mi"}),
        refused="helm printed more than 1 MiB; refused (parameter maxOutputBytes)",
    ),
    Attack(
        "helm-error-quotes-a-value",
        {**CHART, "app/templates/fail.yaml": '{{ fail (printf "bad password %s" .Values.db.password) }}'},
        params({"name": "values", "map": {"db.password": "hunter2-helm-s3cret"}}),
        refused="helm failed (exit 1)",
        secrets=("hunter2-helm-s3cret",),
    ),
    Attack(
        # helm's message is trimmed to its tail: a secret cut in half by the trim would escape the mask
        "helm-error-secret-cut-by-the-trim",
        {**CHART, "app/templates/fail.yaml": "{{ fail .Values.token }}"},
        params({"name": "values", "map": {"token": "tok-" + "0123456789abcdef" * 125}}),
        refused="helm failed (exit 1)",
        secrets=("tok-" + "0123456789abcdef" * 125,),
    ),
    Attack(
        "helm-error-quotes-a-secret-from-the-chart",
        {
            **CHART,
            "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
            "stringData: {pw: chart-literal-s3cret}\n",
            "app/templates/fail.yaml": '{{ fail "chart-literal-s3cret" }}',
        },
        refused="helm failed (exit 1)",
        secrets=("chart-literal-s3cret",),
    ),
    Attack(
        # a value of the chart's own values.yaml that the chart puts into a Secret, quoted by helm's error
        "helm-error-quotes-a-value-from-values-yaml",
        {
            **CHART,
            "app/values.yaml": "db:\n  password: values-yaml-s3cret\n",
            "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
            "stringData: {pw: {{ .Values.db.password | quote }}}\n",
            "app/templates/fail.yaml": '{{ fail (printf "bad password %s" .Values.db.password) }}',
        },
        refused="helm failed (exit 1)",
        secrets=("values-yaml-s3cret",),
    ),
    Attack(
        # ...and one of a vendored dependency's values.yaml and of a valueFiles file
        "helm-error-quotes-values-of-a-dependency-and-a-value-file",
        {
            **CHART,
            "app/Chart.yaml": "apiVersion: v2\nname: probe\nversion: 0.1.0\n"
            "dependencies: [{name: db, version: 0.1.0}]\n",
            "app/charts/db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            "app/charts/db/values.yaml": "password: dependency-values-s3cret\n",
            "app/prod.yaml": "token: value-file-s3cret-token\n",
            # the parent sees a dependency's defaults under its name
            "app/templates/fail.yaml": '{{ fail (printf "%s %s" .Values.db.password .Values.token) }}',
        },
        params({"name": "valueFiles", "array": ["prod.yaml"]}),
        refused="helm failed (exit 1)",
        secrets=("dependency-values-s3cret", "value-file-s3cret-token"),
    ),
    Attack(
        # helm's YAML parser quotes an alias by its name: in a Secret template, the Secret's own text
        "helm-yaml-error-quotes-a-secret-written-as-an-alias",
        {
            **CHART,
            "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: {{ .Release.Name }}}\n"
            "stringData:\n  pw: *alias-in-a-secret-s3cret\n",
        },
        refused="helm failed (exit 1)",
        secrets=("alias-in-a-secret-s3cret",),
    ),
    Attack(
        # a value helm prints where YAML reads an alias: helm quotes it without its `*`
        "helm-yaml-error-quotes-a-value-printed-as-an-alias",
        {
            **CHART,
            "app/values.yaml": "pw: '*values-alias-s3cret'\n",
            "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
            "stringData:\n  pw: {{ .Values.pw }}\n",
        },
        refused="helm failed (exit 1)",
        secrets=("values-alias-s3cret",),
    ),
    Attack(
        # helm accepts the tag; the plugin's own parser then quotes it in its error
        "helm-output-yaml-error-quotes-a-secret-tag",
        {
            **CHART,
            "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
            "stringData:\n  pw: !rendered-tag-s3cret x\n",
        },
        refused="helm template:",
        secrets=("rendered-tag-s3cret",),
    ),
]
