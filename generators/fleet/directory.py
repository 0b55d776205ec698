"""The clusters as the engine serves them (by Secret name, each a frozen ``ClusterState``) and the ones
whose Secret was deleted (``Departures``): what ``FleetView.clusters()`` lists and what ``identify``
fills a half-known cluster in from. Its own object, made before the engine that writes into it, so the
Applications index (which identifies the clusters its Applications name) can be built first and hand
the engine what it deploys to through the engine's constructor."""

from __future__ import annotations

from argocd_lifecycle.generators.fleet.departures import Departures
from argocd_lifecycle.generators.fleet.view import ClusterState


class Directory:
    def __init__(self, departures: Departures | None = None) -> None:
        self.departures = departures if departures is not None else Departures()
        self._states: dict[str, ClusterState] = {}
        self._view: list[ClusterState] | None = None
        self._maps: tuple[dict[str, str], dict[str, str]] | None = None  # server -> name, name -> server

    def clusters(self) -> list[ClusterState]:
        """Sorted by name, rebuilt only after a change."""
        if self._view is None:
            self._view = sorted(self._states.values(), key=lambda c: (c.name, c.secret_name))
        return self._view

    def get(self, secret_name: str) -> ClusterState | None:
        return self._states.get(secret_name)

    def put(self, state: ClusterState) -> None:
        self._states[state.secret_name] = state
        self._view = self._maps = None

    def pop(self, secret_name: str) -> ClusterState | None:
        self._view = self._maps = None
        return self._states.pop(secret_name, None)

    def identify(self, server: str, name: str) -> tuple[str, str]:
        """Fill in the server of a cluster known by name, or the name of one known by server, from the
        clusters known now and those removed (for the guard's baseline and its messages)."""
        if self._maps is None:
            states = self._states.values()
            self._maps = ({c.server: c.name for c in states}, {c.name: c.server for c in states})
        names, servers = self._maps
        if server and not name:
            removal = self.departures.get(server)
            return server, names.get(server) or (removal.name if removal else "")
        if name and not server:
            return servers.get(name) or self.departures.server_of(name), name
        return server, name
