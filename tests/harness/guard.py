"""Watching the mass-drop guard from outside: what Argo CD shows on the ApplicationSet, what each replica
answers, what reached the sink, and every Application Argo CD deleted (a watch, so none is missed)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
from kubernetes import watch

from . import argocd
from .fleet import APPSET, SELECTED, Rig
from .procs import wait_until
from .sink import Message

HELD = "mass-drop guard: holding ApplicationSet"


def ask(rig: Rig, replica: int, parameters: dict[str, Any] | None = None) -> httpx.Response:
    """getparams.execute on one replica, as Argo CD sends it."""
    token = (rig.platform.scratch / "soak-generator" / "token").read_text()
    body = {"applicationSetName": APPSET, "input": {"parameters": parameters if parameters is not None else SELECTED}}
    return httpx.post(
        f"{rig.replicas[replica].url}/api/v1/getparams.execute",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


def appset_error(rig: Rig, name: str = APPSET, namespace: str = argocd.NAMESPACE) -> str:
    """The ErrorOccurred message Argo CD shows on the ApplicationSet ("" when there is none)."""
    appset = rig.platform.mgmt.get("argoproj.io/v1alpha1", "ApplicationSet", name, namespace) or {}
    for condition in (appset.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "ErrorOccurred" and condition.get("status") == "True":
            return str(condition.get("message") or "")
    return ""


def refresh(rig: Rig) -> None:
    """What the Refresh button does: Argo CD runs the generators again now."""
    rig.platform.mgmt.merge_patch(
        "argoproj.io/v1alpha1", "ApplicationSet", APPSET,
        {"metadata": {"annotations": {"argocd.argoproj.io/application-set-refresh": "true"}}},
        namespace=argocd.NAMESPACE,
    )  # fmt: skip


def wait_held(rig: Rig, timeout: float = 90) -> str:
    """Until Argo CD shows the hold on the ApplicationSet; returns its message."""
    return wait_until(lambda: appset_error(rig) if HELD in appset_error(rig) else None, timeout=timeout,
                      what="Argo CD to show the held answer on the ApplicationSet")  # fmt: skip


def wait_released(rig: Rig, clusters: int, timeout: float = 120) -> None:
    wait_until(lambda: not appset_error(rig) and len(rig.applications()) == clusters, timeout=timeout,
               what=f"the ApplicationSet answered again with {clusters} Applications")  # fmt: skip


def held_messages(rig: Rig, paths: tuple[str, ...] = ("/alerts",)) -> list[Message]:
    """The guard's held answers the receiver delivered to ``paths`` (``/alerts``, or a team's route)."""
    return [
        m
        for m in rig.sink.messages()
        if m.path in paths and (m.body.get("event") or {}).get("trigger") == "MassDropHeld"
    ]


@dataclass(frozen=True)
class Deletion:
    app: str
    uid: str
    server: str
    at: float  # time.monotonic()


class DeletionWatch:
    """Every Application of the ApplicationSet ``namespace/appset`` that Argo CD deletes (those named
    ``<appset>-...``), from a watch in a thread."""

    def __init__(self, rig: Rig, namespace: str = argocd.NAMESPACE, appset: str = APPSET) -> None:
        self.rig, self.namespace, self.prefix = rig, namespace, f"{appset}-"
        self.deleted: list[Deletion] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._known: dict[str, dict[str, Any]] = {}
        self._version = self._list()  # what exists now is the starting point
        self._thread = threading.Thread(target=self._run, name="e2e-app-deletions", daemon=True)
        self._thread.start()

    def since(self, mark: int) -> list[Deletion]:
        with self._lock:
            return list(self.deleted[mark:])

    def count(self) -> int:
        with self._lock:
            return len(self.deleted)

    def _record(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        server = ((obj.get("spec") or {}).get("destination") or {}).get("server", "")
        with self._lock:
            self.deleted.append(Deletion(meta["name"], meta["uid"], server, time.monotonic()))

    def _list(self) -> str:
        """List again; what vanished in the gap (or came back with a new uid) was deleted meanwhile."""
        listing = self.rig.custom.list_namespaced_custom_object(
            "argoproj.io", "v1alpha1", self.namespace, "applications"
        )
        items = listing.get("items") or []
        now = {a["metadata"]["name"]: a for a in items if a["metadata"]["name"].startswith(self.prefix)}
        for name, old in list(self._known.items()):
            if name not in now or now[name]["metadata"]["uid"] != old["metadata"]["uid"]:
                self._record(old)
        self._known = now
        return str(listing["metadata"]["resourceVersion"])

    def _run(self) -> None:
        custom = self.rig.custom
        version = self._version
        while not self._stop.is_set():
            try:
                if not version:
                    version = self._list()
                w = watch.Watch()
                for event in w.stream(custom.list_namespaced_custom_object, "argoproj.io", "v1alpha1", self.namespace,
                                      "applications", resource_version=version, timeout_seconds=60):  # fmt: skip
                    obj = event["raw_object"]
                    version = obj["metadata"]["resourceVersion"]
                    name = obj["metadata"]["name"]
                    if not name.startswith(self.prefix):
                        continue
                    if event["type"] == "DELETED":
                        self._known.pop(name, None)
                        self._record(obj)
                    elif event["type"] in ("ADDED", "MODIFIED"):
                        self._known[name] = obj
                    if self._stop.is_set():
                        break
            except Exception:  # a dropped or expired watch: list again
                version = ""
                time.sleep(0.5)

    def close(self) -> None:
        self._stop.set()
