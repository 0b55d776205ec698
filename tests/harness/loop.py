"""The steps of the lifecycle loop, shared by the scenario tests and the narrated demo."""

from __future__ import annotations

import datetime
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import argocd, paths
from .platform import Platform
from .procs import wait_until
from .services import WEBHOOK_SERVICE, Receiver, exec_plugin, install_catalog, start_generator, start_receiver
from .sink import Message, Sink

APPS = Path(__file__).resolve().parents[1] / "e2e" / "apps"
APPSET_EXAMPLE = paths.REPO / "examples" / "applicationset.yaml"
CLUSTER_SECRET = "cluster-downstream"
CLUSTER_NAME = "downstream"
APP_PATH = "guestbook"
APP_NAMESPACE = "guestbook"
PREFIX = "argocd-lifecycle.io/"
# the guestbook app as synced to 1.34: (apiVersion, kind, name) -> the removed apiVersion the repository holds
REWRITTEN = {
    ("autoscaling/v2", "HorizontalPodAutoscaler", "web"): "autoscaling/v2beta2",
    ("policy/v1", "PodDisruptionBudget", "web"): "policy/v1beta1",
    ("batch/v1", "CronJob", "nightly"): "batch/v1beta1",
    ("networking.k8s.io/v1", "Ingress", "web"): "extensions/v1beta1",
}
KEPT = [("apps/v1", "Deployment", "web"), ("v1", "Service", "web")]
SUBSCRIBED = ["on-cluster-unreachable", "on-cluster-recovered", "on-cluster-decommissioning",
              "on-sync-failed-removed-api", "on-cluster-upgrade-blocked"]  # fmt: skip


def parse_time(value: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))


def subscriptions() -> dict[str, str]:
    return {f"notifications.argoproj.io/subscribe.{t}.{WEBHOOK_SERVICE}": "" for t in SUBSCRIBED}


