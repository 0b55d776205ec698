"""What a kustomization may reach (plugin/render/kustomize_refs.py), checked without running kustomize."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.kustomize_refs import Reach, check, is_remote
from argocd_lifecycle.yaml.yamlio import DEFAULT_LIMITS
from tests.unit.plugin.helpers import write


@pytest.mark.parametrize(
    ("ref", "remote"),
    [
        ("https://example.test/x.yaml", True),
        ("http://127.0.0.1:8080/x", True),
        ("ssh://git@example.test/org/repo", True),
        ("git::https://example.test/org/repo//base", True),
        ("GIT::base", True),
        ("git@example.test:org/repo.git", True),
        ("github.com/org/repo//base?ref=v1", True),
        ("GitHub.com:org/repo", True),
        ("oci://registry.example.test/charts", True),
        ("../base", False),
        ("overlays/prod", False),
        ("gitlab.com-mirror/base", False),
        ("user@v1", True),  # the user@host form: refused even where kustomize would fall back to a folder
        ("base-v1", False),
    ],
)
def test_remote_references_as_kustomize_reads_them(ref: str, remote: bool) -> None:
    assert is_remote(ref) is remote


def reach(repo: Path, app: str = "app", *, allow_remote: bool = False) -> Reach:
    return check(repo / app, repo, allow_remote=allow_remote, limits=DEFAULT_LIMITS)


def refusal(repo: Path, **kwargs: bool) -> str:
    with pytest.raises(RenderError) as caught:
        reach(repo, **kwargs)
    return caught.value.message


def test_bases_inside_the_repository_are_walked(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"app/kustomization.yaml": "resources: [../base, cm.yaml]\n", "base/kustomization.yaml": "resources: []\n"},
    )
    assert reach(tmp_path).resource_files == [tmp_path / "app" / "cm.yaml"]
    write(tmp_path, {"base/kustomization.yaml": "resources: [../../outside]\n"})
    assert (
        refusal(tmp_path)
        == "base/kustomization.yaml: resources: '../../outside': refused: outside the repository root (../outside)"
    )


def test_a_base_loop_is_walked_once(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"app/kustomization.yaml": "resources: [../base]\n", "base/kustomization.yaml": "resources: [../app]\n"},
    )
    assert reach(tmp_path).resource_files == []


def test_a_symlinked_base_is_judged_by_where_it_leads(tmp_path: Path) -> None:
    write(tmp_path / "repo", {"app/kustomization.yaml": "components: [../linked]\n"})
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "repo" / "linked")
    assert "components: '../linked': refused: outside the repository root" in refusal(tmp_path / "repo")


def test_remote_bases_only_with_the_parameter_and_file_urls_never(tmp_path: Path) -> None:
    write(tmp_path, {"app/kustomization.yaml": "resources: ['github.com/org/repo//base']\n"})
    assert "refused: a remote source" in refusal(tmp_path)
    assert reach(tmp_path, allow_remote=True).resource_files == []
    write(tmp_path, {"app/kustomization.yaml": "resources: ['file:///etc//x']\n"})
    assert "refused: file:// clones a repository" in refusal(tmp_path, allow_remote=True)


@pytest.mark.parametrize(
    ("kustomization", "where"),
    [
        ("openapi: {path: 'https://x.test/s.json'}\n", "openapi.path"),
        ("patches: [{path: 'https://x.test/p.yaml'}]\n", "patches[0].path"),
        ("crds: ['https://x.test/crd.yaml']\n", "crds"),
        ("configMapGenerator: [{name: c, files: ['k=https://x.test/f']}]\n", "configMapGenerator[0].files"),
        ("helmCharts: [{name: c, repo: 'https://x.test/charts'}]\n", "helmCharts[0].repo"),
        ("helmGlobals: {chartHome: /etc}\n", "helmGlobals.chartHome"),
    ],
)
def test_files_are_never_fetched_whatever_the_field(tmp_path: Path, kustomization: str, where: str) -> None:
    write(tmp_path, {"app/kustomization.yaml": kustomization})
    assert f"app/kustomization.yaml: {where}:" in refusal(tmp_path)


def test_a_chart_cannot_put_an_option_into_helm_or_leave_its_folder(tmp_path: Path) -> None:
    write(tmp_path, {"app/kustomization.yaml": "helmCharts: [{name: c, releaseName: '--post-renderer=x'}]\n"})
    assert "helmCharts[0].releaseName: '--post-renderer=x': refused: not a Helm release name" in refusal(tmp_path)
    write(tmp_path, {"app/kustomization.yaml": "helmCharts: [{name: ../c, releaseName: r}]\n"})
    assert "helmCharts[0].name: '../c': refused: a chart name is one folder name" in refusal(tmp_path)
    write(
        tmp_path,
        {
            "app/kustomization.yaml": "generators: [g.yaml]\n",
            "app/g.yaml": "kind: HelmChartInflationGenerator\nname: c\nreleaseName: -x\n",
        },
    )
    assert "g.yaml.releaseName: '-x': refused" in refusal(tmp_path)


def test_secret_generator_values_are_collected_for_masking(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "app/kustomization.yaml": "secretGenerator:\n- name: s\n  literals: [pw=literal-s3cret]\n"
            "  envs: [db.env]\n",
            "app/db.env": "USER=admin\nPASSWORD=env-file-s3cret\n",
        },
    )
    secrets = reach(tmp_path).secrets
    assert {"literal-s3cret", "env-file-s3cret"} <= secrets
