"""Run an upstream tool (helm, kustomize) as an argv list and turn failures into one clear error.

The tool's output is read with a cap (a chart can print without end), its stderr is masked before it is
trimmed (a trimmed secret would escape the mask), and unless remote sources are allowed the tool gets an
environment in which any network fetch fails at once: proxies that refuse every connection and no git
transport.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from argocd_lifecycle.errors import ToolError
from argocd_lifecycle.yaml.yamlio import format_size

#: keep the tail of a tool's stderr: the useful line is usually last, and the UI has little room
_MAX_STDERR = 1500
#: stderr kept in memory (its tail), masked before it is trimmed to _MAX_STDERR
_STDERR_WINDOW = 64 * 1024
TOOL_TIMEOUT_SECONDS = 120
#: a proxy that refuses every connection (port 1 on loopback: nothing listens there)
DEAD_PROXY = "http://127.0.0.1:1"
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def tool_env(*, offline: bool) -> dict[str, str]:
    env = dict(os.environ)
    # Helm wants writable cache/config folders; the sidecar's HOME may be read-only, /tmp is its own
    # emptyDir. The folder tempfile.gettempdir() would pick there, without importing tempfile (shutil,
    # random) and writing its probe file at every render.
    base = Path(os.environ.get("TMPDIR") or "/tmp") / "argocd-lifecycle-helm"  # noqa: S108
    for var, sub in (
        ("HELM_CACHE_HOME", "cache"),
        ("HELM_CONFIG_HOME", "config"),
        ("HELM_DATA_HOME", "data"),
    ):
        env.setdefault(var, str(base / sub))
    if offline:
        # a second wall behind the kustomization check: HTTP(S) fetches go to a dead proxy, git may use
        # no transport at all (GIT_ALLOW_PROTOCOL lists the allowed ones: none)
        env.update(dict.fromkeys(_PROXY_VARS, DEAD_PROXY))
        env.update({"NO_PROXY": "", "no_proxy": "", "GIT_ALLOW_PROTOCOL": "none", "GIT_TERMINAL_PROMPT": "0"})
    return env


def trim(stderr: str) -> str:
    lines = [ln.rstrip() for ln in stderr.strip().splitlines() if ln.strip()]
    text = " | ".join(lines[-6:])
    return text if len(text) <= _MAX_STDERR else "..." + text[-_MAX_STDERR:]


def _collect(proc: subprocess.Popen[bytes], tool: str, max_output: int) -> tuple[bytes, bytes]:
    """stdout (at most ``max_output`` bytes) and the tail of stderr; kills the tool past either bound."""
    assert proc.stdout is not None and proc.stderr is not None
    out: list[bytes] = []
    size = 0
    err = b""
    deadline = time.monotonic() + TOOL_TIMEOUT_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        selector.register(proc.stderr, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                proc.kill()
                raise ToolError(f"{tool} did not finish within {TOOL_TIMEOUT_SECONDS}s")
            for key, _ in selector.select(timeout=remaining):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.fileobj is proc.stdout:
                    size += len(chunk)
                    if size > max_output:
                        proc.kill()
                        raise ToolError(
                            f"{tool} printed more than {format_size(max_output)}; refused (parameter maxOutputBytes)"
                        )
                    out.append(chunk)
                else:
                    err = (err + chunk)[-_STDERR_WINDOW:]
    return b"".join(out), err


class Overlap(Protocol):
    """What a renderer does around its running tool, as one object: ``meanwhile`` while the tool runs
    (checks that need not hold it back, imports for reading its output), ``failed`` when it failed,
    before its message is masked (it may teach ``mask`` more secrets), and ``done`` once the tool is
    reaped or could not start (temporary files)."""

    def mask(self, text: str) -> str: ...
    def meanwhile(self) -> None: ...
    def failed(self) -> None: ...
    def done(self) -> None: ...


@dataclass(frozen=True)
class MaskOnly:
    """The overlap of a tool whose renderer only masks its messages."""

    masker: Callable[[str], str] = str

    def mask(self, text: str) -> str:
        return self.masker(text)

    def meanwhile(self) -> None:
        return None

    def failed(self) -> None:
        return None

    def done(self) -> None:
        return None


class RunningTool:
    """A started tool. ``output()`` first does its overlap's ``meanwhile`` work and then waits for the
    tool; leaving the ``with`` block kills a tool still running, so an error on the way discards it."""

    def __init__(self, tool: str, proc: subprocess.Popen[bytes], *, max_output: int, overlap: Overlap) -> None:
        self.tool, self._proc, self._max_output, self._overlap = tool, proc, max_output, overlap
        self._done = False

    def __enter__(self) -> RunningTool:
        return self

    @property
    def pid(self) -> int:
        return self._proc.pid

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is None:
            proc.kill()
        with proc:  # closes the pipes and reaps the process
            pass
        if not self._done:
            self._done = True
            self._overlap.done()

    def output(self) -> str:
        """The tool's stdout; raise ToolError with its own message, masked (the overlap's ``failed`` runs
        first: it may teach ``mask`` more secrets)."""
        self._overlap.meanwhile()
        proc = self._proc
        try:
            stdout, stderr = _collect(proc, self.tool, self._max_output)
        finally:
            if proc.poll() is None:
                proc.kill()
        code = proc.wait()
        if code != 0:
            self._overlap.failed()
            message = trim(self._overlap.mask(stderr.decode("utf-8", "replace"))) or "no message"
            raise ToolError(f"{self.tool} failed (exit {code}): {message}")
        try:
            return stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"{self.tool} printed text that is not UTF-8 (byte {exc.start})") from exc


def start_tool(
    tool: str,
    argv: list[str],
    *,
    cwd: Path,
    max_output: int,
    overlap: Overlap,
    offline: bool = True,
) -> RunningTool:
    """Start ``argv`` (argv[0] is the binary, looked up on PATH) with its output piped to us; every
    check that decides whether it may run must have passed before this is called."""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=tool_env(offline=offline),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError as exc:
        overlap.done()
        if exc.filename == str(cwd):  # pragma: no cover - the app folder was found a moment ago
            raise ToolError(f"{tool} could not be started: {exc.strerror}") from exc
        raise ToolError(
            f"{tool} not found ({argv[0]!r}); install it or set ARGOCD_LIFECYCLE_{tool.upper()} "
            "to its path (`make tools` builds the pinned version)"
        ) from exc
    except OSError as exc:
        overlap.done()
        raise ToolError(f"{tool} could not be started: {exc.strerror}") from exc
    return RunningTool(tool, proc, max_output=max_output, overlap=overlap)
