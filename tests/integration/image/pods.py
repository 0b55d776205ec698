"""A rendered pod's containers run from the image the way a kubelet runs them, without a kubelet.

For one container of a pod spec the chart renders, with a real kube-apiserver (etcd and
kube-apiserver of the e2e tier) holding the chart's objects:
- argv: its command, else the image's entrypoint, then its args, `$(VAR)` expanded from its env;
- env: values, the pod's fields (name, namespace, IP, service account), Secret and ConfigMap keys
  read from the API server, and KUBERNETES_SERVICE_HOST/PORT naming that API server;
- volumes: ConfigMap and Secret volumes written from the live objects (items, modes), emptyDir and
  persistentVolumeClaim folders writable by the pod's fsGroup, /etc/hosts, and the ServiceAccount's
  token (TokenRequest), ca.crt and namespace when the pod mounts them;
- run as uid/gid 999 on the image's read-only root (tools/image/run.sh), sharing this machine's
  loopback: it is the pod network here, where the API server and Redis answer as Services would.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.harness.image import Mount, container_argv
from tests.integration.chart.realapi import NAMESPACE, RealApi

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
POD_IP = "127.0.0.2"  # a loopback address of its own, as a pod has an IP other than 127.0.0.1
IMAGE_UID = 999  # tools/image/run.sh runs every container as 999:999
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


class PodError(AssertionError):
    """The pod could not be started as rendered: a kubelet would refuse it too."""


def expand(text: str, env: dict[str, str]) -> str:
    """The kubelet's `$(VAR)` expansion: defined names are replaced, `$$` is `$`, others stay."""

    def one(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        return env.get(match[1], match[0])

    return _REFERENCE.sub(one, text)


@dataclass
class Pod:
    api: RealApi
    root: Path
    name: str
    spec: dict[str, Any]
    folder: Path
    entrypoint: list[str]

    # --- what the API server holds ---

    def _object(self, kind: str, name: str) -> dict[str, Any] | None:
        return self.api.admin.get("v1", kind, name, NAMESPACE)

    def _keys(self, kind: str, name: str, optional: bool = False) -> dict[str, bytes]:
        found = self._object(kind, name)
        if found is None:
            if optional:
                return {}
            raise PodError(f"pod {self.name}: {kind} {name} does not exist (the kubelet would not start it)")
        if kind == "Secret":
            return {k: base64.b64decode(v) for k, v in (found.get("data") or {}).items()}
        binary = {k: base64.b64decode(v) for k, v in (found.get("binaryData") or {}).items()}
        return {**{k: v.encode() for k, v in (found.get("data") or {}).items()}, **binary}

    # --- env and argv ---

    def _field(self, path: str) -> str:
        fields = {
            "metadata.name": self.name,
            "metadata.namespace": NAMESPACE,
            "status.podIP": POD_IP,
            "spec.serviceAccountName": self.spec.get("serviceAccountName", "default"),
        }
        if path not in fields:
            raise PodError(f"pod {self.name}: fieldRef {path} is not emulated here")
        return fields[path]

    def env(self, container: dict[str, Any]) -> dict[str, str]:
        server = urlsplit(self.api.cluster.server)
        env = {"KUBERNETES_SERVICE_HOST": str(server.hostname), "KUBERNETES_SERVICE_PORT": str(server.port)}
        for source in container.get("envFrom") or []:
            kind, ref = (
                ("Secret", source["secretRef"]) if "secretRef" in source else ("ConfigMap", source["configMapRef"])
            )
            for key, value in self._keys(kind, ref["name"], ref.get("optional", False)).items():
                env[source.get("prefix", "") + key] = value.decode()
        for item in container.get("env") or []:
            if "value" in item:
                env[item["name"]] = expand(item["value"], env)
                continue
            source = item["valueFrom"]
            if "fieldRef" in source:
                env[item["name"]] = self._field(source["fieldRef"]["fieldPath"])
                continue
            kind, ref = (
                ("Secret", source["secretKeyRef"])
                if "secretKeyRef" in source
                else ("ConfigMap", source["configMapKeyRef"])
            )
            keys = self._keys(kind, ref["name"], ref.get("optional", False))
            if ref["key"] in keys:
                env[item["name"]] = keys[ref["key"]].decode()
            elif not ref.get("optional", False):
                raise PodError(f"pod {self.name}: {kind} {ref['name']} has no key {ref['key']}")
        return env

    def argv(self, container: dict[str, Any], env: dict[str, str]) -> list[str]:
        words = list(container.get("command") or self.entrypoint) + list(container.get("args") or [])
        return [expand(w, env) for w in words]

    # --- volumes ---

    def _security(self, container: dict[str, Any]) -> tuple[int, int]:
        pod = self.spec.get("securityContext") or {}
        own = container.get("securityContext") or {}
        user = own.get("runAsUser", pod.get("runAsUser"))
        if user != IMAGE_UID:
            raise PodError(f"pod {self.name}: runAsUser {user}: tools/image/run.sh runs containers as {IMAGE_UID}")
        return user, int(pod.get("fsGroup", pod.get("runAsGroup", 0)))

    def _files(self, folder: Path, keys: dict[str, bytes], volume: dict[str, Any], group: int) -> Path:
        folder.mkdir(parents=True)
        default = volume.get("defaultMode", 0o644)
        items = volume.get("items") or [{"key": k, "path": k} for k in sorted(keys)]
        for item in items:
            if item["key"] not in keys:
                if volume.get("optional"):
                    continue
                raise PodError(f"pod {self.name}: key {item['key']} is missing from the volume's object")
            path = folder / item["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(keys[item["key"]])
            path.chmod(item.get("mode", default))
            os.chown(path, 0, group)
        return folder

    def _volume(self, base: Path, volume: dict[str, Any], group: int) -> Path:
        """The folder holding a volume's files."""
        folder = base / "volumes" / volume["name"]
        if "secret" in volume:
            source = volume["secret"]
            keys = self._keys("Secret", source["secretName"], source.get("optional", False))
            return self._files(folder, keys, source, group)
        if "configMap" in volume:
            source = volume["configMap"]
            return self._files(
                folder, self._keys("ConfigMap", source["name"], source.get("optional", False)), source, group
            )
        if "emptyDir" in volume or "persistentVolumeClaim" in volume:
            folder.mkdir(parents=True)
            os.chown(folder, 0, group)
            folder.chmod(0o2775)  # fsGroup: the group owns the volume and what is made in it
            return folder
        raise PodError(f"pod {self.name}: volume {volume['name']} of an unknown type: {sorted(volume)}")

    def _service_account(self, base: Path, group: int) -> Path | None:
        account = self.spec.get("serviceAccountName", "default")
        automount = self.spec.get("automountServiceAccountToken")
        if automount is None:
            live = self._object("ServiceAccount", account) or {}
            automount = live.get("automountServiceAccountToken", True)
        if not automount:
            return None
        keys = {
            "token": self.api.token_for(account).encode(),
            "ca.crt": (self.api.cluster.folder / "ca.crt").read_bytes(),
            "namespace": NAMESPACE.encode(),
        }
        return self._files(base / "serviceaccount", keys, {}, group)

    def mounts(self, container: dict[str, Any]) -> list[Mount]:
        _, group = self._security(container)
        base = self.folder / container["name"]
        base.mkdir(parents=True, exist_ok=True)
        volumes = {v["name"]: v for v in self.spec.get("volumes") or []}
        made: dict[str, Path | None] = {}
        mounts = []
        for mount in container.get("volumeMounts") or []:
            volume = volumes.get(mount["name"])
            if volume is None:
                raise PodError(f"pod {self.name}: volumeMount {mount['name']} names no volume of the pod")
            if mount["name"] not in made:
                tmp = mount["mountPath"] == "/tmp" and "emptyDir" in volume
                made[mount["name"]] = None if tmp else self._volume(base, volume, group)
            folder = made[mount["name"]]
            if folder is None:
                continue
            source = folder / mount["subPath"] if mount.get("subPath") else folder
            ro = mount.get("readOnly", False) or "secret" in volume or "configMap" in volume
            mounts.append(Mount(source, mount["mountPath"], writable=not ro))
        hosts = base / "hosts"
        hosts.write_text(f"127.0.0.1\tlocalhost\n::1\tlocalhost\n{POD_IP}\t{self.name}\n")
        mounts.append(Mount(hosts, "/etc/hosts"))
        account = self._service_account(base, group)
        if account is not None:
            mounts.append(Mount(account, SERVICE_ACCOUNT_DIR))
        return mounts

    def command(self, container: dict[str, Any]) -> list[str]:
        """tools/image/run.sh's argv that runs the container."""
        env = self.env(container)
        mounts = self.mounts(container)
        return container_argv(
            self.root,
            self.argv(container, env),
            scratch=self.folder / container["name"] / "run",
            mounts=mounts,
            env=env,
            workdir=container.get("workingDir", "/tmp"),
        )

    def run(self, container: dict[str, Any], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(container), capture_output=True, text=True, timeout=timeout, check=False)
