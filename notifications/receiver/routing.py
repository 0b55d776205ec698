"""Label matching, shared by routes and silences, and the route walk."""

from __future__ import annotations

from collections.abc import Mapping

from argocd_lifecycle.notifications.receiver.config import Route


def matches(matchers: Mapping[str, frozenset[str]], labels: Mapping[str, str]) -> bool:
    """Every matcher key must hold one of its values; an empty matcher set matches anything."""
    return all(labels.get(key, "") in values for key, values in matchers.items())


def route(routes: tuple[Route, ...], labels: Mapping[str, str]) -> list[str]:
    """Receiver names for ``labels``: routes in order, stopping at the first match without ``continue``."""
    chosen: list[str] = []
    for candidate in routes:
        if matches(candidate.match, labels):
            if candidate.receiver not in chosen:
                chosen.append(candidate.receiver)
            if not candidate.continue_:
                break
    return chosen
