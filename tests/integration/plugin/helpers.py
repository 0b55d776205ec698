"""Running the plugin as Argo CD's sidecar does, and reading what it printed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from argocd_lifecycle.yaml import yamlio
from tests.conftest import REPO

MARKER = ".argocd-lifecycle.yaml"
#: a chart that shows what helm was given: release, namespace, values, version and API list
PROBE_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: probe\nversion: 0.1.0\n",
    "values.yaml": "greeting: hello\nsize: 1\n",
    "templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
        "  namespace: {{ .Release.Namespace }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n"
        "  size: {{ .Values.size | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        '  hasFoo: {{ .Capabilities.APIVersions.Has "example.com/v1/Foo" | quote }}\n'
    ),
}

INGRESS = """apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: shop, namespace: web}
spec:
  rules:
  - host: shop.example.test
    http:
      paths:
      - path: /
        backend: {serviceName: shop, servicePort: 80}
"""


def run_generate(app_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The plugin as the sidecar runs it: a fresh process, cwd = the app folder, Argo CD's variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "KUBE_"))}
    return subprocess.run(
        [str(REPO / ".venv" / "bin" / "argocd-lifecycle"), "plugin", "generate"],
        cwd=app_dir,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def params(**values: str) -> str:
    return json.dumps([{"name": k, "string": v} for k, v in values.items()])


def docs(stdout: str) -> list[dict[str, Any]]:
    return [d for d in yamlio.load_all(stdout) if d]


def only_doc(stdout: str) -> dict[str, object]:
    docs = list(yamlio.load_all(stdout))
    assert len(docs) == 1
    doc: dict[str, object] = docs[0]
    return doc
