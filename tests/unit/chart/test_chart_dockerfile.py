"""The Dockerfile and the daemonless build (tools/image/) describe one image; the locks match pyproject.toml.

Parsed from the files (there is no Docker engine on this machine): the Dockerfile's pins must equal
tools/image/versions.env, its environment tools/image/image.env, its tool builds tools/build.sh's.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
from dockerfile_parse import DockerfileParser
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[3]
IMAGE_TOOLS = REPO / "tools" / "image"
PARSER = DockerfileParser(path=str(REPO / "Dockerfile"))
#: the wheel's source folders, as pyproject.toml maps its packages
SOURCE_FOLDERS = tuple(
    sorted(set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values()))
)
LOCK = REPO / "requirements" / "image.txt"
BUILD_LOCK = REPO / "requirements" / "build.txt"


def env_file(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, value = line.split("=", 1)
            out[key] = value
    return out


PINS = env_file(IMAGE_TOOLS / "versions.env")


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


def arg_defaults() -> dict[str, str]:
    out = {}
    for item in PARSER.structure:
        if item["instruction"] == "ARG" and "=" in item["value"]:
            key, value = item["value"].split("=", 1)
            out[key] = value
    return out


def locked(path: Path) -> dict[str, tuple[str, list[str], list[str]]]:
    """name -> (version, hashes, via) of a pip-compile output."""
    out: dict[str, tuple[str, list[str], list[str]]] = {}
    current = ""
    for line in path.read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line):
            current = canonicalize_name(match[1])
            out[current] = (match[2], [], [])
        elif current and (digest := re.search(r"--hash=sha256:([0-9a-f]{64})", line)):
            out[current][1].append(digest[1])
        elif current and (via := re.match(r"^\s+#\s+(?:via\s+)?(\S.*)$", line)) and via[1] != "via":
            out[current][2].append(via[1].strip())
    return out


def pyproject_dependencies() -> list[Requirement]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    return [Requirement(spec) for spec in data["project"]["dependencies"]]


# --- one image: the Dockerfile pins what the daemonless build pins ---


def test_three_stages_from_pinned_digests() -> None:
    assert [s[0]["value"].split()[0] for s in stages()] == ["${GO_IMAGE}", "${DEBIAN_IMAGE}", "${DEBIAN_IMAGE}"]
    args = arg_defaults()
    for name in ("DEBIAN_IMAGE", "GO_IMAGE"):
        assert args[name] == PINS[name]
        assert re.fullmatch(r"[a-z]+:[\w.-]+@sha256:[0-9a-f]{64}", args[name]), args[name]
    assert args["DEBIAN_IMAGE"].startswith(f"debian:{PINS['DEBIAN_SUITE']}-")  # the same Debian release
    assert args["GO_IMAGE"].startswith(f"golang:{PINS['GO_VERSION']}-")


@pytest.mark.parametrize(
    "name",
    [
        "GO_VERSION",
        "HELM_VERSION",
        "HELM_SHA256",
        "KUSTOMIZE_VERSION",
        "KUSTOMIZE_SHA256",
        "ARGOCD_K8S_AUTH_VERSION",
        "ARGOCD_K8S_AUTH_SHA256",
    ],
)
def test_tool_pins_agree(name: str) -> None:
    assert arg_defaults()[name] == PINS[name]
    tools_stage = " ".join(instructions(stages()[0], "RUN"))
    assert f"${{{name}}}" in tools_stage


def test_tools_are_checked_after_the_build() -> None:
    run = " ".join(instructions(stages()[0], "RUN"))
    for tool in ("HELM", "KUSTOMIZE", "ARGOCD_K8S_AUTH"):
        check = f'echo "${{{tool}_SHA256}}  /out/{tool.lower().replace("_", "-")}" | sha256sum --check --strict'
        assert check in run
        assert run.index("go install" if tool != "ARGOCD_K8S_AUTH" else "go build") < run.index(check)


def test_helm_is_built_with_the_flags_of_tools_build_sh() -> None:
    """The same ldflags give the same bytes: the Dockerfile's helm must have the pinned sha256 too."""
    build = (REPO / "tools" / "build.sh").read_text()
    minor = re.search(r"^HELM_K8S_MINOR=(\d+)$", build, re.M)
    assert minor
    flags = re.findall(r"-X (helm\.sh/\S+?)=([^\s\"]+)", build[build.index("build_helm()") :].split("\n}")[0])
    expected = {
        key: value.replace("$HELM_K8S_MINOR", minor[1]).replace("$HELM_VERSION", "${HELM_VERSION}")
        for key, value in flags
    }
    run = " ".join(instructions(stages()[0], "RUN"))
    assert dict(re.findall(r"-X (helm\.sh/\S+?)=([^\s\"]+)", run)) == expected
    assert run.count("-trimpath") == 3 and run.count('-ldflags "-s -w') == 3
    assert "CGO_ENABLED=0" in " ".join(instructions(stages()[0], "ENV"))


