"""What probing a 5,000-node cluster costs: bytes and seconds per probe, ours side by side with a revision before.

A loopback HTTPS stand-in serves ``/version``, ``/readyz`` and the node list as a kube-apiserver does:
whole Node objects of a busy cluster (labels, annotations, managed fields, 50 images each) paged by
``limit``/``continue``, or the server-side Table form when the request asks for it (``Accept:
application/json;as=Table;v=v1;g=meta.k8s.io``, rows without objects for ``includeObject=None``).
Each prober runs in a child process (``Prober``, default settings) that probes one cluster a minute's
worth of periods (6 at the default 10 s) back to back and reports, per probe, the bytes its connection
read (counted in httpcore's network stream, under TLS) and the seconds it took. ``--before REV`` runs the
same child on the prober of that revision (exported with ``git archive``, as bench_probe_bounds.py does).

Usage: .venv/bin/python benchmarks/bench_probe_nodes.py [--before f2a3c6f] [--nodes 5000] [--smoke]
``--smoke`` runs the same code on 200 nodes, without --before (what `make test` runs); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from httpcore._backends.anyio import AnyIOStream
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import benchmarks.bench_probe_bounds as bounds  # noqa: E402
from argocd_lifecycle.cluster_secrets import parse_secret  # noqa: E402
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings  # noqa: E402
from tests.integration.generators.loopback import CertAuthority, ServerThread, cluster_secret, free_port  # noqa: E402

#: probes per child: a minute of periods at the default --probe-interval 10s
PERIODS = 6
COLUMNS = (
    "Name",
    "Status",
    "Roles",
    "Age",
    "Version",
    "Internal-IP",
    "External-IP",
    "OS-Image",
    "Kernel-Version",
    "Container-Runtime",
)


def node(i: int) -> dict[str, Any]:
    """One Node of a busy cluster as the API serves it (about 12 KB of JSON)."""
    name = f"ip-10-{i // 250}-{i % 250}-7.eu-west-1.compute.internal"
    images = [
        {
            "names": [
                f"registry.example.test/team-{j}/service-{j}@sha256:{'ab' * 32}",
                f"registry.example.test/team-{j}/service-{j}:v1.{j}.{i % 7}",
            ],
            "sizeBytes": 48_000_000 + j,
        }
        for j in range(50)
    ]
    fields = {"f:metadata": {"f:labels": {f"f:label-{k}": {} for k in range(12)}}, "f:status": {"f:images": {}}}
    return {
        "metadata": {
            "name": name,
            "uid": f"{i:08d}-0000-4000-8000-000000000000",
            "resourceVersion": str(100_000 + i),
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "labels": {f"node.example.test/label-{k}": f"value-{k}-{i % 3}" for k in range(12)},
            "annotations": {f"node.alpha.kubernetes.io/a-{k}": "x" * 40 for k in range(5)},
            "managedFields": [
                {
                    "manager": m,
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2026-11-01T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": fields,
                }
                for m in ("kubelet", "kube-controller-manager", "aws-node")
            ],
        },
        "spec": {"podCIDR": f"10.{i // 250}.{i % 250}.0/24", "providerID": f"aws:///eu-west-1a/i-{i:017x}"},
        "status": {
            "capacity": {"cpu": "16", "memory": "64Gi", "pods": "110", "ephemeral-storage": "100Gi"},
            "allocatable": {"cpu": "15890m", "memory": "62Gi", "pods": "110", "ephemeral-storage": "92Gi"},
            "conditions": [
                {
                    "type": t,
                    "status": "True" if t == "Ready" else "False",
                    "lastHeartbeatTime": "2026-12-01T00:00:00Z",
                    "lastTransitionTime": "2026-11-01T00:00:00Z",
                    "reason": f"Kubelet{t}",
                    "message": f"kubelet {t}",
                }
                for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
            ],
            "addresses": [
                {"type": "InternalIP", "address": f"10.{i // 250}.{i % 250}.7"},
                {"type": "Hostname", "address": name},
            ],
            "nodeInfo": {
                "kubeletVersion": "v1.29.3",
                "kubeProxyVersion": "v1.29.3",
                "osImage": "Amazon Linux 2023",
                "kernelVersion": "6.1.0-amzn",
                "containerRuntimeVersion": "containerd://1.7.11",
                "architecture": "amd64",
                "operatingSystem": "linux",
            },
            "images": images,
        },
    }


class StandIn:
    """The kube-apiserver answers the prober asks for, pages built once and kept as bytes."""

    def __init__(self, count: int) -> None:
        self.nodes = [node(i) for i in range(count)]
        self._pages: dict[tuple[bool, bool, int, int], bytes] = {}

    def page(self, table: bool, objects: bool, offset: int, limit: int) -> bytes:
        key = (table, objects, offset, limit)
        if key not in self._pages:
            chunk = self.nodes[offset : offset + limit]
            after = offset + limit
            meta: dict[str, Any] = {"resourceVersion": "200000"}
            if after < len(self.nodes):
                meta["continue"] = f"offset-{after}"
            if table:
                rows = [{"cells": self._cells(n), **({"object": self._partial(n)} if objects else {})} for n in chunk]
                columns = [
                    {"name": c, "type": "string", "format": "", "description": "", "priority": 0} for c in COLUMNS
                ]
                doc: dict[str, Any] = {
                    "kind": "Table",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": meta,
                    "columnDefinitions": columns,
                    "rows": rows,
                }
            else:
                doc = {"kind": "NodeList", "apiVersion": "v1", "metadata": meta, "items": chunk}
            self._pages[key] = json.dumps(doc, separators=(",", ":")).encode()
        return self._pages[key]

    @staticmethod
    def _cells(n: dict[str, Any]) -> list[str]:
        info = n["status"]["nodeInfo"]
        return [
            n["metadata"]["name"],
            "Ready",
            "<none>",
            "31d",
            info["kubeletVersion"],
            n["status"]["addresses"][0]["address"],
            "<none>",
            info["osImage"],
            info["kernelVersion"],
            info["containerRuntimeVersion"],
        ]

    @staticmethod
    def _partial(n: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": n["metadata"]}

    def app(self) -> Starlette:
        async def version(request: Request) -> Response:
            return JSONResponse({"major": "1", "minor": "29", "gitVersion": "v1.29.3", "platform": "linux/amd64"})

        async def readyz(request: Request) -> Response:
            return PlainTextResponse("ok")

        async def nodes(request: Request) -> Response:
            query = request.query_params
            limit = int(query.get("limit", "0")) or len(self.nodes)
            offset = int(query.get("continue", "offset-0").removeprefix("offset-"))
            table = "as=Table" in request.headers.get("accept", "")
            body = self.page(table, query.get("includeObject") != "None", offset, limit)
            return Response(body, media_type="application/json")

        routes = [Route("/version", version), Route("/readyz", readyz), Route("/api/v1/nodes", nodes)]
        return Starlette(routes=routes)


async def _probes(spec: dict[str, Any]) -> list[dict[str, Any]]:
    prober = Prober(ProberSettings(deadline=60.0, **spec["settings"]))
    secret = parse_secret(spec["secret"])
    out = []
    for _ in range(spec["periods"]):
        read, started = bounds._received[0], time.monotonic()
        result, _ = await prober.probe(secret)
        seconds = time.monotonic() - started
        outcome = result.error or getattr(result, "nodes_unknown", "") or f"{result.nodes_ready}/{result.nodes} Ready"
        out.append({"bytes": bounds._received[0] - read, "seconds": seconds, "outcome": outcome})
    await prober.aclose()
    return out


def child(spec_text: str) -> None:
    AnyIOStream.read = bounds._counting(AnyIOStream.read)  # type: ignore[method-assign]
    print(json.dumps(asyncio.run(_probes(json.loads(spec_text)))), flush=True)
    os._exit(0)


def run(secret: dict[str, Any], periods: int, path: Path | None) -> list[dict[str, Any]]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    spec = {"secret": secret, "periods": periods, "settings": {}}
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)], env=env, capture_output=True, text=True, check=True
    )
    report: list[dict[str, Any]] = json.loads(out.stdout.strip().splitlines()[-1])
    return report


def _size(n: float) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB"


def describe(name: str, probes: list[dict[str, Any]]) -> list[str]:
    first, rest = probes[0], probes[1:] or probes
    health = statistics.median(p["bytes"] for p in rest), statistics.median(p["seconds"] for p in rest)
    total = sum(p["bytes"] for p in probes)
    return [
        f"{name:<22} first probe (node facts)  {_size(first['bytes']):>10} {first['seconds'] * 1000:8.0f} ms"
        f"  {first['outcome'][:40]}",
        f"{name:<22} later probe (median)     {_size(health[0]):>10} {health[1] * 1000:8.0f} ms"
        f"  {rest[-1]['outcome'][:40]}",
        f"{name:<22} {len(probes)} probes (a minute)      {_size(total):>10}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--before", default="", help="also run the prober of this revision")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--child", default="")
    opts = parser.parse_args()
    if opts.child:
        child(opts.child)
    nodes, periods = (200, 2) if opts.smoke else (opts.nodes, PERIODS)
    stand_in = StandIn(nodes)
    with tempfile.TemporaryDirectory(prefix="bench-nodes-") as tmp:
        folder = Path(tmp)
        ca = CertAuthority("nodes-ca")
        cert, key = ca.issue("nodes-apiserver")
        (folder / "tls.crt").write_bytes(cert)
        (folder / "tls.key").write_bytes(key)
        port = free_port()
        server = ServerThread(stand_in.app(), port, certfile=folder / "tls.crt", keyfile=folder / "tls.key")
        server.start()
        secret = cluster_secret("big", f"https://127.0.0.1:{port}", "token-big", ca.pem)
        codes: list[tuple[str, Path | None]] = [("ours", None)]
        if opts.before and not opts.smoke:
            codes.insert(0, (f"before ({opts.before})", bounds.export(opts.before, folder / "before")))
        try:
            print(f"{nodes} nodes, {periods} probes back to back each", flush=True)
            for name, path in codes:
                for line in describe(name, run(secret, periods, path)):
                    print(line, flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
