"""The lifecycle event: one JSON object per cluster phase transition, posted by the generator to the
receiver (signed with ``argocd_lifecycle.signing``). Both sides import the wire shape from here."""

from __future__ import annotations

from typing import TypedDict


class LifecycleEventBody(TypedDict, total=False):
    reason: str
    cluster: str
    server: str
    phase: str
    previousPhase: str
    since: str
    message: str
    kubernetesVersion: str
