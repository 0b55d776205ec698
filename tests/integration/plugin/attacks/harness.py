"""The attack corpus' harness: an attack is a repository layout, Argo CD's variables and the command the
sidecar would run; each runs as a fresh process under a memory limit and a time limit.

Placeholders in file contents and variables: ``@MARKER@`` (a file a successful payload would create),
``@OUTSIDE@`` (a folder outside the repository), ``@PORT@`` (a loopback HTTP server that records every
request), ``@CASE@`` (the attack's id, so requests can be told apart).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from tests.conftest import REPO, TOOLS_BIN

CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
#: the memory limit each attack runs under (KiB, for ulimit -v): 1.5 GiB
MEMORY_KIB = 1536 * 1024
TIME_LIMIT_SECONDS = 30


@dataclass(frozen=True)
class Link:
    """A symlink to ``target`` (placeholders allowed)."""

    target: str


@dataclass(frozen=True)
class Fifo:
    """A named pipe: reading it would block for ever."""


@dataclass(frozen=True)
class Script:
    """An executable file (a payload a tool could be tricked into running)."""

    text: str


@dataclass(frozen=True)
class Sparse:
    """A file of ``size`` bytes that takes no disk space."""

    size: int


Entry = str | Link | Fifo | Script | Sparse


@dataclass(frozen=True)
class Attack:
    id: str
    #: paths relative to the repository root; the app folder is ``app/``
    files: Mapping[str, Entry]
    env: Mapping[str, str] = field(default_factory=dict)
    #: ``generate`` or ``parameters``
    command: str = "generate"
    #: a text one ``error:`` line must hold; None: the attack must be neutralised (exit 0)
    refused: str | None = None
    #: for neutralised attacks: checks the parsed output (raises AssertionError); with ``refused`` too,
    #: either outcome is safe (how a scalar is typed is the YAML reader's business, not this corpus')
    check: Callable[[Any], None] | None = None
    #: texts that must appear on neither stream
    secrets: tuple[str, ...] = ()
    #: the repository root holds .git (kustomize's root)
    git: bool = True


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    marker_written: bool
    requests: tuple[str, ...]


class _Recorder(BaseHTTPRequestHandler):
    paths: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).paths.append(self.path)
        body = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def loopback_server() -> Iterator[tuple[int, list[str]]]:
    """A loopback HTTP server answering every GET with a ConfigMap; yields (port, requested paths)."""
    handler = type("Recorder", (_Recorder,), {"paths": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], handler.paths
    finally:
        server.shutdown()
        server.server_close()


def _fill(text: str, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def _build(root: Path, attack: Attack, values: Mapping[str, str]) -> None:
    (root / "app").mkdir(parents=True)
    for name, entry in attack.files.items():
        path = root / _fill(name, values)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(entry, Link):
            os.symlink(_fill(entry.target, values), path)
        elif isinstance(entry, Fifo):
            os.mkfifo(path)
        elif isinstance(entry, Sparse):
            with path.open("wb") as fh:
                fh.truncate(entry.size)
        else:
            text = entry.text if isinstance(entry, Script) else entry
            path.write_text(_fill(text, values), encoding="utf-8")
            if isinstance(entry, Script):
                path.chmod(0o755)


def run(attack: Attack, tmp: Path, port: int, requests: list[str]) -> Outcome:
    """Lay the attack out below ``tmp`` and run it as the sidecar would (cwd = the app folder)."""
    repo = tmp / "repo"
    values = {"MARKER": str(tmp / "payload-ran"), "OUTSIDE": str(tmp / "outside-folder"), "PORT": str(port)}
    values["CASE"] = attack.id
    _build(repo, attack, values)
    (tmp / "outside-folder").mkdir(exist_ok=True)
    (tmp / "outside-folder" / "values.yaml").write_text("leak: stolen-outside-value\n")
    if attack.git:
        (repo / ".git").mkdir()
    base = {"PATH": f"{TOOLS_BIN}:/usr/bin:/bin", "HOME": str(tmp / "home"), "TMPDIR": str(tmp)}
    env = {**base, "ARGOCD_APP_NAME": "shop", **{k: _fill(v, values) for k, v in attack.env.items()}}
    argv = ["bash", "-c", f'ulimit -v {MEMORY_KIB} && exec "$@"', "limit", CLI, "plugin", attack.command]
    try:
        proc = subprocess.run(
            argv, cwd=repo / "app", env=env, capture_output=True, text=True, timeout=TIME_LIMIT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{attack.id}: still running after {TIME_LIMIT_SECONDS}s") from exc
    mine = tuple(p for p in list(requests) if f"/{attack.id}/" in p)
    return Outcome(proc.returncode, proc.stdout, proc.stderr, (tmp / "payload-ran").exists(), mine)
