"""CRDs converted to apiextensions.k8s.io/v1 are accepted by a real kube-apiserver (the e2e tier's pinned
v1.34 build with etcd, nothing else running). The fixture is six v1beta1 CRDs in the style of
cert-manager v0.10 (group certmanager.k8s.io, which v1 protects): `convert` and the plugin (with
validate=true) must both produce CRDs the API server creates and establishes, and validation must refuse
what the API server refuses."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from argocd_lifecycle.yaml import yamlio
from tests.conftest import REPO
from tests.harness.kubeapi import Cluster, start_single
from tests.harness.procs import HarnessError, Supervisor
from tests.integration.plugin.helpers import MARKER, run_generate

pytestmark = pytest.mark.upstream

FIXTURE = REPO / "tests" / "fixtures" / "crds" / "certmanager-v0.10-style.yaml"
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("crd-apiserver")
    sup = Supervisor(folder / "logs")
    try:
        cluster = start_single(sup, folder, "crds")
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd did not start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        sup.stop_all()


def create(http: httpx.Client, crd: dict[str, Any], *, dry_run: bool = False) -> httpx.Response:
    return http.post(CRDS, params={"dryRun": "All"} if dry_run else None, content=json.dumps(crd))


def accepted(http: httpx.Client, crd: dict[str, Any]) -> httpx.Response:
    """A server-side dry run: a create, or a replace of the CRD an earlier test created."""
    name = crd["metadata"]["name"]
    current = http.get(f"{CRDS}/{name}")
    if current.status_code == 404:
        return create(http, crd, dry_run=True)
    replaced = {
        **crd,
        "metadata": {**crd["metadata"], "resourceVersion": current.json()["metadata"]["resourceVersion"]},
    }
    return http.put(f"{CRDS}/{name}", params={"dryRun": "All"}, content=json.dumps(replaced))


def established(http: httpx.Client, name: str) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        conditions = http.get(f"{CRDS}/{name}").json().get("status", {}).get("conditions", [])
        if any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
            return True
        time.sleep(0.2)
    return False


def test_the_old_crds_are_refused_as_they_are(api: Cluster) -> None:
    """The starting point: v1beta1 is not served any more, and a v1 CRD without approval is refused."""
    old = list(yamlio.load_all(FIXTURE.read_text()))
    with api.http() as http:
        assert http.post("/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions", json=old[0]).status_code == 404


def test_converted_crds_are_created_and_established(api: Cluster) -> None:
    proc = subprocess.run(
        [CLI, "convert", str(FIXTURE), "-t", "1.34", "--validate"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    crds = [d for d in yamlio.load_all(proc.stdout) if d]
    assert len(crds) == 6 and "certmanager.k8s.io is a protected group" in proc.stderr
    with api.http() as http:
        for crd in crds:
            resp = create(http, crd)
            assert resp.status_code == 201, resp.text
        assert all(established(http, crd["metadata"]["name"]) for crd in crds)
        # the schema behaves as v1beta1's did: unknown fields are kept, known ones still checked
        issuer = {
            "apiVersion": "certmanager.k8s.io/v1alpha1",
            "kind": "Issuer",
            "metadata": {"name": "self", "namespace": "default"},
            "spec": {"selfSigned": {}, "extra": {"kept": True}},
        }
        made = http.post("/apis/certmanager.k8s.io/v1alpha1/namespaces/default/issuers", json=issuer)
        assert made.status_code == 201, made.text
        assert made.json()["spec"]["extra"] == {"kept": True}
        bad = {**issuer, "metadata": {"name": "bad", "namespace": "default"}, "spec": {"ca": {}}}
        assert http.post("/apis/certmanager.k8s.io/v1alpha1/namespaces/default/issuers", json=bad).status_code == 422


def test_without_the_approval_the_api_server_refuses_and_validate_says_so_first(api: Cluster, tmp_path: Path) -> None:
    proc = subprocess.run([CLI, "convert", str(FIXTURE), "-t", "1.34"], capture_output=True, text=True, check=True)
    crd = next(d for d in yamlio.load_all(proc.stdout) if d)
    del crd["metadata"]["annotations"]["api-approved.kubernetes.io"]
    with api.http() as http:
        refused = create(http, crd, dry_run=True)
    assert refused.status_code == 422 and "api-approved.kubernetes.io" in refused.text
    (tmp_path / "crd.yaml").write_text(yamlio.dump(crd))
    checked = subprocess.run(
        [CLI, "convert", str(tmp_path / "crd.yaml"), "-t", "1.34", "--validate"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 1
    assert "metadata.annotations[api-approved.kubernetes.io]: Required value" in checked.stderr


def test_the_plugin_renders_crds_the_api_server_accepts(api: Cluster, tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / MARKER).write_text("parameters: {validate: 'true'}\n")
    shutil.copy(FIXTURE, app / "crds.yaml")
    result = run_generate(app, {"ARGOCD_APP_NAME": "certs", "KUBE_VERSION": "1.34.2"})
    assert result.returncode == 0, result.stderr
    crds = [d for d in yamlio.load_all(result.stdout) if d]
    assert len(crds) == 6
    with api.http() as http:
        for crd in crds:
            resp = accepted(http, crd)
            assert resp.status_code in (200, 201), resp.text
