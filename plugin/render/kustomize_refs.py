"""What a kustomization may reach, checked before kustomize runs: every base, component and generator
stays inside the repository root, nothing is fetched from the network unless ``allowRemoteBases=true``,
and the helm charts kustomize would inflate cannot smuggle options into helm's argv.

Kustomize itself keeps *files* inside each kustomization's own folder (its default load restrictor,
symlinks resolved), but not *folders*: ``resources: [../../../outside]`` is a base anywhere on disk, a
``github.com/...`` or ``https://...`` entry is cloned or downloaded, and a ``file://`` one clones a local
repository from anywhere. Those are refused here, walking the graph of kustomizations from the app.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.errors import LifecycleError, RenderError
from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.parameters import is_release_name
from argocd_lifecycle.plugin.render.detect import KUSTOMIZATION_FILES
from argocd_lifecycle.yaml import yamlio

#: entries that may be a file, a folder (a kustomization) or a remote base
_BASES = ("resources", "bases", "components", "generators", "transformers", "validators")
#: entries that are files (kustomize may download them when they are URLs)
_FILE_LISTS = ("crds", "configurations", "patchesStrategicMerge")
_FILE_KEYS = ("path", "valuesFile", "env")
_FILE_LIST_KEYS = ("files", "envs", "additionalValuesFiles")
_FOLDER_KEYS = ("chartHome", "configHome", "helmHome")
_LISTS_OF_ITEMS = (
    "patches",
    "patchesJson6902",
    "replacements",
    "configMapGenerator",
    "secretGenerator",
    "helmCharts",
    "helmChartInflationGenerator",
)
#: the git URL forms kustomize clones: a user before "@", a github.com prefix ("://" is checked apart)
_GIT_USER = re.compile(r"[A-Za-z][A-Za-z0-9-]*@")
_CHART_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9_.]*")


def is_remote(ref: str) -> bool:
    text = ref.strip()
    if text[:5].lower() == "git::":
        return True
    return "://" in text or _GIT_USER.match(text) is not None or text.lower().startswith(("github.com/", "github.com:"))


@dataclass
class Reach:
    """What the walk found: secrets in the kustomizations, and resource files to read for more when
    kustomize fails (its message may quote them)."""

    secrets: set[str] = field(default_factory=set)
    resource_files: list[Path] = field(default_factory=list)

    def file_secrets(self, limits: yamlio.Limits) -> set[str]:
        out: set[str] = set()
        for path in self.resource_files:
            try:
                out |= masking.from_yaml_text(yamlio.read_file(path, path.name, limits), limits)
            except (LifecycleError, OSError):
                continue
        return out


class _Walk:
    def __init__(self, root: Path, *, allow_remote: bool, limits: yamlio.Limits) -> None:
        self.root = root
        self.prefix = str(root).rstrip(os.sep) + os.sep
        self.allow_remote = allow_remote
        self.limits = limits
        self.reach = Reach()
        self.seen: set[str] = set()

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)

    def inside(self, path: str) -> bool:
        return path == str(self.root) or path.startswith(self.prefix)

    def local(self, layer: str, ref: str, where: str, *, remote_ok: bool) -> str | None:
        """The path ``ref`` names from ``layer``, checked; None for an allowed remote one."""
        if ref.strip().lower().startswith("file://") or (ref.strip()[:5].lower() == "git::" and "file://" in ref):
            raise RenderError(
                f"{where}: {ref!r}: refused: file:// clones a repository from outside the repository root"
            )
        if is_remote(ref):
            if remote_ok and self.allow_remote:
                return None
            raise RenderError(
                f"{where}: {ref!r}: refused: a remote source (the sidecar fetches nothing unless the "
                "parameter allowRemoteBases is true)"
            )
        if os.path.isabs(ref):
            raise RenderError(f"{where}: {ref!r}: refused: an absolute path")
        path = os.path.normpath(os.path.join(layer, ref))
        # files: kustomize keeps them in their kustomization's folder, symlinks resolved; folders: here
        if not self.inside(path) or (os.path.isdir(path) and not self.inside(os.path.realpath(path))):
            raise RenderError(f"{where}: {ref!r}: refused: outside the repository root ({self.rel(path)})")
        return path

    def kustomization(self, folder: str) -> None:
        real = os.path.realpath(folder)
        if real in self.seen:
            return
        self.seen.add(real)
        for name in KUSTOMIZATION_FILES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                break
        else:
            return  # kustomize reports a folder without a kustomization itself
        rel = self.rel(path)
        try:
            doc = yamlio.load(yamlio.read_file(Path(path), rel, self.limits), self.limits)
        except yaml.YAMLError as exc:
            raise RenderError(yamlio.syntax_error(rel, exc)) from exc
        if isinstance(doc, dict):
            self.check(doc, folder, rel)

    def check(self, doc: dict[str, Any], layer: str, rel: str) -> None:
        for key in _BASES:
            for ref in _strings(doc.get(key)):
                if "\n" in ref:
                    continue  # an inline generator or transformer configuration
                path = self.local(layer, ref, f"{rel}: {key}", remote_ok=True)
                if path is None:
                    continue
                if os.path.isdir(path):
                    self.kustomization(path)
                elif key in ("resources", "bases"):
                    self.reach.resource_files.append(Path(path))
                elif os.path.isfile(path):
                    self.plugin_config(path, layer, rel)
        for key in _FILE_LISTS:
            for ref in _strings(doc.get(key)):
                if "\n" not in ref:
                    self.local(layer, ref, f"{rel}: {key}", remote_ok=False)
        for key in ("openapi", "helmGlobals"):
            if isinstance(doc.get(key), dict):
                self.item(doc[key], layer, f"{rel}: {key}")
        for key in _LISTS_OF_ITEMS:
            items = doc.get(key)
            for i, item in enumerate(items if isinstance(items, list) else []):
                if isinstance(item, dict):
                    self.item(item, layer, f"{rel}: {key}[{i}]")
                    if key.startswith("helmChart"):
                        self.chart(item, f"{rel}: {key}[{i}]")
                    if key == "secretGenerator":
                        self.generator_secrets(item, layer)

    def item(self, item: dict[str, Any], layer: str, where: str) -> None:
        """One entry of a list (a patch, a generator, a chart) or a plugin configuration's fields."""
        for key in _FILE_KEYS:
            if isinstance(item.get(key), str):
                self.local(layer, item[key], f"{where}.{key}", remote_ok=False)
        for key in _FILE_LIST_KEYS:
            for ref in _strings(item.get(key)):
                self.local(layer, ref.split("=", 1)[-1], f"{where}.{key}", remote_ok=False)
        for key in _FOLDER_KEYS:
            if isinstance(item.get(key), str):
                self.local(layer, item[key], f"{where}.{key}", remote_ok=False)

    def chart(self, item: dict[str, Any], where: str) -> None:
        """A chart kustomize inflates: kustomize puts ``releaseName`` into helm's argv as a bare word
        and joins ``name`` to the chart folder, so both are checked like the plugin's own."""
        name = item.get("name", item.get("chartName"))
        repo = item.get("repo") or item.get("chartRepoUrl")
        if repo and not self.allow_remote:
            raise RenderError(
                f"{where}.repo: {str(repo)!r}: refused: a remote chart (the sidecar fetches nothing unless the "
                "parameter allowRemoteBases is true; vendor the chart under charts/)"
            )
        if name is not None and (not isinstance(name, str) or not _CHART_NAME.fullmatch(name) or name == ".."):
            raise RenderError(f"{where}.name: {str(name)[:80]!r}: refused: a chart name is one folder name")
        release = item.get("releaseName")
        if release is not None and not (isinstance(release, str) and is_release_name(release)):
            raise RenderError(
                f"{where}.releaseName: {str(release)[:80]!r}: refused: not a Helm release name (lowercase "
                "RFC 1123 labels, at most 53 characters)"
            )

    def plugin_config(self, path: str, layer: str, rel: str) -> None:
        """A generator or transformer configuration file: the same fields as in a kustomization."""
        where = self.rel(path)
        try:
            docs = list(yamlio.load_all(yamlio.read_file(Path(path), where, self.limits), self.limits))
        except yaml.YAMLError as exc:
            raise RenderError(yamlio.syntax_error(where, exc)) from exc
        for doc in docs:
            if isinstance(doc, dict):
                self.item(doc, layer, where)
                self.check(doc, layer, where)
                if doc.get("kind") == "HelmChartInflationGenerator":
                    self.chart(doc, where)
                if doc.get("kind") == "SecretGenerator":
                    self.generator_secrets(doc, layer)

    def generator_secrets(self, item: dict[str, Any], layer: str) -> None:
        for literal in _strings(item.get("literals")):
            self.reach.secrets |= masking.forms(literal.split("=", 1)[-1])
        for ref in [*_strings(item.get("envs")), *_strings(item.get("env")), *_strings(item.get("files"))]:
            path = os.path.join(layer, ref.split("=", 1)[-1])
            try:
                text = yamlio.read_file(Path(path), ref, self.limits)
            except LifecycleError:
                continue  # kustomize names the missing file itself
            self.reach.secrets |= masking.forms(text)
            for line in text.splitlines():
                self.reach.secrets |= masking.forms(line.split("=", 1)[-1])


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def check(app_dir: Path, root: Path, *, allow_remote: bool, limits: yamlio.Limits) -> Reach:
    """Walk the kustomizations from ``app_dir``; raise RenderError at the first thing refused."""
    walk = _Walk(root, allow_remote=allow_remote, limits=limits)
    walk.kustomization(str(app_dir))
    return walk.reach
