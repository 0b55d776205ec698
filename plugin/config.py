"""The CMP ``plugin.yaml`` (Argo CD's ConfigManagementPlugin v2 format), built from the parameter table so
the two never drift."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.parameters import SPECS
from argocd_lifecycle.plugin.settings import MARKER
from argocd_lifecycle.yaml import yamlio

PLUGIN_NAME = "argocd-lifecycle"
PLUGIN_VERSION = "v1"
COMMAND = "argocd-lifecycle"


def plugin_config() -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ConfigManagementPlugin",
        "metadata": {"name": PLUGIN_NAME},
        "spec": {
            "version": PLUGIN_VERSION,
            "generate": {"command": [COMMAND, "plugin", "generate"]},
            # narrow on purpose: ordinary Helm and Kustomize apps must never be captured
            "discover": {"fileName": MARKER},
            "parameters": {
                "static": [s.announcement() for s in SPECS],
                "dynamic": {"command": [COMMAND, "plugin", "parameters"]},
            },
            "preserveFileMode": False,
        },
    }


def render_plugin_yaml() -> str:
    return "# Generated from plugin/config.py by `argocd-lifecycle plugin config`; a test checks it.\n" + yamlio.dump(
        plugin_config()
    )