def test_argocd_k8s_auth_is_built_as_tools_build_sh_builds_it() -> None:
    """build_in_module's flags, to the byte (Go records -ldflags in the binary), in our consumer module of the
    oldest Argo CD release, whose go.mod requires the pinned version."""
    build = (REPO / "tools" / "build.sh").read_text()
    body = build[build.index("build_in_module() {") :].split("\n}")[0]
    assert "args=(-v -trimpath -pgo=off)" in body and '-ldflags "-s -w $ldflags"' in body
    assert 'build_in_module argocd-k8s-auth "$release" argocd ./cmd/argocd-k8s-auth\n' in build  # no ldflags
    run = " ".join(instructions(stages()[0], "RUN"))
    assert 'go build -trimpath -pgo=off -ldflags "-s -w " -o /out/argocd-k8s-auth ./cmd/argocd-k8s-auth' in run
    rows = [
        line.split()
        for line in (REPO / "tools" / "go" / "argocd" / "versions.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    oldest = next(row for row in rows if row[2] == "argocd")
    assert oldest[1] == PINS["ARGOCD_K8S_AUTH_VERSION"] and oldest[3] == "local"
    go_mod = (REPO / "tools" / "go" / "argocd" / "go.mod").read_text()
    assert re.search(rf"^\s+github\.com/argoproj/argo-cd/v3 {re.escape(oldest[1])}$", go_mod, re.M)
    copies = " ".join(instructions(stages()[0], "COPY"))
    assert "tools/go/argocd/go.mod tools/go/argocd/go.sum" in copies and "tools/go/argocd/cmd/argocd-k8s-auth" in copies
    final = " ".join(instructions(stages()[-1], "COPY"))
    assert "/out/argocd-k8s-auth /usr/local/libexec/argocd-lifecycle/" in final


def test_same_helm_and_kustomize_versions_as_the_tests_use() -> None:
    build = (REPO / "tools" / "build.sh").read_text()
    for tool in ("HELM", "KUSTOMIZE"):
        assert f"{tool}_VERSION={PINS[f'{tool}_VERSION']}" in build


def test_debian_packages_come_from_the_lock() -> None:
    for stage in stages()[1:]:
        run = " ".join(instructions(stage, "RUN"))
        assert "source=tools/image/debian.lock" in run
        assert """$(awk '!/^#/ && NF {print $1 "=" $2}' /tmp/debian.lock)""" in run


def test_python_dependencies_install_hash_checked_from_the_lock() -> None:
    run = " ".join(instructions(stages()[1], "RUN"))
    assert "--require-hashes --no-deps --no-compile -r requirements/image.txt" in run
    assert run.count("--no-index") == 3  # the build tools, the dependencies, our wheel: no registry
    assert "argocd-lifecycle==${VERSION}" in run
    pip = locked(BUILD_LOCK)["pip"][0]
    assert arg_defaults()["PIP_WHEEL"] == f"pip-{pip}-py3-none-any.whl"
    assert arg_defaults()["VENV"] == PINS["VENV"]


def test_final_stage_runs_as_999_with_one_entrypoint() -> None:
    final = stages()[-1]
    assert instructions(final, "USER") == [f"{PINS['IMAGE_UID']}:{PINS['IMAGE_UID']}"]
    assert arg_defaults()["IMAGE_UID"] == PINS["IMAGE_UID"]
    (entrypoint,) = instructions(final, "ENTRYPOINT")
    assert json.loads(entrypoint) == ["argocd-lifecycle"]
    assert [i for i in PARSER.structure if i["instruction"] == "ENTRYPOINT"] == [
        i for i in final if i["instruction"] == "ENTRYPOINT"
    ]
    assert any("--uid ${IMAGE_UID}" in r and "--gid ${IMAGE_UID}" in r for r in instructions(final, "RUN"))


def test_final_stage_environment_is_the_images() -> None:
    final = stages()[-1]
    env: dict[str, str] = {}
    for value in instructions(final, "ENV"):
        env.update(dict(word.split("=", 1) for word in shlex.split(value)))
    assert env == env_file(IMAGE_TOOLS / "image.env")
    assert instructions(final, "WORKDIR") == ["/tmp"]
    assert all(v.startswith("/tmp") for k, v in env.items() if k == "HOME" or k.endswith("_HOME"))


def test_final_stage_has_no_build_tools() -> None:
    final = stages()[-1]
    runs = " ".join(instructions(final, "RUN"))
    assert not re.search(r"\b(gcc|g\+\+|build-essential|binutils|python3-pip|pip install|make)\b", runs)
    for copy in instructions(final, "COPY") + instructions(final, "ADD"):
        assert copy.startswith(("--from=venv ", "--from=tools ")), copy  # no source tree
    assert "python3-pip binutils" in " ".join(instructions(stages()[1], "RUN"))  # they stay in the venv stage


def test_no_latest_anywhere() -> None:
    for item in PARSER.structure:
        if item["instruction"] != "COMMENT":
            assert not re.search(r"(?i)\blatest\b", item["value"]), item["content"]


def test_dockerignore_sends_only_what_builds_the_image() -> None:
    lines = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    k8s_auth = {"tools/go/argocd/go.mod", "tools/go/argocd/go.sum", "tools/go/argocd/cmd/argocd-k8s-auth"}
    assert allowed == {
        "pyproject.toml",
        "README.md",
        "requirements",
        "tools/image/debian.lock",
        *k8s_auth,
        *SOURCE_FOLDERS,
    }
    copied = set()
    for stage in stages()[:2]:
        for copy in instructions(stage, "COPY"):
            copied |= set(copy.split()[:-1])
    assert copied | {"tools/image/debian.lock"} == allowed


# --- the locks ---


def test_lock_pins_every_dependency_of_pyproject() -> None:
    lock = locked(LOCK)
    for requirement in pyproject_dependencies():
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{name} is in pyproject.toml but not in requirements/image.txt: run tools/image/lock.sh"
        version = lock[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements/image.txt pins {name}=={version}, pyproject.toml asks {requirement.specifier}: "
            "run tools/image/lock.sh"
        )


def test_lock_holds_nothing_pyproject_does_not_lead_to() -> None:
    lock = locked(LOCK)
    direct = {canonicalize_name(r.name) for r in pyproject_dependencies()}
    from_pyproject = {name for name, (_, _, via) in lock.items() if "argocd-lifecycle (pyproject.toml)" in via}
    assert from_pyproject == direct, "requirements/image.txt is stale: run tools/image/lock.sh"
    for name, (_, _, via) in lock.items():
        parents = {canonicalize_name(v) for v in via if v != "argocd-lifecycle (pyproject.toml)"}
        assert via and parents <= set(lock), f"{name} is locked for {via}"


def test_every_locked_wheel_has_hashes() -> None:
    for path in (LOCK, BUILD_LOCK):
        for name, (_, hashes, _) in locked(path).items():
            assert hashes, f"{name} has no --hash in {path.name}"
    assert set(locked(BUILD_LOCK)) >= {"pip", "setuptools", "wheel"}


def test_jinja2_without_the_known_sandbox_escapes() -> None:
    # 3.1.5 fixed CVE-2024-56326 and CVE-2024-56201, 3.1.6 CVE-2025-27516 (|attr in the sandbox)
    assert Version(locked(LOCK)["jinja2"][0]) >= Version("3.1.6")
    (jinja2,) = [r for r in pyproject_dependencies() if r.name == "jinja2"]
    assert not jinja2.specifier.contains("3.1.5")


def test_the_image_leaves_out_what_only_the_svg_output_needs() -> None:
    assert "matplotlib" not in locked(LOCK) and "numpy" not in locked(LOCK)


def test_debian_lock_holds_every_root_package() -> None:
    roots = {
        line.split()[0]
        for line in (IMAGE_TOOLS / "debian-packages.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    entries = [
        line.split() for line in (IMAGE_TOOLS / "debian.lock").read_text().splitlines() if not line.startswith("#")
    ]
    assert all(len(e) == 3 and re.fullmatch(r"[0-9a-f]{64}", e[2]) for e in entries)
    names = [e[0] for e in entries]
    assert names == sorted(set(names))
    assert roots <= set(names)
    assert any(name == PINS["PYTHON"] + "-minimal" for name in names)
