"""Mutating/ValidatingWebhookConfiguration admissionregistration.k8s.io/v1beta1 -> v1.

The v1beta1 defaults that v1 changed are written out so new creations behave as before; sideEffects
``Unknown``/unset becomes ``None`` (an assumption, warned), ``Some`` needs a human.
"""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, converter
from argocd_lifecycle.plugin.rewrite.objects import items
from argocd_lifecycle.plugin.stream.manifest import Obj

#: field -> v1beta1 default, where v1's default differs or v1 requires the field
OLD_DEFAULTS: dict[str, Any] = {
    "failurePolicy": "Ignore",
    "matchPolicy": "Exact",
    "timeoutSeconds": 30,
    "admissionReviewVersions": ["v1beta1"],
}


def _webhook(hook: Any, notes: Notes) -> Any:
    if not isinstance(hook, dict):
        return hook
    name = hook.get("name", "?")
    out = dict(hook)
    pinned = []
    for key, default in OLD_DEFAULTS.items():
        if out.get(key) is None:
            out[key] = default
            pinned.append(f"{key}={default}")
    if pinned:
        notes.warn(f"webhook {name}: pinned v1beta1 defaults {', '.join(pinned)}")
    effects = out.get("sideEffects")
    if effects == "Some":
        raise ConversionError(
            f"webhook {name}: sideEffects Some is not allowed in v1: make the webhook side-effect free "
            "on dry runs and declare NoneOnDryRun (or None)"
        )
    if effects in (None, "Unknown"):
        out["sideEffects"] = "None"
        notes.warn(
            f"webhook {name}: sideEffects {effects or 'unset'} assumed to be None (v1 requires None or NoneOnDryRun)"
        )
    return out


@converter(
    "admissionregistration.k8s.io/v1beta1",
    ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
    "admissionregistration.k8s.io/v1",
)
def webhook_configuration(obj: Obj, notes: Notes) -> Obj:
    hooks = items(obj.get("webhooks"))
    names = [h.get("name") for h in hooks if isinstance(h, dict)]
    duplicates = sorted({str(n) for n in names if names.count(n) > 1})
    if duplicates:
        raise ConversionError(f"webhook names must be unique in v1: {', '.join(duplicates)} repeated")
    if "webhooks" not in obj:
        return obj
    return {**obj, "webhooks": [_webhook(h, notes) for h in hooks]}
