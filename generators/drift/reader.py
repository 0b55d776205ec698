"""Read an Application's OutOfSync objects from its destination cluster, bounded, with the prober's
client (the cluster Secret's own credentials, TLS, proxy, exec plugin or the pod's ServiceAccount).

An object is found through discovery (``/api/v1``, ``/apis/<group>/<version>``: its resource name and
scope), then read whole, at most ``MAX_OBJECT_BYTES``; a Secret is read as ``PartialObjectMetadata``
(metadata and managedFields only), so its data never leaves the API server. Every failure is the
object's reason (``not attributed: <reason>``), never an exception and never a guess; the whole read
has one deadline.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import MAX_OBJECT_BYTES
from argocd_lifecycle.generators.fleet.prober import ClusterClient, RequestFailed

#: a discovery document of one group/version (apps/v1 is about 5 KiB; the core group about 15 KiB)
DISCOVERY_BYTES = 512 * 1024
#: of the whole read of one episode
DEADLINE = 30.0

Read = Mapping[str, Any] | str


def _group_version(ref: ObjectRef) -> str:
    version = ref.version or "v1"
    return f"/api/{version}" if not ref.group else f"/apis/{ref.group}/{version}"


class ObjectReader:
    """Discovery cached per group/version for the life of the reader (one episode, or one command)."""

    def __init__(self, client: ClusterClient) -> None:
        self.client = client
        self._discovery: dict[str, dict[str, tuple[str, bool]] | str] = {}

    async def _resources(self, base: str) -> dict[str, tuple[str, bool]] | str:
        known = self._discovery.get(base)
        if known is not None:
            return known
        found: dict[str, tuple[str, bool]] | str
        try:
            status, body = await self.client.get(base, DISCOVERY_BYTES)
            if status != 200:
                found = f"{base}: HTTP {status}"
            else:
                doc = json.loads(body)
                found = {
                    r["kind"]: (r["name"], r.get("namespaced") is True)
                    for r in (doc.get("resources") or [] if isinstance(doc, dict) else [])
                    if isinstance(r, dict)
                    and isinstance(r.get("kind"), str)
                    and isinstance(r.get("name"), str)
                    and "/" not in r["name"]
                }
        except RequestFailed as exc:
            found = str(exc)
        except (ValueError, RecursionError, AttributeError, TypeError):
            found = f"{base}: the discovery answer is not a resource list"
        self._discovery[base] = found
        return found

    async def read(self, ref: ObjectRef) -> Read:
        base = _group_version(ref)
        resources = await self._resources(base)
        if isinstance(resources, str):
            return f"cluster not readable: {resources}"
        if ref.kind not in resources:
            return f"{base} serves no kind {ref.kind}"
        plural, namespaced = resources[ref.kind]
        name = urllib.parse.quote(ref.name, safe="")
        if namespaced:
            if not ref.namespace:
                return f"{ref.kind} is namespaced and the Application names no namespace for it"
            path = f"{base}/namespaces/{urllib.parse.quote(ref.namespace, safe='')}/{plural}/{name}"
        else:
            path = f"{base}/{plural}/{name}"
        try:
            status, body = await self.client.get(path, MAX_OBJECT_BYTES, once=True, metadata=ref.is_secret)
        except RequestFailed as exc:
            return f"cluster not readable: {exc}"
        if status == 404:
            return "not found in the cluster"
        if status != 200:
            return f"cluster not readable: {path.split('?')[0]}: HTTP {status}"
        try:
            obj = json.loads(body)
        except (ValueError, RecursionError):
            return "the API answered something that is not JSON"
        return obj if isinstance(obj, dict) else "the API answered something that is not an object"

    async def read_all(self, refs: Sequence[ObjectRef], deadline: float = DEADLINE) -> dict[ObjectRef, Read]:
        """Every object, one after another on the client's one connection, within ``deadline``."""
        reads: dict[ObjectRef, Read] = {}
        try:
            async with asyncio.timeout(deadline):
                await self.client.authenticate()
                for ref in refs:
                    reads[ref] = await self.read(ref)
        except TimeoutError:
            pass
        except RequestFailed as exc:
            return dict.fromkeys(refs, f"cluster not readable: {exc}")
        for ref in refs:
            reads.setdefault(ref, f"cluster not readable: the read took over its {deadline:g}s deadline")
        return reads
