"""The memory of ``--clusters-from`` mode, in a JSON file beside the inventory.

In Kubernetes mode the fleet's memory lives in Kubernetes objects (phase annotations on the Secrets,
the Applications themselves). Cluster Secrets read from files have nowhere to keep it, so a restart
would send every admitted cluster back behind the readiness gate and give the mass-drop guard an empty
baseline. This file keeps, across restarts:

- ``phases``: the phase annotations the writer would have put on each Secret (resumed from, as
  Kubernetes mode resumes from the Secret's annotations);
- ``departures``: the clusters that left explicitly (Secret deleted while Decommissioning), by server;
- ``answers``: the clusters of the last answer given to each ApplicationSet (the guard's baseline).

It is written atomically, coalesced (a burst of transitions is one write); an unreadable or malformed
file stops the start-up with one message naming it, since starting from nothing is the bypass this
file exists to prevent.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.files import write_atomically
from argocd_lifecycle.generators.fleet.lifecycle import Tracked
from argocd_lifecycle.generators.fleet.view import RememberedAnswers, Target
from argocd_lifecycle.generators.fleet.writer import LogWriter, phase_annotations

log = logging.getLogger(__name__)

VERSION = 1
MAX_BYTES = 64 << 20
#: seconds a change may wait so that a burst of changes is written once
COALESCE = 0.2


def default_path(clusters_from: Path) -> Path:
    """``clusters/`` -> ``.clusters.lifecycle-state.json`` beside it (never inside the watched folder)."""
    resolved = clusters_from.resolve()
    return resolved.parent / f".{resolved.name}.lifecycle-state.json"


def _strings(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{where}: expected an object of strings")
    return dict(value)


def _answers(value: Any) -> dict[str, list[Target]]:
    if not isinstance(value, dict):
        raise ValueError("answers: expected an object")
    out: dict[str, list[Target]] = {}
    for appset, items in value.items():
        if not isinstance(items, list):
            raise ValueError(f"answers.{appset}: expected a list")
        fields = [_strings(item, f"answers.{appset}[{i}]") for i, item in enumerate(items)]
        out[str(appset)] = [Target(f.get("server", ""), f.get("name", "")) for f in fields]
    return out


class StateFile:
    """Implements the engine's ``Memory`` and, through ``answers``, the guard's ``Baseline``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._phases: dict[str, dict[str, str]] = {}
        self._departures: dict[str, str] = {}
        self.answers = RememberedAnswers(on_change=self.changed)
        self._pending: asyncio.TimerHandle | None = None
        self._problem = ""
        self._load()
        self.flush(strict=True)  # fail at start-up, naming the file, when it cannot be written

    def _load(self) -> None:
        try:
            if not self.path.exists():
                return
            if self.path.stat().st_size > MAX_BYTES:
                raise ValueError(f"larger than {MAX_BYTES >> 20} MiB")
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("version") != VERSION:
                raise ValueError(f"not a state file of version {VERSION}")
            phases = data.get("phases") or {}
            if not isinstance(phases, dict):
                raise ValueError("phases: expected an object")
            self._phases = {str(k): _strings(v, f"phases.{k}") for k, v in phases.items()}
            self._departures = _strings(data.get("departures") or {}, "departures")
            self.answers.load(_answers(data.get("answers") or {}))
        except (OSError, UnicodeDecodeError, ValueError, TypeError) as exc:
            raise ConfigError(
                f"state file {self.path}: {exc}; it holds the phases and the mass-drop guard's memory "
                "of --clusters-from: fix it, or delete it to start from nothing"
            ) from exc

    # -- the engine's Memory ----------------------------------------------------------------------
    def phase(self, secret_name: str) -> Mapping[str, str]:
        return self._phases.get(secret_name, {})

    def departures(self) -> Mapping[str, str]:
        return dict(self._departures)

    def departed(self, server: str, name: str) -> None:
        self._departures[server] = name
        self.changed()

    def returned(self, server: str) -> None:
        if self._departures.pop(server, None) is not None:
            self.changed()

    def forget(self, secret_name: str) -> None:
        if self._phases.pop(secret_name, None) is not None:
            self.changed()

    def record_phase(self, secret_name: str, annotations: dict[str, str]) -> None:
        if self._phases.get(secret_name) != annotations:
            self._phases[secret_name] = annotations
            self.changed()

    # -- writing ------------------------------------------------------------------------------------
    def changed(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._pending is None:
            self._pending = loop.call_later(COALESCE, self.flush)

    def flush(self, *, strict: bool = False) -> None:
        """Write now; ``strict`` (at start-up) turns a failure into a ConfigError, later it is logged."""
        self._pending = None
        document = {
            "version": VERSION,
            "phases": self._phases,
            "departures": self._departures,
            "answers": self.answers.dump(),
        }
        try:
            write_atomically(self.path, json.dumps(document, indent=1, sort_keys=True) + "\n", mode=0o600)
        except OSError as exc:
            problem = f"state file {self.path}: {exc.strerror or exc}"
            if strict:
                raise ConfigError(f"{problem} (give --state-file a writable path)") from exc
            if problem != self._problem:
                log.warning("%s; the phases and the guard's memory are not saved", problem)
            self._problem = problem
            return
        self._problem = ""


class StateWriter(LogWriter):
    """The ``--clusters-from`` writer: the same facts on stderr, and the phases into the state file."""

    def __init__(self, state: StateFile) -> None:
        self.state = state

    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        self.state.record_phase(secret.secret_name, phase_annotations(state))
        return await super().write_phase(secret, state)
