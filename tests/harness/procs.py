"""Child processes of the harness: each logs to its own file and is stopped by its process id."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar

T = TypeVar("T")


class HarnessError(RuntimeError):
    """The harness could not start or reach a component; the message says which and why."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(probe: Callable[[], T | None], *, timeout: float, what: str, interval: float = 0.2) -> T:
    """Poll ``probe`` until it returns something other than None/False; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while True:
        try:
            result = probe()
            if result is not None and result is not False:
                return result
        except HarnessError:
            raise  # a component died: waiting longer cannot help
        except Exception as exc:
            last_error = exc
        if time.monotonic() >= deadline:
            detail = f" (last error: {last_error})" if last_error else ""
            raise HarnessError(f"timed out after {timeout:.0f}s waiting for {what}{detail}")
        time.sleep(interval)


@dataclass
class Process:
    name: str
    argv: list[str]
    log_path: Path
    popen: subprocess.Popen[bytes] = field(repr=False)
    _log: IO[bytes] = field(repr=False)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def check_alive(self) -> None:
        if not self.alive():
            raise HarnessError(
                f"{self.name} exited with code {self.popen.returncode}; see {self.log_path}:\n" + self.log_tail()
            )

    def log_tail(self, lines: int = 15) -> str:
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace").splitlines()
            return "\n".join(text[-lines:])
        return ""

    def terminate(self) -> None:
        """SIGTERM without waiting (an outage starts when the server stops answering, not when it exits)."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; always by this process's own id.

        kube-apiserver drains watches for 10-20 s and cmp-server ignores SIGTERM: a harness has no
        state worth that wait."""
        started = time.monotonic()
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.popen.wait(grace)
        took = time.monotonic() - started
        self._log.write(
            f"=== {time.strftime('%H:%M:%S')} stopped: exit code {self.popen.returncode} ({took:.1f}s)\n".encode()
        )
        self._log.close()


class Supervisor:
    """Starts processes with logs under one folder and stops every one of them, newest first."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        self.processes: list[Process] = []

    def start(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Process:
        log_path = self.log_dir / f"{name}.log"
        log = log_path.open("ab")
        log.write(f"=== {time.strftime('%H:%M:%S')} start: {' '.join(argv)}\n".encode())
        log.flush()
        full_env = {**os.environ, **(env or {})}
        try:
            popen = subprocess.Popen(
                list(argv),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=full_env,
                cwd=cwd,
            )
        except OSError as exc:
            log.close()
            raise HarnessError(f"cannot start {name} ({argv[0]}): {exc}") from exc
        proc = Process(name, list(argv), log_path, popen, log)
        self.processes.append(proc)
        return proc

    def wait_ready(self, proc: Process, probe: Callable[[], object], *, timeout: float) -> None:
        """Wait for ``probe`` to succeed while ``proc`` keeps running; its log tail explains a failure."""

        def check() -> object:
            proc.check_alive()
            return probe()

        try:
            wait_until(check, timeout=timeout, what=f"{proc.name} to become ready")
        except HarnessError as exc:
            if not proc.alive() or "exited with code" in str(exc):
                raise
            raise HarnessError(f"{exc}; last lines of {proc.log_path}:\n{proc.log_tail()}") from None

    def stop(self, proc: Process) -> None:
        proc.stop()
        if proc in self.processes:
            self.processes.remove(proc)

    def stop_all(self) -> None:
        for proc in reversed(self.processes):
            proc.stop()
        self.processes.clear()
