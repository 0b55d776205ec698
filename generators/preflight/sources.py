"""Where the preflight's input comes from: the management cluster, or files from a support bundle.

- **Live**: the Applications (``argoproj.io/v1alpha1``) of the Argo CD namespace and of the tenants'
  namespaces named with ``--application-namespace`` (``*``: every namespace), and the cluster Secrets
  (label ``argocd.argoproj.io/secret-type=cluster``) of the Argo CD namespace, through the
  ``kubernetes`` client and a kubeconfig (or the in-cluster account); lists are paged.
- **Files** (``--from-file``, repeatable): what ``kubectl get applications -o json`` and
  ``kubectl get secret -o json`` print, single objects or Lists, mixed freely. Secrets that are not
  cluster Secrets are skipped unread; any kind other than Applications and Secrets is an error naming
  the file and item.

``--project`` keeps the Applications of those AppProjects only (``for_projects``), so each team can
run the preflight for what it deploys.

A cluster Secret that does not parse is kept as ``skipped``: why (a note), and its name and server
when they still parse, so the cluster it names can be found (clusters.py).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret, SkippedSecret, scan_cluster_secrets
from argocd_lifecycle.generators.fleet.namespaces import Namespaces, custom_list, scope_label
from argocd_lifecycle.generators.preflight.apps import AppRecord, PreflightInputError, read_application
from argocd_lifecycle.kube.client import Kube
from argocd_lifecycle.kube.lists import items, load_document, pages
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE

GROUP, VERSION, PLURAL = "argoproj.io", "v1alpha1", "applications"


@dataclass(frozen=True)
class Inputs:
    apps: tuple[AppRecord, ...]
    secrets: tuple[ClusterSecret, ...]
    skipped: tuple[SkippedSecret, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """One line per skipped cluster Secret: which and why."""
        return tuple(s.note for s in self.skipped)


def is_application(obj: Mapping[str, Any]) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == "Application" and isinstance(api, str) and api.startswith(GROUP + "/")


def read_files(paths: Sequence[Path]) -> Inputs:
    apps: list[AppRecord] = []
    secrets: list[tuple[Mapping[str, Any], str]] = []
    for path in paths:
        for obj, where in items(load_document(path), str(path)):
            kind = obj.get("kind")
            if is_application(obj):
                apps.append(read_application(obj, where))
            elif kind == "Secret":
                secrets.append((obj, where))
            else:
                shown = f"{obj.get('apiVersion')} {kind}" if kind else "an object without kind"
                raise PreflightInputError(f"{where}: is {shown}; expected Argo CD Applications or cluster Secrets")
    parsed, skipped = scan_cluster_secrets(secrets)
    return Inputs(tuple(apps), tuple(parsed), tuple(skipped))


def read_live(kube: Kube, namespace: str, watched: Namespaces | None = None) -> Inputs:
    apps: list[AppRecord] = []
    for scope in (watched or Namespaces(namespace)).scopes:
        what = f"list Applications in {scope_label(scope)} on {kube.host}"
        fn, args = custom_list(kube, PLURAL, scope)
        apps += [read_application(obj, f"{what}: item {i}") for i, obj in enumerate(pages(kube, what, fn, *args))]
    what = f"list cluster Secrets in namespace {namespace} on {kube.host}"
    selector = f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"
    raw = pages(kube, what, kube.core.list_namespaced_secret, namespace, label_selector=selector)
    parsed, skipped = scan_cluster_secrets(
        (obj, f"Secret {namespace}/{(obj.get('metadata') or {}).get('name')}") for obj in raw
    )
    return Inputs(tuple(apps), tuple(parsed), tuple(skipped))


def for_projects(inputs: Inputs, projects: Collection[str]) -> Inputs:
    """Only the Applications of ``projects`` (all of them when empty)."""
    if not projects:
        return inputs
    return replace(inputs, apps=tuple(a for a in inputs.apps if a.project in projects))
