"""Pass-through: an object the plugin does not change is printed exactly as helm or kustomize emitted it
(document separators normalised); only changed objects are written anew, in YAML that Kubernetes'
decoder (the yamlcheck harness) reads as exactly the changed object."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from argocd_lifecycle.yaml import yamlio
from tests.conftest import REPO, require_tool
from tests.integration.plugin.helpers import INGRESS, MARKER, docs, run_generate
from tests.integration.plugin.kube_decoder import kubernetes_reads
from tests.unit.plugin.helpers import write

pytestmark = pytest.mark.usefixtures("helm_and_kustomize")

ENV = {"ARGOCD_APP_NAME": "demo", "ARGOCD_APP_NAMESPACE": "shop", "ARGOCD_APP_PARAMETERS": "null"}
_SEPARATOR = re.compile(r"^---[ \t]*\n", re.M)

#: a chart like the ones whose values changed type when re-serialised: a short git SHA, an id that
#: looks like a number, y/n flags, a time of day, and an old Ingress that must be rewritten
CHART = {
    MARKER: "",
    "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "values.yaml": 'rev: "3141e59"\n',  # helm itself reads an unquoted 3141e59 as a float
    "templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        '  labels: {rev: "{{ .Values.rev }}", flag: "y"}\n'
        'data:\n  id: "1e3"\n  mode: "0o14"\n  answer: "n"\n  start: 12:30\n'
    ),
    "templates/ingress.yaml": INGRESS.replace(
        "metadata: {name: shop, namespace: web}",
        'metadata:\n  name: shop\n  namespace: web\n  labels: {rev: "{{ .Values.rev }}", flag: "y", id: "1e3"}',
    ),
}


def documents(stream: str) -> list[str]:
    """The documents of a stream as text, empty ones left out."""
    parts = [p if p.endswith("\n") else p + "\n" for p in _SEPARATOR.split(stream)]
    return [p for p in parts if p.strip() and not all(line.startswith("#") for line in p.strip().splitlines())]


def tool(argv: list[str], cwd: Path) -> str:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True, timeout=120).stdout


def test_helm_documents_come_out_as_helm_wrote_them() -> None:
    app = REPO / "examples" / "helm"
    apis = "apps/v1,apps/v1/Deployment,policy/v1,policy/v1/PodDisruptionBudget,v1,v1/Service"
    result = run_generate(app, {**ENV, "KUBE_VERSION": "1.29.3", "KUBE_API_VERSIONS": apis})
    assert result.returncode == 0, result.stderr
    helm = tool(
        [
            *(str(require_tool("helm")), "template", "demo", ".", "--include-crds", "--namespace", "shop"),
            *("--kube-version", "1.29.3", *(f"--api-versions={a}" for a in apis.split(","))),
        ],
        app,
    )
    assert documents(result.stdout) == documents(helm)
    assert "# Source: " in result.stdout  # comments too: the text is copied, not rebuilt


def test_kustomize_documents_come_out_as_kustomize_wrote_them() -> None:
    app = REPO / "examples" / "kustomize"
    result = run_generate(app, {**ENV, "KUBE_VERSION": "1.29.3"})
    assert result.returncode == 0, result.stderr
    assert documents(result.stdout) == documents(tool([str(require_tool("kustomize")), "build", "."], app))


@pytest.mark.parametrize("example", ["kustomize", "plain"])
def test_nothing_to_rewrite_renders_the_same_for_every_version(example: str) -> None:
    app = REPO / "examples" / example
    outputs = {run_generate(app, {**ENV, "KUBE_VERSION": v}).stdout for v in ("1.29", "1.30", "1.34.2")}
    assert len(outputs) == 1 and outputs != {""}


def test_only_the_rewritten_object_is_written_anew_and_it_keeps_its_meaning(tmp_path: Path) -> None:
    app = write(tmp_path, CHART)
    result = run_generate(app, {**ENV, "KUBE_VERSION": "1.25"})
    assert result.returncode == 0, result.stderr
    helm = tool([str(require_tool("helm")), "template", "demo", ".", "--namespace", "shop", "--include-crds"], app)
    ours, theirs = documents(result.stdout), documents(helm)
    assert ours[0] == theirs[0]  # the ConfigMap: untouched, byte for byte
    assert ours[1] != theirs[1] and "argocd-lifecycle.io/rewritten-from: extensions/v1beta1" in ours[1]
    # what Kubernetes reads from our output is what we meant, string for string
    read = kubernetes_reads(result.stdout)
    assert read.error is None
    configmap, ingress = read.json
    assert configmap["metadata"]["labels"] == {"rev": "3141e59", "flag": "y"}
    assert configmap["data"] == {"id": "1e3", "mode": "0o14", "answer": "n", "start": "12:30"}
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    assert ingress["metadata"]["labels"] == {"rev": "3141e59", "flag": "y", "id": "1e3"}
    assert ingress == docs(result.stdout)[1]


def test_an_unquoted_time_of_day_stays_a_string_through_a_rewrite(tmp_path: Path) -> None:
    """PyYAML's YAML 1.1 reads `12:30` as 750; Kubernetes reads the string, and so must a rewrite."""
    ingress = INGRESS.replace(
        "metadata: {name: shop, namespace: web}", "metadata:\n  name: shop\n  labels: {at: 12:30}"
    )
    app = write(tmp_path, {MARKER: "", "ingress.yaml": ingress})
    result = run_generate(app, {**ENV, "KUBE_VERSION": "1.25"})
    assert result.returncode == 0, result.stderr
    assert kubernetes_reads(result.stdout).json[0]["metadata"]["labels"] == {"at": "12:30"}
    assert yamlio.load(result.stdout.removeprefix("---\n"))["metadata"]["labels"] == {"at": "12:30"}
