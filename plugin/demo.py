"""`make demo`: render the example applications for two Kubernetes versions, as Argo CD would.

A short human summary goes to stderr; the rendered manifests go to stdout.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.generate import generate
from argocd_lifecycle.plugin.settings import PluginSettings

EXAMPLES = ("plain", "kustomize", "helm", "jinja")
# (KUBE_VERSION, KUBE_API_VERSIONS) for an old and a current cluster, in Argo CD's formats
TARGETS = (
    ("1.21", "apps/v1,apps/v1/Deployment,policy/v1beta1,policy/v1beta1/PodDisruptionBudget,v1,v1/Service"),
    ("1.29.3", "apps/v1,apps/v1/Deployment,policy/v1,policy/v1/PodDisruptionBudget,v1,v1/Service"),
)


def main() -> int:
    examples = Path(os.environ.get("ARGOCD_LIFECYCLE_EXAMPLES", "examples"))
    if not examples.is_dir():
        print(f"error: {examples} is not a folder (run from the repository root)", file=sys.stderr)
        return 2
    failures = 0
    print("argocd-lifecycle demo: rendering the example applications as the CMP sidecar would", file=sys.stderr)
    for version, apis in TARGETS:
        for name in EXAMPLES:
            env = {
                "ARGOCD_APP_NAME": f"demo-{name}",
                "ARGOCD_APP_NAMESPACE": "demo",
                "KUBE_VERSION": version,
                "KUBE_API_VERSIONS": apis,
                "ARGOCD_ENV_CLUSTER_NAME": "edge-1",
                "ARGOCD_ENV_CLUSTER_PHASE": "Ready",
                "ARGOCD_LIFECYCLE_HELM": os.environ.get("ARGOCD_LIFECYCLE_HELM", "helm"),
                "ARGOCD_LIFECYCLE_KUSTOMIZE": os.environ.get("ARGOCD_LIFECYCLE_KUSTOMIZE", "kustomize"),
            }
            diagnostics = Diagnostics()
            started = time.perf_counter()
            try:
                settings = PluginSettings.from_environ(env, app_dir=examples / name)
                result = generate(settings, diagnostics)
            except LifecycleError as exc:
                failures += 1
                print(f"  FAIL {name:<10} for {version}: {exc.message}", file=sys.stderr)
                continue
            ms = (time.perf_counter() - started) * 1000
            kinds = ", ".join(f"{m.api_version} {m.kind}" for m in result.manifests)
            print(
                f"  {name:<10} ({result.source_type}) for Kubernetes {version}: {len(result.manifests)} objects "
                f"in {ms:.0f} ms: {kinds}",
                file=sys.stderr,
            )
            for line in diagnostics.rendered():
                print(f"      {line}", file=sys.stderr)
            sys.stdout.write(f"# --- {name} for Kubernetes {version}\n{result.text}")
    print("done: manifests are on stdout" if not failures else f"{failures} example(s) failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
