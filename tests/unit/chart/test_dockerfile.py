"""Dockerfile invariants, parsed from the file (there is no Docker engine on this machine)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from dockerfile_parse import DockerfileParser

REPO = Path(__file__).resolve().parents[3]
PARSER = DockerfileParser(path=str(REPO / "Dockerfile"))
SOURCE_FOLDERS = ("core", "plugin", "generators", "notifications")


def stages() -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for item in PARSER.structure:
        if item["instruction"] == "FROM":
            out.append([])
        if out and item["instruction"] != "COMMENT":
            out[-1].append(item)
    return out


def instructions(stage: list[dict[str, Any]], name: str) -> list[str]:
    return [i["value"] for i in stage if i["instruction"] == name]


def build_script() -> str:
    return (REPO / "tools" / "build.sh").read_text()


def arg_defaults() -> dict[str, str]:
    out = {}
    for item in PARSER.structure:
        if item["instruction"] == "ARG" and "=" in item["value"]:
            key, value = item["value"].split("=", 1)
            out[key] = value
    return out


def test_multi_stage_on_a_pinned_slim_python() -> None:
    assert len(stages()) == 3
    for image in PARSER.parent_images:
        assert re.fullmatch(r"python:3\.\d+\.\d+-slim-[a-z]+", image), image


def test_final_stage_runs_as_999_with_one_entrypoint() -> None:
    final = stages()[-1]
    assert instructions(final, "USER") == ["999:999"]
    (entrypoint,) = instructions(final, "ENTRYPOINT")
    assert json.loads(entrypoint) == ["argocd-lifecycle"]
    assert [i["instruction"] for i in PARSER.structure if i["instruction"] == "ENTRYPOINT"] == ["ENTRYPOINT"]
    # the user is the one Argo CD's images use (the socket folder is shared with the repo-server)
    assert any("--uid 999" in r and "--gid 999" in r for r in instructions(final, "RUN"))


def test_final_stage_installs_the_wheel_only() -> None:
    final = stages()[-1]
    runs = " ".join(instructions(final, "RUN"))
    assert "pip install" in runs and "--no-index" in runs and "from=wheels" in runs
    assert not re.search(r"\b(gcc|g\+\+|build-essential|make|apt-get)\b", runs)
    for copy in instructions(final, "COPY") + instructions(final, "ADD"):
        assert copy.startswith("--from=tools"), copy  # no source tree, only the checked binaries
        assert not any(re.search(rf"(^|\s)\.?/?{folder}\b", copy) for folder in SOURCE_FOLDERS), copy


def test_writable_paths_only_under_tmp() -> None:
    final = stages()[-1]
    assert instructions(final, "WORKDIR") == ["/tmp"]
    env = " ".join(instructions(final, "ENV"))
    homes = re.findall(r"\b(HOME|XDG_\w+|HELM_\w+_HOME)=(\S+)", env)
    assert {name for name, _ in homes} >= {"HOME", "HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"}
    assert all(path.startswith("/tmp") for _, path in homes), homes
    assert "PYTHONDONTWRITEBYTECODE=1" in env


@pytest.mark.parametrize("tool", ["HELM", "KUSTOMIZE", "KUBECTL"])
def test_tools_are_pinned_and_checked(tool: str) -> None:
    args = arg_defaults()
    assert re.fullmatch(r"v\d+\.\d+\.\d+", args[f"{tool}_VERSION"])
    for arch in ("AMD64", "ARM64"):
        assert re.fullmatch(r"[0-9a-f]{64}", args[f"{tool}_SHA256_{arch}"])
    tools_stage = " ".join(instructions(stages()[1], "RUN"))
    assert f"${{{tool}_VERSION}}" in tools_stage
    assert f"${{{tool}_SHA256_AMD64}}" in tools_stage and f"${{{tool}_SHA256_ARM64}}" in tools_stage


def test_every_download_is_verified_before_use() -> None:
    script = " ".join(instructions(stages()[1], "RUN"))
    downloads = re.findall(r"curl [^&]*?-o (\S+)", script)
    checks = re.findall(r'echo "\$\{\w+\}  (\S+)" \| sha256sum --check --strict', script)
    assert downloads and downloads == checks
    for target in downloads:
        # each file is checked before the first command that unpacks or installs it
        first_check = script.index(f'  {target}" | sha256sum')
        first_use = min(script.index(m) for m in (f"-xzf {target}", f"install -m 0755 {target}") if m in script)
        assert first_check < first_use, target


def test_same_helm_and_kustomize_as_the_tests_use() -> None:
    args = arg_defaults()
    for tool in ("HELM", "KUSTOMIZE"):
        assert f"{tool}_VERSION={args[f'{tool}_VERSION']}" in build_script()


def test_no_latest_anywhere() -> None:
    for item in PARSER.structure:
        if item["instruction"] != "COMMENT":
            assert not re.search(r"(?i)\blatest\b", item["value"]), item["content"]
    for image in PARSER.parent_images:
        assert ":" in image and not image.endswith(":latest")


def test_version_label_follows_the_version_arg() -> None:
    final = stages()[-1]
    assert any('org.opencontainers.image.version="${VERSION}"' in label for label in instructions(final, "LABEL"))
    assert any("argocd-lifecycle==${VERSION}" in run for run in instructions(final, "RUN"))


def test_dockerignore_sends_only_what_builds_the_wheel() -> None:
    lines = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    assert allowed == {"pyproject.toml", "README.md", *SOURCE_FOLDERS}
    copied = set()
    for copy in instructions(stages()[0], "COPY"):
        copied |= set(copy.split()[:-1])
    assert copied == allowed
