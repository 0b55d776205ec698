"""A rollout's state between steps, and its form in the ``argocd-lifecycle.io/rollout`` annotation.

The leader writes the state on the ApplicationSet after each step that changed it, so a restart or a
failover resumes where the rollout was. The annotation is hostile like every input: at most 256 KiB,
every field checked; one that does not decode is a ``RolloutStateError`` (the rollout then starts over
from what the Applications run, which never moves a cluster backwards).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, TypedDict

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.model import PREFIX
from argocd_lifecycle.times import format_rfc3339, parse_rfc3339_datetime

#: the state, on the ApplicationSet; written only by the leader
STATE_ANNOTATION = PREFIX + "rollout"
#: pause, resume or abort, set by an operator on the ApplicationSet
CONTROL_ANNOTATION = PREFIX + "rollout-control"
MAX_STATE = 256 * 1024
MAX_HISTORY = 16
MAX_CLUSTERS = 10_000
_VERSION = 1


class RolloutStateError(LifecycleError):
    """The state annotation does not decode."""


class Status(StrEnum):
    ROLLING = "Rolling"
    BAKING = "Baking"
    PAUSED = "Paused"
    DONE = "Done"
    ABORTED = "Aborted"


class Control(StrEnum):
    NONE = ""
    PAUSE = "pause"
    RESUME = "resume"
    ABORT = "abort"


def control_of(text: str | None) -> Control:
    """The operator's annotation; anything else is no control (told by the caller, never acted on)."""
    try:
        return Control((text or "").strip().lower())
    except ValueError:
        return Control.NONE


@dataclass(frozen=True)
class RolloutState:
    revision: str
    #: what clusters ran before this rollout ("" when nothing ran): a waiting cluster without an
    #: Application of its own gets it
    previous: str
    status: Status
    #: index of the wave being rolled; ``len(waves)`` once the last wave baked
    wave: int
    since: datetime
    baked_since: datetime | None = None
    #: clusters given the revision: they keep it, whatever happens (a revision never moves backwards)
    given: frozenset[str] = frozenset()
    #: clusters whose failing Application a resume accepted: they pause the rollout again only after
    #: they recovered and failed anew
    acknowledged: frozenset[str] = frozenset()
    reason: str = ""
    #: revisions rolled out before this one, oldest first: rolling one of them again is a rollback
    history: tuple[str, ...] = ()
    #: a backwards revision refused (so it is told once)
    refused: str = ""


class RolloutStateWire(TypedDict):
    v: int
    revision: str
    previous: str
    status: str
    wave: int
    since: str
    bakedSince: str
    given: list[str]
    acknowledged: list[str]
    reason: str
    history: list[str]
    refused: str


def encode(state: RolloutState) -> str:
    wire: RolloutStateWire = {
        "v": _VERSION,
        "revision": state.revision,
        "previous": state.previous,
        "status": state.status.value,
        "wave": state.wave,
        "since": format_rfc3339(state.since),
        "bakedSince": format_rfc3339(state.baked_since) if state.baked_since is not None else "",
        "given": sorted(state.given),
        "acknowledged": sorted(state.acknowledged),
        "reason": state.reason,
        "history": list(state.history),
        "refused": state.refused,
    }
    return json.dumps(wire, separators=(",", ":"), ensure_ascii=False)


def decode(text: str) -> RolloutState:
    if len(text) > MAX_STATE:
        raise RolloutStateError(f"annotation {STATE_ANNOTATION}: longer than {MAX_STATE} characters")
    try:
        data = json.loads(text)
    except ValueError:
        raise RolloutStateError(f"annotation {STATE_ANNOTATION}: not JSON") from None
    except RecursionError:  # "[[[[..." within the size bound nests deeper than the parser recurses
        raise RolloutStateError(f"annotation {STATE_ANNOTATION}: nested too deeply") from None
    if not isinstance(data, dict) or data.get("v") != _VERSION:
        raise RolloutStateError(f"annotation {STATE_ANNOTATION}: not a version {_VERSION} rollout state")
    try:
        wave = data["wave"]
        if not isinstance(wave, int) or isinstance(wave, bool) or not 0 <= wave <= 64:
            raise ValueError("wave")
        baked = _text(data, "bakedSince")
        return RolloutState(
            revision=_text(data, "revision"),
            previous=_text(data, "previous"),
            status=Status(data["status"]),
            wave=wave,
            since=parse_rfc3339_datetime(_text(data, "since")),
            baked_since=parse_rfc3339_datetime(baked) if baked else None,
            given=frozenset(_names(data, "given", MAX_CLUSTERS)),
            acknowledged=frozenset(_names(data, "acknowledged", MAX_CLUSTERS)),
            reason=_text(data, "reason"),
            history=tuple(_names(data, "history", MAX_HISTORY)),
            refused=_text(data, "refused"),
        )
    except (KeyError, TypeError, ValueError):
        raise RolloutStateError(f"annotation {STATE_ANNOTATION}: a field is missing or of the wrong type") from None


def _text(data: dict[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str) or len(value) > 1024:
        raise ValueError(key)
    return value


def _names(data: dict[str, Any], key: str, most: int) -> list[str]:
    value = data[key]
    if not isinstance(value, list) or len(value) > most:
        raise ValueError(key)
    if not all(isinstance(v, str) and len(v) <= 253 for v in value):
        raise ValueError(key)
    return value
