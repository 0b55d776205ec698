"""The last transform (parameter ``validate``): every final object against the target release's strict
schemas, and the upgrade target's too while the cluster is Upgrading."""

from __future__ import annotations

from dataclasses import dataclass

from argocd_lifecycle.deprecations.rules import Key
from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.validate import validate_objects

#: how many unvalidated objects the note names
_NAMED = 5


@dataclass(frozen=True)
class ValidateSchemas:
    #: the releases to validate against; empty when the target version is unknown
    versions: tuple[Key, ...]

    @classmethod
    def for_target(cls, target: Target) -> ValidateSchemas:
        return cls(tuple(v for v in (target.current, target.upgrade_to) if v is not None))

    def __call__(self, manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
        if not self.versions:
            diagnostics.warn("schema validation skipped: the target Kubernetes version is unknown")
            return manifests

        problems: list[str] = []
        for version in self.versions:
            report = validate_objects([(f"{m.ref} ({m.where})", m.obj) for m in manifests], version)
            problems.extend(report.problems)
            if report.skipped and version == self.versions[0]:
                more = " ..." if len(report.skipped) > _NAMED else ""
                diagnostics.note(
                    f"{len(report.skipped)} object(s) have no bundled schema (custom resources?) and were not "
                    f"validated: {', '.join(report.skipped[:_NAMED])}{more}"
                )
        if problems:
            raise RenderError(problems[0], problems=problems)
        return manifests
