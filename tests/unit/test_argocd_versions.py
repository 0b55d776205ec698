"""The Argo CD release table (tools/go/argocd/versions.txt) agrees with what builds it and what documents
it: tools/build.sh reads that one file, each consumer module requires its release, the toolchain can build
it, the harness variants' build tags match, and the README's compatibility matrix names every release."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.argocd_versions import (
    E2E_ENV,
    NEWEST,
    OLDEST,
    RELEASES,
    TABLE,
    ArgocdRelease,
    UnknownRelease,
    minor_key,
    parse,
    select,
)

REPO = Path(__file__).resolve().parents[2]
HARNESSES = REPO / "tools" / "go" / "argocd" / "cmd"
#: the first release whose packages need the argocd3_4 variant of the harnesses
TAGGED_FROM = "v3.4"


def go_version(text: str) -> tuple[int, ...]:
    found = re.search(r"^go (\d+)\.(\d+)(?:\.(\d+))?$", text, re.M)
    assert found, "no go line"
    return tuple(int(x or 0) for x in found.groups())


def test_tools_build_reads_the_table() -> None:
    build = (REPO / "tools" / "build.sh").read_text(encoding="utf-8")
    assert 'ARGOCD_VERSIONS="$here/go/argocd/versions.txt"' in build
    assert "ARGOCD_VERSION=" not in build  # no second list of releases


def test_releases_are_ordered_and_distinct() -> None:
    minors = [r.minor for r in RELEASES]
    assert len(RELEASES) >= 2
    assert minors == sorted(minors, key=minor_key)
    assert len(set(minors)) == len(minors)
    assert (RELEASES[0], RELEASES[-1]) == (OLDEST, NEWEST)


@pytest.mark.parametrize("release", RELEASES, ids=[r.minor for r in RELEASES])
def test_each_module_requires_its_release(release: ArgocdRelease) -> None:
    text = release.go_mod.read_text(encoding="utf-8")
    requires = re.findall(r"^\s*(?:require\s+)?github\.com/argoproj/argo-cd/v3 (v\S+)", text, re.M)
    assert requires == [release.release], f"{release.go_mod} requires {requires}, the table says {release.release}"
    assert (release.go_mod.parent / "go.sum").is_file()
    assert not re.search(r"=>\s*\./", text), "a local-directory replace: the module would not build from the proxy"


@pytest.mark.upstream
@pytest.mark.parametrize("release", RELEASES, ids=[r.minor for r in RELEASES])
def test_the_toolchain_can_build_the_module(release: ArgocdRelease) -> None:
    needed = go_version(release.go_mod.read_text(encoding="utf-8"))
    if release.toolchain == "local":
        env = {**os.environ, "GOTOOLCHAIN": "local"}
        local = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True, env=env)
        have = tuple(int(x) for x in re.findall(r"\d+", local.stdout)[:3])
    else:
        assert re.fullmatch(r"go\d+\.\d+\.\d+", release.toolchain), release.toolchain
        have = tuple(int(x) for x in release.toolchain[2:].split("."))
    assert have >= needed, f"{release.minor}: go {needed} needed, {release.toolchain} is {have}"


def test_harness_tags_follow_the_api_change() -> None:
    for release in RELEASES:
        assert ("argocd3_4" in release.tags) == release.at_least(TAGGED_FROM), release
    constraints = {
        p.name: line
        for p in HARNESSES.rglob("*.go")
        for line in p.read_text(encoding="utf-8").splitlines()[:1]
        if line.startswith("//go:build")
    }
    assert constraints == {"clusters.go": "//go:build !argocd3_4", "clusters_3_4.go": "//go:build argocd3_4"}


def test_select_names_a_minor_or_a_release() -> None:
    assert select(None) is NEWEST and select("") is NEWEST
    assert select(OLDEST.minor) is OLDEST and select(OLDEST.release) is OLDEST
    with pytest.raises(UnknownRelease, match=rf"{E2E_ENV}='v2\.9'.*{OLDEST.minor}"):
        select("v2.9")
    with pytest.raises(UnknownRelease):
        select("--help")


def test_a_malformed_line_names_the_table_and_the_line() -> None:
    with pytest.raises(ValueError, match=rf"{re.escape(str(TABLE))}:2: release 'v3.3.1' is not of minor 'v3.2'"):
        parse("# comment\nv3.2 v3.3.1 argocd local -\n")
    with pytest.raises(ValueError, match=":1: expected minor"):
        parse("v3.2 v3.2.1 argocd\n")


def test_the_readme_matrix_names_every_release() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Compatibility", 1)[1].split("\n## ", 1)[0]
    for release in RELEASES:
        assert f"| {release.minor} ({release.release})" in section, release
