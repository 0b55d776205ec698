"""The newcomer path: README's quick start, walked command by command as far as a machine without a
cluster can (helm install becomes helm template, our commands run, kubectl apply reads its file), and
everything it produces is validated and wired together: the chart's objects, the sidecar values, the
catalog values and the ApplicationSet the generator's ConfigMap serves."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, Annotation
from tests.integration.chart.chartkit import tool, validate_strictly
from tests.integration.docs.argocd_module import crd_errors, validate_sidecar
from tests.unit.docs.blocks import REPO

pytestmark = pytest.mark.upstream

KUBE_VERSION = "1.34.0"
#: steps that need what this machine lacks (a registry, a cluster, root), each proven by another test
ELSEWHERE = {
    ("python3", "-m", "pip"): "the editable install every test runs from",
    ("make", "image"): "tests/integration/image/",
    ("skopeo", "copy"): "a registry (the image archive is tests/integration/image/'s)",
}


def quickstart() -> list[list[str]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("[start:quickstart]", 1)[1].split("[end:quickstart]", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True) for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def run(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, f"{shlex.join(argv)}: {proc.stderr}"
    return proc.stdout


def test_the_quick_start_renders_a_valid_wired_install(tmp_path: Path) -> None:
    steps = [w for w in quickstart() if w]
    # docs/getting-started.md gives the count: the measure of the newcomer path
    assert len(steps) == 10, "the quick start changed length: update docs/getting-started.md"
    chart: list[dict[str, Any]] = []
    files: dict[str, Path] = {}
    applied: list[dict[str, Any]] = []
    checked = []
    for words in steps:
        redirect = words.index(">") if ">" in words else None
        argv, out = (words[:redirect], words[redirect + 1]) if redirect is not None else (words, None)
        if any(tuple(argv[: len(k)]) == k for k in ELSEWHERE):
            continue
        if argv[:2] == ["helm", "install"]:
            text = run([tool("helm"), "template", *argv[2:], "--kube-version", KUBE_VERSION], REPO)
            chart = [d for d in yaml.safe_load_all(text) if d]
        elif argv[0] == "argocd-lifecycle":
            assert out, f"{shlex.join(words)}: the quick start keeps what it prints"
            files[out] = tmp_path / out
            files[out].write_text(run([str(REPO / ".venv" / "bin" / "argocd-lifecycle"), *argv[1:]], REPO))
        elif argv[:2] == ["helm", "upgrade"]:
            given = [argv[i + 1] for i, w in enumerate(argv) if w == "-f"]
            assert set(given) == set(files), "the argo-cd release gets every file the quick start printed"
            assert argv[2:4] == ["argocd", "argo/argo-cd"]
        elif argv[:2] == ["kubectl", "apply"]:
            applied += [d for d in yaml.safe_load_all((REPO / argv[argv.index("-f") + 1]).read_text()) if d]
        elif argv[0] == "kubectl" and "get" in argv:
            selector = argv[argv.index("-l") + 1]
            assert selector == f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"
            assert Annotation.PHASE.replace(".", "\\.") in argv[-1]
        elif argv[0] == "kubectl" and "port-forward" in argv:
            service, port = argv[-2].removeprefix("svc/"), int(argv[-1])
            (svc,) = [d for d in chart if d["kind"] == "Service" and d["metadata"]["name"] == service]
            assert port in [p["port"] for p in svc["spec"]["ports"]]
        else:
            pytest.fail(f"the quick start runs {shlex.join(argv)!r}, which this walk does not know")
        checked.append(argv[:2])
    assert chart and applied and len(files) == 2, checked

    # the chart, strictly
    validate_strictly(chart, KUBE_VERSION)
    # the sidecar, as the repo-server's container, mounting the chart's plugin.yaml ConfigMap
    sidecar = yaml.safe_load(files["sidecar-values.yaml"].read_text())["repoServer"]
    (container,) = sidecar["extraContainers"]
    validate_sidecar(container, sidecar["volumes"], KUBE_VERSION[:4])
    plugin_maps = {v["configMap"]["name"] for v in sidecar["volumes"] if "configMap" in v}
    chart_maps = {d["metadata"]["name"] for d in chart if d["kind"] == "ConfigMap"}
    assert plugin_maps <= chart_maps
    # one image everywhere: the sidecar runs the image the chart's pods run
    images = {
        c["image"] for d in chart if d["kind"] == "Deployment" for c in d["spec"]["template"]["spec"]["containers"]
    }
    assert images == {container["image"]}
    # the catalog values carry every trigger the ApplicationSet subscribes to
    (catalog,) = [
        v["notifications"] for v in map(yaml.safe_load, map(Path.read_text, files.values())) if "notifications" in v
    ]
    (appset,) = applied
    assert crd_errors(appset) == []
    annotations = appset["spec"]["template"]["metadata"]["annotations"]
    subscribed = {k.split("/subscribe.", 1)[1].split(".")[0] for k in annotations if "/subscribe." in k}
    assert subscribed and {f"trigger.{t}" for t in subscribed} <= set(catalog["triggers"])
    # the values' default subscription selects the Applications the ApplicationSet makes
    for subscription in catalog.get("subscriptions", []):
        key, value = subscription["selector"].split("=")
        assert appset["spec"]["template"]["metadata"]["labels"][key] == value
    # and the ApplicationSet asks the chart's generator ConfigMap
    assert appset["spec"]["generators"][0]["plugin"]["configMapRef"]["name"] in chart_maps
