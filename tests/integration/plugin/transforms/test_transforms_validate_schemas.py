"""Schema validation inside `plugin generate` (plugin/transforms/validate_schemas.py), as Argo CD runs it."""

from __future__ import annotations

from pathlib import Path

from tests.integration.plugin.helpers import INGRESS, MARKER, run_generate
from tests.unit.plugin.helpers import write


def test_validation_names_object_and_field(tmp_path: Path) -> None:
    broken = INGRESS.replace("rules:", "tls: oops\n  rules:")
    widget = "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: w}\n"
    app = write(tmp_path, {MARKER: "parameters: {validate: true}\n", "ingress.yaml": broken, "widget.yaml": widget})
    result = run_generate(app, {"KUBE_VERSION": "1.30"})
    assert result.returncode == 1 and result.stdout == ""
    assert (
        "error: Ingress/web/shop (ingress.yaml#0): spec.tls: 'oops' is not of type 'array', 'null'"
        " (Kubernetes 1.30 strict schema)" in result.stderr
    )
    ok = write(tmp_path, {"ingress.yaml": INGRESS})
    result = run_generate(ok, {"KUBE_VERSION": "1.30"})
    assert result.returncode == 0, result.stderr
    assert (
        "note: 1 object(s) have no bundled schema (custom resources?) and were not validated: Widget/w" in result.stderr
    )
