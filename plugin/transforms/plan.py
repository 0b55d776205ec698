"""The typed list of transforms for one render, built from the settings before anything renders.

The API rewrite comes first, so the other steps see the apiVersions that will be printed; schema
validation comes last, so it checks exactly what is printed. Steps mark only the objects they change
(``rewritten-from``, Argo CD's sync options): an object no step changes is printed as the tool emitted
it. A step the settings switch off is not in the list. Building the list loads users' extra rules
(``additionalVersions``), so a bad rules file fails the run before helm or kustomize start; the built-in
rules and the engine are imported only by a render holding an object they could change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from argocd_lifecycle.model import Phase
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.rewrite.candidates import may_change
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.transforms.hpa import drop_autoscaled_replicas

if TYPE_CHECKING:
    from argocd_lifecycle.plugin.rewrite.target import Target
    from argocd_lifecycle.plugin.transforms.rewrite_apis import RewriteApis

Transform = Callable[[list[Manifest], Diagnostics], list[Manifest]]
#: the cluster phases in which objects are protected from pruning and deletion
PROTECTIVE_PHASES = (Phase.DECOMMISSIONING.value, Phase.UNREACHABLE.value)


def target_of(settings: PluginSettings) -> Target:
    """The cluster the objects are for; the upgrade target counts only while the cluster is Upgrading."""
    from argocd_lifecycle.plugin.rewrite.target import Target

    upgrading = settings.cluster_phase == Phase.UPGRADING and settings.upgrade_to is not None
    return Target.of(
        settings.kube_version.key if settings.kube_version else None,
        upgrade_to=settings.upgrade_to.key if upgrading and settings.upgrade_to else None,
        api_versions=settings.api_versions,
    )


class RewriteWhenNeeded:
    """The API rewrite with the built-in rules, built by the first render that holds an object the
    engine could change (``candidates.may_change``); with none, the rules and the engine are never
    imported and the objects pass as they are, which is what the engine would return for them."""

    __slots__ = ("_full", "settings")

    def __init__(self, settings: PluginSettings) -> None:
        self.settings = settings
        self._full: RewriteApis | None = None

    @property
    def full(self) -> RewriteApis:
        if self._full is None:
            from argocd_lifecycle.plugin.transforms.rewrite_apis import RewriteApis

            self._full = RewriteApis.for_settings(self.settings, target_of(self.settings))
        return self._full

    def __call__(self, manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
        if self._full is None and not any(may_change(m.api_version, m.kind) for m in manifests):
            return manifests
        return self.full(manifests, diagnostics)


def _rewrite(settings: PluginSettings) -> Transform:
    if settings.parameters.additional_versions:
        # the app's own rules are read now, so a bad file fails before helm or kustomize start
        from argocd_lifecycle.plugin.transforms.rewrite_apis import RewriteApis

        return RewriteApis.for_settings(settings, target_of(settings))
    return RewriteWhenNeeded(settings)


def plan(settings: PluginSettings) -> tuple[Transform, ...]:
    params = settings.parameters
    steps: list[Transform] = []
    if params.rewrite_apis:
        steps.append(_rewrite(settings))
    if params.hpa_aware_replicas:
        steps.append(drop_autoscaled_replicas)
    # the steps that are off by default are imported only when on: every render starts a process
    if settings.cluster_phase in PROTECTIVE_PHASES:
        from argocd_lifecycle.plugin.transforms.lifecycle import forbid_prune_and_delete

        steps.append(forbid_prune_and_delete)
    if params.validate:
        from argocd_lifecycle.plugin.transforms.validate_schemas import ValidateSchemas

        steps.append(ValidateSchemas.for_target(target_of(settings)))
    return tuple(steps)


def run(transforms: Iterable[Transform], manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
    for step in transforms:
        manifests = step(manifests, diagnostics)
    return manifests
