"""Exec credential plugins, as client-go runs them for Argo CD (``plugin/pkg/client/auth/exec``).

A cluster Secret's ``execProviderConfig`` (or ``awsAuthConfig``, which Argo CD turns into
``argocd-k8s-auth aws ...``) names a command; client-go runs it with ``KUBERNETES_EXEC_INFO`` set to an
``ExecCredential`` (``spec.interactive: false``, since Argo CD never runs plugins interactively) and reads
an ``ExecCredential`` from its stdout: ``status.token`` or a client certificate and key, until
``status.expirationTimestamp`` or a 401.

Whoever may write a cluster Secret chooses the command, so only the commands the operator allowed run
(names, resolved in the folders the operator named; a path in the Secret must be that same file), as an
argv (never a shell), with no stdin, a minimal environment (``PATH``, ``HOME`` and the variables whose
names start with an allowed prefix, for cloud credentials such as IRSA's), a deadline, and a cap on
what it may print. A failure names the command and the Secret's install hint, never what the plugin
printed: its output may hold a token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from argocd_lifecycle.cluster_secrets import ExecPlugin
from argocd_lifecycle.errors import LifecycleError, UsageError
from argocd_lifecycle.times import parse_rfc3339

#: where the image keeps the plugins it ships (``argocd-k8s-auth``), and where the chart mounts the
#: ones an operator adds (an init container copies them into a shared volume, as for Argo CD's repo-server)
DEFAULT_PLUGIN_DIRS = ("/usr/local/libexec/argocd-lifecycle", "/custom-tools")
DEFAULT_ALLOWED = ("argocd-k8s-auth",)
#: the variables a cloud SDK reads its credentials and region from (IRSA, EKS Pod Identity, GKE, AKS)
DEFAULT_PASS_ENV = ("AWS_", "AZURE_", "GOOGLE_", "CLOUDSDK_")
#: an ExecCredential is a few KiB (a token, or a certificate and a key)
MAX_OUTPUT = 64 * 1024
#: a credential is used again only while it is valid this much longer (the probe that sends it takes time)
_EXPIRY_SKEW = 5.0
_MAX_TOKEN = 16 * 1024
_KIND = "ExecCredential"


class ExecCredentialError(LifecycleError):
    """The plugin could not give a credential; the message names the command, never its output."""


class ExecCredentialStatusWire(TypedDict, total=False):
    token: str
    clientCertificateData: str
    clientKeyData: str
    expirationTimestamp: str


class ExecCredentialWire(TypedDict, total=False):
    apiVersion: str
    kind: str
    status: ExecCredentialStatusWire


@dataclass(frozen=True)
class ExecSettings:
    """Which plugins may run and how: declared once (the generator's flags) and read at start-up."""

    allowed: tuple[str, ...] = DEFAULT_ALLOWED
    plugin_dirs: tuple[str, ...] = DEFAULT_PLUGIN_DIRS
    timeout: float = 10.0
    pass_env: tuple[str, ...] = DEFAULT_PASS_ENV
    max_output: int = MAX_OUTPUT

    def __post_init__(self) -> None:
        for name in self.allowed:
            if not name or "/" in name or name in (".", ".."):
                raise UsageError(f"--exec-allow {name!r}: a command name, not a path")
        if self.timeout <= 0:
            raise UsageError("--exec-timeout must be longer than 0s")

    def resolve(self, command: str) -> str:
        """The file to run for ``command``, or ExecCredentialError saying why it may not run."""
        name = os.path.basename(command)
        if name not in self.allowed:
            allowed = ", ".join(self.allowed) or "none"
            raise ExecCredentialError(
                f"exec plugin {_shown(command)} is not an allowed command (allowed: {allowed}; "
                "the chart's generator.exec.allowedCommands)"
            )
        for folder in self.plugin_dirs:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                if "/" in command and os.path.realpath(command) != os.path.realpath(path):
                    raise ExecCredentialError(f"exec plugin {_shown(command)}: allowed commands run from {path} only")
                return path
        raise ExecCredentialError(
            f"exec plugin {_shown(command)}: executable not found in {':'.join(self.plugin_dirs)}"
        )

    def environment(self, plugin: ExecPlugin, environ: Mapping[str, str]) -> dict[str, str]:
        """PATH (the plugin folders first), HOME, the allowed prefixes, the Secret's env, the exec info."""
        env = {k: v for k, v in environ.items() if k.startswith(self.pass_env) and self.pass_env}
        env["PATH"] = ":".join((*self.plugin_dirs, "/usr/local/bin", "/usr/bin", "/bin"))
        env["HOME"] = environ.get("HOME", "/tmp")  # noqa: S108 - what a plugin may write its cache under
        env.update(plugin.env)
        env["KUBERNETES_EXEC_INFO"] = exec_info(plugin.api_version)
        return env


def exec_info(api_version: str) -> str:
    """``KUBERNETES_EXEC_INFO`` as client-go encodes it for a non-interactive run without cluster info."""
    return json.dumps({"kind": _KIND, "apiVersion": api_version, "spec": {"interactive": False}}, separators=(",", ":"))


def _shown(command: str) -> str:
    """The command as a message names it: printable, bounded."""
    text = "".join(c if c.isprintable() else "?" for c in command)
    return text if len(text) <= 128 else text[:125] + "..."


@dataclass(frozen=True)
class IssuedCredential:
    """What one run of the plugin gave. The token and key never appear in reprs."""

    token: str = field(default="", repr=False)
    cert_pem: bytes = field(default=b"", repr=False)
    key_pem: bytes = field(default=b"", repr=False)
    #: the prober's clock (monotonic) at expiry; None: valid until the server refuses it
    expires: float | None = None

    def valid(self, now: float) -> bool:
        return self.expires is None or now + _EXPIRY_SKEW < self.expires


def parse_output(stdout: bytes, plugin: ExecPlugin, *, now_wall: float, now: float) -> IssuedCredential:
    """The ExecCredential a plugin printed, checked as client-go checks it."""
    where = f"exec plugin {_shown(plugin.command)}"
    try:
        data = json.loads(stdout)
    except (ValueError, RecursionError) as exc:
        raise ExecCredentialError(f"{where}: its output is not an ExecCredential (not JSON)") from exc
    if not isinstance(data, dict) or data.get("kind") != _KIND:
        raise ExecCredentialError(f"{where}: its output is not an ExecCredential")
    if data.get("apiVersion") != plugin.api_version:
        raise ExecCredentialError(
            f"{where}: configured for {plugin.api_version}, the plugin answered another apiVersion"
        )
    status = data.get("status")
    if not isinstance(status, dict):
        raise ExecCredentialError(f"{where}: the ExecCredential has no status")
    token, cert, key = (_string(status, k, where) for k in ("token", "clientCertificateData", "clientKeyData"))
    if not token and not cert and not key:
        raise ExecCredentialError(f"{where}: the ExecCredential holds no token and no client certificate")
    if bool(cert) != bool(key):
        raise ExecCredentialError(f"{where}: the ExecCredential holds only one of the certificate and the key")
    if len(token) > _MAX_TOKEN or any(ord(c) < 0x20 or ord(c) == 0x7F for c in token):
        raise ExecCredentialError(f"{where}: the token is not a header value")
    expires: float | None = None
    stamp = status.get("expirationTimestamp")
    if stamp is not None:
        if not isinstance(stamp, str):
            raise ExecCredentialError(f"{where}: status.expirationTimestamp is not a time")
        try:
            expires = now + (parse_rfc3339(stamp) - now_wall)
        except ValueError as exc:
            raise ExecCredentialError(f"{where}: status.expirationTimestamp is not an RFC 3339 time") from exc
    return IssuedCredential(token, cert.encode(), key.encode(), expires)


def _string(status: Mapping[str, Any], key: str, where: str) -> str:
    value = status.get(key) or ""
    if not isinstance(value, str):
        raise ExecCredentialError(f"{where}: status.{key} is not a string")
    return value


async def run_plugin(plugin: ExecPlugin, settings: ExecSettings, environ: Mapping[str, str]) -> bytes:
    """Run the plugin once; its stdout, at most ``max_output`` bytes, within ``timeout``."""
    path = settings.resolve(plugin.command)
    where = f"exec plugin {_shown(plugin.command)}"
    hint = f" ({plugin.install_hint})" if plugin.install_hint else ""
    try:
        proc = await asyncio.create_subprocess_exec(
            path,
            *plugin.args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=settings.environment(plugin, environ),
            start_new_session=True,  # its own process group: a timeout ends it and whatever it started
        )
    except OSError as exc:
        raise ExecCredentialError(f"{where}: cannot run it ({os.strerror(exc.errno or 0)}){hint}") from exc
    try:
        async with asyncio.timeout(settings.timeout):
            # a TaskGroup: when stdout goes past its cap, the stderr reader is cancelled too
            async with asyncio.TaskGroup() as tasks:
                out = tasks.create_task(_bounded(proc.stdout, settings.max_output, where))
                tasks.create_task(_bounded(proc.stderr, settings.max_output, ""))
            code = await proc.wait()
    except TimeoutError as exc:
        raise ExecCredentialError(f"{where}: no answer within {settings.timeout:g}s{hint}") from exc
    except ExceptionGroup as group:
        raise group.exceptions[0] from None
    finally:
        await _end(proc)
    if code != 0:
        # not its stderr: a plugin may print the token it failed to hand over
        raise ExecCredentialError(f"{where}: exited with status {code}{hint}")
    return out.result()


async def _bounded(stream: asyncio.StreamReader | None, limit: int, where: str) -> bytes:
    """The stream's bytes up to ``limit``; past it an error (stdout) or the rest dropped (stderr)."""
    if stream is None:
        return b""
    data = bytearray()
    while chunk := await stream.read(65536):
        if len(data) <= limit:
            data += chunk[: limit + 1 - len(data)]
        if len(data) > limit and where:
            raise ExecCredentialError(f"{where}: printed more than {limit // 1024} KiB")
    return bytes(data)


async def _end(proc: asyncio.subprocess.Process) -> None:
    """Kill the plugin's process group (whatever it started too) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()


class ExecCredentials:
    """One cluster's plugin credential: run when none is held or it expired, one run at a time, shared
    by every probe of the cluster; ``invalidate`` after a 401 makes the next use run it again."""

    def __init__(self, plugin: ExecPlugin, settings: ExecSettings, environ: Mapping[str, str] | None = None) -> None:
        self.plugin = plugin
        self.settings = settings
        self.environ = dict(os.environ if environ is None else environ)
        self._held: IssuedCredential | None = None
        self._lock = asyncio.Lock()
        #: how many times the plugin ran (the fleet's metric and the tests read it)
        self.runs = 0

    async def get(self) -> IssuedCredential:
        async with self._lock:
            held = self._held
            if held is not None and held.valid(time.monotonic()):
                return held
            self._held = None
            self.runs += 1
            out = await run_plugin(self.plugin, self.settings, self.environ)
            self._held = parse_output(out, self.plugin, now_wall=time.time(), now=time.monotonic())
            return self._held

    def invalidate(self, used: IssuedCredential) -> None:
        """The server refused ``used``: drop it, unless another probe already replaced it."""
        if self._held is used:
            self._held = None
