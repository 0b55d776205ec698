"""The attack corpus: every case runs as a fresh `plugin generate` / `plugin parameters` process under a
1.5 GiB memory limit and a 30 s time limit. Each is refused with clean ``error:`` lines (exit 1, empty
stdout, no traceback) or neutralised (the output holds exactly the scalar or typed value); no payload's
marker file ever appears, no loopback request is made, and no secret reaches either stream."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from argocd_lifecycle.plugin.render.tool import tool_env
from argocd_lifecycle.yaml import yamlio
from tests.conftest import TOOLS_BIN
from tests.integration.plugin.attacks import cases_helm, cases_inputs, cases_jinja, cases_kustomize, cases_secrets
from tests.integration.plugin.attacks.harness import Attack, Outcome, loopback_server, run

CASES: list[Attack] = [
    *cases_helm.CASES,
    *cases_kustomize.CASES,
    *cases_inputs.CASES,
    *cases_jinja.CASES,
    *cases_secrets.CASES,
]
pytestmark = pytest.mark.usefixtures("helm_and_kustomize")


@pytest.fixture(scope="module")
def outcomes() -> Iterator[dict[str, Outcome]]:
    """Every case run once, two at a time (the suite runs on two cores; one case waits for a time limit)."""
    with loopback_server() as (port, requests), tempfile.TemporaryDirectory() as tmp:

        def one(attack: Attack) -> tuple[str, Outcome]:
            folder = Path(tmp, attack.id)
            folder.mkdir()
            return attack.id, run(attack, folder, port, requests)

        with ThreadPoolExecutor(max_workers=2) as pool:
            yield dict(pool.map(one, CASES))


def test_the_corpus_is_large_and_named_uniquely() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("attack", CASES, ids=[c.id for c in CASES])
def test_attack_is_refused_or_neutralised(attack: Attack, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[attack.id]
    assert not out.marker_written, "a payload ran"
    assert out.requests == (), f"the sidecar fetched {out.requests}"
    assert "Traceback" not in out.stderr
    for secret in attack.secrets:
        for stream in (out.stderr, out.stdout):
            assert secret not in stream and secret[-24:] not in stream, f"secret shown: {stream[:300]}"
    if attack.refused is not None and (attack.check is None or out.code != 0):
        assert (out.code, out.stdout) == (1, ""), out.stderr
        lines = out.stderr.splitlines()
        assert lines and all(line.startswith(("error: ", "warning: ", "note: ")) for line in lines), out.stderr
        assert any(line.startswith("error: ") and attack.refused in line for line in lines), out.stderr
    else:
        assert out.code == 0, out.stderr
        assert attack.check is not None
        parsed = json.loads(out.stdout) if attack.command == "parameters" else list(yamlio.load_all(out.stdout))
        attack.check(parsed)


def test_the_recorder_sees_a_fetch_that_is_allowed(tmp_path: Path) -> None:
    """The control for every "no request" above: with allowRemoteBases=true the same kind of base is
    fetched, and the loopback server records it."""
    allowed = Attack(
        "remote-base-allowed",
        {
            "app/.argocd-lifecycle.yaml": "parameters:\n  allowRemoteBases: 'true'\n",
            "app/kustomization.yaml": "resources: ['http://127.0.0.1:@PORT@/@CASE@/cm.yaml']\n",
        },
    )
    with loopback_server() as (port, requests):
        out = run(allowed, tmp_path, port, requests)
    assert out.code == 0, out.stderr
    assert out.requests == ("/remote-base-allowed/cm.yaml",)
    assert [d["metadata"]["name"] for d in yamlio.load_all(out.stdout)] == ["fetched"]


@pytest.mark.parametrize("offline", [True, False])
def test_the_second_wall_git_gets_no_transport(tmp_path: Path, offline: bool) -> None:
    """Behind the kustomization check, kustomize itself runs offline: git may use no transport (a
    loopback URL would bypass a proxy, git's protocol list does not)."""
    (tmp_path / "kustomization.yaml").write_text(
        "resources: ['git::http://127.0.0.1:@PORT@/wall/repo.git//base?ref=main']\n"
    )
    with loopback_server() as (port, requests):
        text = (tmp_path / "kustomization.yaml").read_text().replace("@PORT@", str(port))
        (tmp_path / "kustomization.yaml").write_text(text)
        proc = subprocess.run(
            [str(TOOLS_BIN / "kustomize"), "build", "."],
            cwd=tmp_path,
            env=tool_env(offline=offline),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode != 0  # the recorder serves no repository either way
    assert bool([p for p in requests if p.startswith("/wall/")]) is not offline, proc.stderr
