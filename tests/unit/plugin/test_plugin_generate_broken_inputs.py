"""The corpus of broken inputs: each one exits 1, prints nothing on stdout, and says what is wrong."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.unit.plugin.helpers import RunPlugin, write

DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
MARKER = {".argocd-lifecycle.yaml": ""}


@dataclass
class Case:
    id: str
    files: dict[str, str]
    message: str
    env: dict[str, str] = field(default_factory=dict)


CASES = [
    Case(
        "yaml-syntax",
        {"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"},
        "a.yaml:4:1: YAML syntax error",
    ),
    Case("yaml-bad-indent", {"a.yaml": "apiVersion: v1\n kind: ConfigMap\n"}, "a.yaml:2:6: YAML syntax error"),
    Case("doc-is-list", {"a.yaml": "- a\n- b\n"}, "a.yaml#0: document is a list, not a Kubernetes object"),
    Case("doc-is-scalar", {"a.yaml": DEPLOY + "---\njust a string\n"}, "a.yaml#1: document is a str"),
    Case(
        "no-apiversion",
        {"a.yaml": "kind: ConfigMap\nmetadata: {name: x}\n"},
        "a.yaml#0: object lacks apiVersion",
    ),
    Case("no-kind", {"a.yaml": "apiVersion: v1\nmetadata: {name: x}\n"}, "a.yaml#0: object lacks kind"),
    Case("no-name", {"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"}, "object lacks metadata.name"),
    Case(
        "metadata-not-mapping",
        {"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: x\n"},
        "a.yaml#0: object lacks metadata.name",
    ),
    Case("kind-empty", {"a.yaml": "apiVersion: v1\nkind: ''\nmetadata: {name: x}\n"}, "object lacks kind"),
    Case(
        "list-item-not-mapping",
        {"a.yaml": "apiVersion: v1\nkind: List\nitems: [3]\n"},
        "a.yaml#0: document is a int",
    ),
    Case(
        "duplicate-across-files",
        {"a.yaml": DEPLOY, "b.yaml": DEPLOY},
        "duplicate object apps/Deployment/web: defined in a.yaml#0 and b.yaml#0",
    ),
    Case(
        "duplicate-same-file",
        {"a.yaml": DEPLOY + "---\n" + DEPLOY},
        "duplicate object apps/Deployment/web: defined in a.yaml#0 and a.yaml#1",
    ),
    Case("empty-folder", {}, "rendered no objects"),
    Case("only-empty-documents", {"a.yaml": "---\n---\n# nothing\n"}, "rendered no objects"),
    Case(
        "alias-bomb",
        {
            "a.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
                f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
                f" *{chr(97 + i)}, *{chr(97 + i)}]\n"
                for i in range(8)
            )
        },
        "a.yaml:8:4: refused: expands to more than 64 MiB (aliases written out)",
    ),
    Case("json-syntax", {"svc.json": '{"apiVersion": "v1",\n "kind": }'}, "svc.json:2:10: JSON syntax error"),
    Case("jinja-syntax", {"t.yaml.j2": "apiVersion: v1\nkind: {% if %}\n"}, "t.yaml.j2:2: Jinja2 syntax error"),
    Case(
        "jinja-undefined",
        {"t.yaml.j2": "apiVersion: v1\nkind: {{ nope }}\n"},
        "t.yaml.j2: Jinja2 error: 'nope' is undefined",
    ),
    Case(
        "jinja-sandbox",
        {"t.yaml.j2": "x: {{ ''.__class__.__mro__[1].__subclasses__() }}\n"},
        "t.yaml.j2: Jinja2",
    ),
    Case(
        "params-not-json",
        {"a.yaml": DEPLOY},
        "ARGOCD_APP_PARAMETERS: not valid JSON",
        {"ARGOCD_APP_PARAMETERS": "[{"},
    ),
    Case(
        "params-not-array",
        {"a.yaml": DEPLOY},
        "ARGOCD_APP_PARAMETERS: expected a JSON array",
        {"ARGOCD_APP_PARAMETERS": '{"name": "x"}'},
    ),
    Case(
        "params-no-value",
        {"a.yaml": DEPLOY},
        "ARGOCD_APP_PARAMETERS[0] (allowEmpty): needs one of",
        {"ARGOCD_APP_PARAMETERS": '[{"name": "allowEmpty"}]'},
    ),
    Case(
        "params-no-name",
        {"a.yaml": DEPLOY},
        "ARGOCD_APP_PARAMETERS[0]: each parameter needs a string 'name'",
        {"ARGOCD_APP_PARAMETERS": '[{"string": "x"}]'},
    ),
    Case(
        "bad-kube-version",
        {"a.yaml": DEPLOY},
        "KUBE_VERSION: 'banana' is not a Kubernetes version",
        {"KUBE_VERSION": "banana"},
    ),
    Case(
        "bad-upgrade-to",
        {"a.yaml": DEPLOY},
        "ARGOCD_ENV_CLUSTER_UPGRADE_TO: 'next' is not a Kubernetes version",
        {"ARGOCD_ENV_CLUSTER_UPGRADE_TO": "next"},
    ),
    Case(
        "bad-bool-param",
        {"a.yaml": DEPLOY},
        "parameter allowEmpty: expected true or false, got 'banana'",
        {"ARGOCD_APP_PARAMETERS": '[{"name": "allowEmpty", "string": "banana"}]'},
    ),
    Case(
        "helm-deps-not-vendored",
        {
            "Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n"
            "  - {name: redis, version: 19.0.0, repository: oci://example.invalid/charts}\n"
        },
        "chart needs dependencies that are not vendored in charts/: redis 19.0.0",
    ),
    Case(
        "helm-missing-binary",
        {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"},
        "helm not found ('/nonexistent/helm')",
        {"ARGOCD_LIFECYCLE_HELM": "/nonexistent/helm"},
    ),
    Case(
        "kustomize-missing-binary",
        {"kustomization.yaml": "resources: []\n"},
        "kustomize not found",
        {"ARGOCD_LIFECYCLE_KUSTOMIZE": "/nonexistent/kustomize"},
    ),
    Case(
        "marker-bad-yaml",
        {".argocd-lifecycle.yaml": "parameters: [\n", "a.yaml": DEPLOY},
        ".argocd-lifecycle.yaml:2:1: YAML syntax error",
    ),
    Case(
        "marker-not-mapping",
        {".argocd-lifecycle.yaml": "parameters: 3\n", "a.yaml": DEPLOY},
        ".argocd-lifecycle.yaml: expected a mapping",
    ),
    Case(
        "helm-values-file-outside",
        {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"},
        "parameter valueFiles: '../../etc/passwd' is not a file inside the application folder",
        {
            "ARGOCD_APP_PARAMETERS": '[{"name": "valueFiles", "array": ["../../etc/passwd"]}]',
            "ARGOCD_LIFECYCLE_HELM": "true",
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_broken_input_fails_cleanly(case: Case, tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", {**MARKER, **case.files})
    result = run_plugin(app, case.env)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert case.message in result.stderr
    assert "Traceback" not in result.stderr
    assert all(line.startswith(("error: ", "warning: ", "note: ")) for line in result.stderr.splitlines())


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 25


def test_file_over_10_mib_is_refused(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", MARKER)
    with (app / "big.yaml").open("w") as fh:
        fh.write("# " + "x" * (10 * 1024 * 1024) + "\n" + DEPLOY)
    result = run_plugin(app)
    assert (result.exit_code, result.stdout) == (1, "")
    assert "big.yaml: refused: file is 10.0 MiB, over the 10 MiB limit" in result.stderr


def test_symlink_leaving_the_folder_is_refused(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", {**MARKER, "a.yaml": DEPLOY})
    (tmp_path / "outside.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\n")
    os.symlink(tmp_path / "outside.yaml", app / "link.yaml")
    result = run_plugin(app)
    assert (result.exit_code, result.stdout) == (1, "")
    assert "error: link.yaml: refused: symlink points outside the application folder" in result.stderr


def test_symlink_inside_the_folder_is_followed(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", {**MARKER, "real/a.yaml": DEPLOY})
    os.symlink(app / "real", app / "alias")
    result = run_plugin(app, {"ARGOCD_APP_PARAMETERS": "null"})
    # the same file reached twice is a duplicate: the guard names both paths
    assert "defined in alias/a.yaml#0 and real/a.yaml#0" in result.stderr


def test_not_utf8_is_refused(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", MARKER)
    (app / "a.yaml").write_bytes(b"apiVersion: v1\nkind: \xff\xfe\n")
    result = run_plugin(app)
    assert (result.exit_code, result.stdout) == (1, "")
    assert "a.yaml: not UTF-8 text (byte 21)" in result.stderr


def test_every_problem_is_reported_not_only_the_first(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path / "app", {**MARKER, "a.yaml": "kind: X\nmetadata: {name: a}\n", "b.yaml": "- 1\n"})
    result = run_plugin(app)
    assert result.exit_code == 1
    assert "a.yaml#0: object lacks apiVersion" in result.stderr
    assert "b.yaml#0: document is a list" in result.stderr
