"""Bringing each CAPI Cluster's Argo CD cluster Secret in line with CAPI, one Cluster at a time.

Only the leader writes, and only once every watch (CAPI's objects and the cluster Secrets) has listed
and none is broken: before that, an object we have not seen yet would look deleted. Per Cluster:

- initialised, not deleting, with a kubeconfig: create our Secret, or merge-patch it (data, labels,
  ``upgrade-to``, the worker count) against its current ``resourceVersion``;
- being deleted (or gone): set ``decommission: "true"``; once the lifecycle machine shows
  Decommissioning and CAPI has deleted the kubeconfig Secret, delete ours (uid and resourceVersion
  preconditions), an explicit departure;
- worker replicas changed: ``ClusterScaled`` with the counts, through the fleet's outputs.

A Secret of the same name that we did not create (no ``managed-by`` label) is never written: the CAPI
Cluster gets a Warning Event saying so. Failed calls are retried a few seconds later.

Servers are identities (servers.py): a kubeconfig naming the management cluster, a refused address or
the server of another cluster Secret (or a Cluster whose Argo CD name another Secret has) never
becomes a Secret (Warning ``ClusterServerRefused`` on the
CAPI Cluster; our Secret, if any, keeps the server it has). When our Secret's own server becomes
refused (a hand-written Secret for that server appeared after ours, or the operator's lists changed),
our Secret is no longer updated, only torn down when its Cluster goes, and both the CAPI Cluster and
the Secret get a Warning ``ClusterServerConflict``: deleting it would delete its Applications, and
which of the two is right is the operator's call. It is updated again once the conflict is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret, InvalidClusterSecret, SecretWire, parse_secret
from argocd_lifecycle.generators.capi.announce import ClusterEvents
from argocd_lifecycle.generators.capi.intent import Intent, intent, scaled_message
from argocd_lifecycle.generators.capi.names import WORKERS_ANNOTATION
from argocd_lifecycle.generators.capi.objects import CapiCluster, ClusterKey, InvalidCapiObject
from argocd_lifecycle.generators.capi.registration import (
    cluster_name,
    desired,
    is_ours,
    manifest,
    patch,
    secret_name,
    source_of,
)
from argocd_lifecycle.generators.capi.servers import Holders, InvalidServer, parse_server, server_key
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.capi.store import Kubeconfig, Problem, Store
from argocd_lifecycle.generators.fleet.inventory import Change, Inventory
from argocd_lifecycle.kube.client import MERGE_PATCH, Kube, KubeConflict, KubeError, KubeNotFound
from argocd_lifecycle.model import Annotation, Phase, Reason

log = logging.getLogger(__name__)

Announce = Callable[[str, Reason, str], Awaitable[bool]]


class Reconciler:
    def __init__(
        self,
        kube: Kube,
        store: Store,
        inventory: Inventory,
        settings: CapiSettings,
        *,
        is_leader: Callable[[], bool],
        events: ClusterEvents,
        announce: Announce,
        tick: float = 2.0,
        resync: float = 60.0,
        retry: float = 5.0,
    ) -> None:
        self.kube, self.store, self.inventory, self.settings = kube, store, inventory, settings
        self.namespace = inventory.default_namespace
        self.is_leader, self.events, self.announce = is_leader, events, announce
        self.tick, self.resync, self.retry = tick, resync, retry
        self._dirty: set[ClusterKey] = set()
        self._wake = asyncio.Event()
        #: the worker groups last seen per Cluster, for the per-group detail of ClusterScaled
        self._groups: dict[ClusterKey, tuple[tuple[str, str, int], ...]] = {}
        #: counts for tests and logs
        self.rounds = 0
        self.writes = 0
        #: the server and the Argo CD name of every cluster Secret, ours and hand-written, kept in step
        #: with the inventory: both are identities Argo CD resolves Applications by
        self.servers, self.names = Holders(), Holders()
        for name, secret in inventory.secrets.items():
            self._index(name, secret)
        inventory.subscribe(self._on_secret)

    # -- what needs a look ------------------------------------------------------------------------
    def poke(self, keys: Iterable[ClusterKey]) -> None:
        self._dirty.update(keys)
        self._wake.set()

    def _index(self, name: str, secret: ClusterSecret | None) -> set[str]:
        """Index Secret ``name`` as it is now (None: gone); the Secrets sharing its old or new identity."""
        sharing = self.servers.put(name, server_key(secret.server) if secret is not None else None)
        return sharing | self.names.put(name, secret.name if secret is not None else None)

    def _on_secret(self, change: Change) -> None:
        sharing = self._index(change.secret_name, self.inventory.secrets.get(change.secret_name))
        # ours, and ours that share the old or the new server or name of this one (a conflict begins or ends)
        for name in {change.secret_name, *sharing}:
            held = change.secret if name == change.secret_name else self.inventory.secrets.get(name)
            if held is not None and is_ours(held.labels) and (key := source_of(held.annotations)):
                self.poke([key])

    def _watched(self, key: ClusterKey) -> bool:
        return key.namespace in self.settings.namespaces

    def _all(self) -> set[ClusterKey]:
        ours = {source_of(s.annotations) for s in self.inventory.secrets.values() if is_ours(s.labels)}
        return {k for k in self.store.cluster_keys() | ours if k is not None and self._watched(k)}

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        leading, last_full = False, 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.tick):  # not wait_for: it can lose a cancel on 3.11
                    await self._wake.wait()
            self._wake.clear()
            now_leading = self.is_leader()
            if now_leading and (not leading or loop.time() - last_full >= self.resync):
                self._dirty |= self._all()  # a new leader, or the periodic resync
                last_full = loop.time()
            leading = now_leading
            if not leading or not self.store.synced() or not self.inventory.synced():
                continue  # keep what is dirty for later
            keys, self._dirty = sorted(self._dirty), set()
            self.rounds += 1
            for key in keys:
                try:
                    await self.reconcile(key)
                except KubeError as exc:
                    log.warning("Cluster %s: %s (retrying in %.0fs)", key, exc.message, self.retry)
                    loop.call_later(self.retry, self.poke, [key])
                except Exception:  # a bug must not stop the other Clusters: log it, look again later
                    log.exception("Cluster %s: reconcile failed", key)
                    loop.call_later(self.resync, self.poke, [key])

    # -- one Cluster ------------------------------------------------------------------------------
    async def reconcile(self, key: ClusterKey) -> None:
        if not self._watched(key):
            return
        name = secret_name(key)
        ours = self.inventory.secrets.get(name)
        entry = self.store.cluster(key)
        if isinstance(entry, Problem):
            return  # logged by the store; nothing is decided on a Cluster we cannot read
        if ours is not None and not is_ours(ours.labels):
            await self.events.warn(
                entry,
                "ClusterSecretConflict",
                f"Secret {self.namespace}/{name} exists and is not managed by argocd-lifecycle: it is left alone",
            )
            return
        kubeconfig = self.store.kubeconfig(key)
        if entry is None or entry.deleting:
            await self._departing(key, entry, ours, kubeconfig)
            return
        it = intent(
            entry,
            self.store.control_plane(entry),
            self.store.worker_groups(key),
            probed_version=(ours.annotations if ours else {}).get(Annotation.KUBERNETES_VERSION, ""),
        )
        if not it.register:
            return
        if ours is not None and (why := self._refused(ours.server, ours.name, name)):
            message = f"Secret {self.namespace}/{name} is no longer updated: {why}; delete one of them"
            await self.events.warn(entry, "ClusterServerConflict", message)
            await self.events.warn_secret(ours, "ClusterServerConflict", message)
            return
        endpoint = None
        if isinstance(kubeconfig, Problem):
            await self.events.warn(entry, "InvalidKubeconfig", kubeconfig.message)
        elif isinstance(kubeconfig, Kubeconfig):
            endpoint = kubeconfig.endpoint
            if why := self._refused(endpoint.server, cluster_name(key), name):
                kept = "it keeps the server it has" if ours is not None else "no cluster Secret is written"
                where = f"Secret {key.namespace}/{key.name}-kubeconfig"
                await self.events.warn(entry, "ClusterServerRefused", f"{where}: {why}; {kept}")
                endpoint = None
        if endpoint is None and ours is None:
            return  # nothing to register with (yet)
        try:
            want = desired(entry, endpoint, it, self.settings.copy_labels)
        except InvalidCapiObject as exc:
            await self.events.warn(entry, "InvalidCluster", exc.message)
            return
        if ours is not None and patch(want, ours) is None:
            self._groups[key] = it.groups
            return
        previous = ours.annotations.get(WORKERS_ANNOTATION) if ours else None
        try:
            if not await self._write(name, entry, want):
                return
        except InvalidClusterSecret as exc:
            await self.events.warn(entry, "InvalidKubeconfig", exc.message)
            return
        if want.data:  # claimed now: another Cluster of this round must not take it before the watch tells
            self.servers.put(name, server_key(want.data["server"]))
            self.names.put(name, want.data["name"])
        await self._scaled(key, name, previous, it)

    def _refused(self, text: str, cluster: str, name: str) -> str | None:
        """Why Secret ``name`` may not have server ``text`` and Argo CD name ``cluster``: the policy, or
        another cluster Secret's server or name."""
        try:
            server = parse_server(text)
        except InvalidServer as exc:
            return exc.message
        why = self.settings.servers.refusal(server)
        if why is not None:
            return why
        for what, others in (("server", self.servers.others(server.key, name)),
                             ("name", self.names.others(cluster, name))):  # fmt: skip
            if others:
                more = f" and {len(others) - 1} more" if len(others) > 1 else ""
                return f"the {what} is also the {what} of cluster Secret {self.namespace}/{others[0]}{more}"
        return None

    async def _scaled(self, key: ClusterKey, name: str, previous: str | None, it: Intent) -> None:
        groups, self._groups[key] = self._groups.get(key, ()), it.groups
        if previous is None or not previous.isdigit() or it.workers is None or int(previous) == it.workers:
            return
        await self.announce(name, Reason.SCALED, scaled_message(int(previous), it, groups))

    async def _departing(
        self, key: ClusterKey, cluster: CapiCluster | None, ours: ClusterSecret | None, kubeconfig: object
    ) -> None:
        if ours is None:
            self._groups.pop(key, None)
            return
        name = ours.secret_name
        if ours.annotations.get(Annotation.DECOMMISSION) != "true":
            body = {"metadata": {"annotations": {Annotation.DECOMMISSION: "true", Annotation.UPGRADE_TO: None}}}
            await self._patch(name, body)
            return
        if kubeconfig is not None:
            return  # CAPI deletes the kubeconfig last: until then the cluster may still be torn down
        if ours.annotations.get(Annotation.PHASE) != Phase.DECOMMISSIONING.value:
            return  # the lifecycle machine has not shown Decommissioning yet; its write pokes us again
        what = f"delete Secret {self.namespace}/{name}"
        options = {"preconditions": {"uid": ours.uid, "resourceVersion": ours.resource_version}}
        try:
            await self._call(what, self.kube.core.delete_namespaced_secret, name, self.namespace, body=options)
        except KubeNotFound:
            return
        self.writes += 1
        log.info("Cluster %s is gone and so is its kubeconfig: deleted Secret %s/%s", key, self.namespace, name)

    # -- writes -----------------------------------------------------------------------------------
    async def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.kube.call, what, fn, *args, **kwargs)

    async def _patch(self, name: str, body: dict[str, Any]) -> None:
        await self._call(
            f"patch Secret {self.namespace}/{name}",
            self.kube.core.patch_namespaced_secret,
            name,
            self.namespace,
            body,
            _content_type=MERGE_PATCH,
        )
        self.writes += 1

    async def _write(self, name: str, cluster: CapiCluster, want: Any) -> bool:
        """Create or patch from the Secret as the API has it now; False when it is not ours."""
        core, ns = self.kube.core, self.namespace
        try:
            raw: SecretWire | None = await self._call(f"read Secret {ns}/{name}", core.read_namespaced_secret, name, ns)
        except KubeNotFound:
            raw = None
        if raw is None:
            if not want.data:
                return False  # no kubeconfig to register with
            try:
                await self._call(f"create Secret {ns}/{name}", core.create_namespaced_secret, ns, manifest(want, ns))
            except KubeConflict:
                self.poke([cluster.key])  # created meanwhile: look again
                return False
            self.writes += 1
            log.info("Cluster %s: registered as Secret %s/%s", cluster.key, ns, name)
            return True
        meta = raw.get("metadata") or {}
        if not is_ours(meta.get("labels") or {}):
            await self.events.warn(
                cluster,
                "ClusterSecretConflict",
                f"Secret {ns}/{name} exists and is not managed by argocd-lifecycle: it is left alone",
            )
            return False
        body = patch(want, _current(raw), resource_version=str(meta.get("resourceVersion") or ""))
        if body is not None:
            await self._patch(name, body)
        return True


def _current(raw: SecretWire) -> ClusterSecret | None:
    """The Secret as parsed; one that does not parse keeps its labels and annotations (data is rewritten)."""
    try:
        return parse_secret(raw)
    except InvalidClusterSecret:
        meta = raw.get("metadata") or {}
        shell = ClusterSecret(str(meta.get("name") or ""), str(meta.get("namespace") or ""), "", "")
        return replace(shell, labels=dict(meta.get("labels") or {}), annotations=dict(meta.get("annotations") or {}))