@dataclass
class Loop:
    platform: Platform
    sink: Sink
    receiver: Receiver
    generator_url: str
    marks: dict[str, float] = field(default_factory=dict)  # monotonic times of the steps' milestones

    # -- set-up ----------------------------------------------------------------------------------
    def publish_app(self) -> None:
        self.platform.git.copy_tree(APPS / APP_PATH, APP_PATH)
        self.platform.git.commit("guestbook: manifests written for Kubernetes 1.21")

    def applicationset(self) -> dict[str, Any]:
        """examples/applicationset.yaml, pointed at the local repository and subscribed to the catalog."""
        appset: dict[str, Any] = yaml.safe_load(APPSET_EXAMPLE.read_text())
        spec = appset["spec"]
        # the 30-minute default: only our refresh annotation can make the Application appear quickly
        spec["generators"][0]["plugin"]["requeueAfterSeconds"] = 1800
        source = spec["template"]["spec"]["source"]
        source["repoURL"], source["path"] = self.platform.git.url, APP_PATH
        spec["template"]["spec"]["destination"]["namespace"] = APP_NAMESPACE
        spec["template"]["metadata"].setdefault("annotations", {}).update(subscriptions())
        return appset

    @property
    def app_name(self) -> str:
        return f"{self.applicationset()['metadata']['name']}-{CLUSTER_NAME}"

    def apply_applicationset(self) -> None:
        self.platform.mgmt.apply(self.applicationset())

    def register_cluster(self) -> None:
        """The downstream cluster's Secret, reached through an exec credential plugin (as a managed
        cluster's is): only its CA is static."""
        down = self.platform.downstream
        tls = down.argocd_cluster_config()["tlsClientConfig"]
        assert isinstance(tls, dict)
        config = {
            "execProviderConfig": {"command": str(exec_plugin(self.platform)),
                                   "apiVersion": "client.authentication.k8s.io/v1"},
            "tlsClientConfig": {"caData": tls["caData"]},
        }  # fmt: skip
        self.platform.mgmt.apply({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": CLUSTER_SECRET, "namespace": argocd.NAMESPACE,
                "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": "staging"},
            },
            "stringData": {
                "name": CLUSTER_NAME, "server": down.server, "config": json.dumps(config),
            },
        })  # fmt: skip

    # -- observations ----------------------------------------------------------------------------
    def secret(self) -> dict[str, Any] | None:
        return self.platform.mgmt.get("v1", "Secret", CLUSTER_SECRET, argocd.NAMESPACE)

    def phase(self) -> tuple[str, str]:
        """The cluster's phase and phase-since, as the generator wrote them on the Secret."""
        annotations = ((self.secret() or {}).get("metadata") or {}).get("annotations") or {}
        return annotations.get(PREFIX + "phase", ""), annotations.get(PREFIX + "phase-since", "")

    def application(self) -> dict[str, Any] | None:
        return self.platform.mgmt.get("argoproj.io/v1alpha1", "Application", self.app_name, argocd.NAMESPACE)

    def wait_phase(self, phase: str, timeout: float) -> str:
        """Wait for ``phase``; returns its phase-since."""
        return wait_until(
            lambda: self.phase()[1] if self.phase()[0] == phase else None,
            timeout=timeout, what=f"cluster {CLUSTER_NAME} to turn {phase}",
        )  # fmt: skip

    def wait_app(self, predicate: Any, timeout: float, what: str) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            app = self.application()
            return app if app is not None and predicate(app) else None

        return wait_until(probe, timeout=timeout, what=f"Application {self.app_name} {what}")

    # -- steps (the demo narrates them, the tests assert on them) -------------------------------------
    def pass_gate(self, timeout: float) -> tuple[str, list[str]]:
        """Register the cluster and wait for Ready: its phase-since, and every phase seen with an
        Application already present (there must be none before the gate)."""
        self.register_cluster()
        early: list[str] = []

        def gate() -> str | None:
            phase, since = self.phase()
            if phase == "Ready":
                return since
            if self.application() is not None:
                early.append(phase or "unannotated")
            return None

        since = wait_until(gate, timeout=timeout, what=f"cluster {CLUSTER_NAME} to pass the readiness gate")
        return since, early

    def lose_cluster(self, timeout: float) -> dict[str, Any]:
        """Stop the downstream API server; wait until the Application shows Unreachable, sync off."""
        return self._phase_change(self.platform.stop_downstream, "Unreachable", sync=False, timeout=timeout)

    def restore_cluster(self, timeout: float) -> dict[str, Any]:
        """Start the downstream API server again; wait until the Application shows Ready, sync on."""
        return self._phase_change(self.platform.start_downstream, "Ready", sync=True, timeout=timeout)

    def _phase_change(self, action: Callable[[], None], phase: str, *, sync: bool, timeout: float) -> dict[str, Any]:
        action()
        self.marks["acted"] = time.monotonic()
        self.wait_phase(phase, timeout=timeout)
        self.marks[f"phase {phase}"] = time.monotonic()
        state = "on" if sync else "off"
        return self.wait_app(
            lambda a: cluster_phase_of(a) == phase and automated_enabled(a) is sync,
            timeout=timeout, what=f"to carry phase {phase} with automated sync {state}",
        )  # fmt: skip

    def next_alert(self, seen: int, timeout: float, what: str) -> Message:
        """The first alert after the ``seen`` ones already delivered to the sink."""
        alerts = wait_until(lambda: self.alerts()[seen:] or None, timeout=timeout, what=what)
        return alerts[0]

    def live(self, api_version: str, kind: str, name: str) -> dict[str, Any] | None:
        """One of the app's objects as the downstream API server holds it."""
        return self.platform.down.get(api_version, kind, name, APP_NAMESPACE)

    def alerts(self) -> list[Message]:
        """What reached the sink's /alerts, but the drift watch's and the drift triggers' messages: any
        Application of the platform may drift while a scenario counts its own alerts."""
        return [m for m in self.sink.messages() if m.path == "/alerts" and _trigger(m) not in DRIFT_TRIGGERS]

    def drift_alerts(self, app: str) -> list[Message]:
        """The drift messages about Application ``app`` (the drift watch's event, the drift triggers)."""
        return [
            m for m in self.sink.messages()
            if m.path == "/alerts" and _trigger(m) in DRIFT_TRIGGERS and app in json.dumps(m.body)
        ]  # fmt: skip

    def lifecycle_messages(self) -> list[Message]:
        return [m for m in self.sink.messages() if m.path == "/lifecycle"]


#: the drift watch's external event and the catalog's drift triggers (docs/guide/drift.md)
DRIFT_TRIGGERS = frozenset({"DriftDetected", "on-drift-unreconciled", "on-drift-reconciled"})


def _trigger(message: Message) -> str:
    return str((message.body.get("event") or {}).get("trigger") or "")


def cluster_phase_of(app: dict[str, Any]) -> str:
    return str(((app.get("metadata") or {}).get("annotations") or {}).get(PREFIX + "cluster-phase", ""))


def automated_enabled(app: dict[str, Any]) -> bool | None:
    automated = ((app.get("spec") or {}).get("syncPolicy") or {}).get("automated")
    if automated is None:
        return None
    return bool(automated.get("enabled", True))


def synced(app: dict[str, Any]) -> bool:
    status = app.get("status") or {}
    operation = (status.get("operationState") or {}).get("phase")
    return (status.get("sync") or {}).get("status") == "Synced" and operation == "Succeeded"


def annotations(obj: dict[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def last_applied(obj: dict[str, Any]) -> dict[str, Any]:
    """What Argo CD sent (client-side apply keeps it), as opposed to what the server serves."""
    return dict(json.loads(annotations(obj)["kubectl.kubernetes.io/last-applied-configuration"]))


def record(timings: dict[str, float], key: str, value: float) -> None:
    timings[key] = round(value, 1)


def start_loop(platform: Platform, sink: Sink) -> Loop:
    """Our half on top of the platform: receiver (delivering to ``sink``), catalog, generator, the
    repository's app and the ApplicationSet."""
    receiver = start_receiver(platform, sink)
    install_catalog(platform, receiver)
    loop = Loop(platform, sink, receiver, start_generator(platform, receiver))
    loop.publish_app()
    loop.apply_applicationset()
    return loop
