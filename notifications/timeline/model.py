"""Domain values of a timeline: lanes, the objects entries are about, entries and the timeline itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from argocd_lifecycle.errors import LifecycleError


class TimelineInputError(LifecycleError):
    """Files or API answers that cannot be read as Events, Applications or cluster Secrets (exit 1)."""


class Lane(StrEnum):
    """Rows of the story, top to bottom in every output."""

    OPERATION = "Operation"
    SYNC = "Sync"
    HEALTH = "Health"
    RESOURCE = "Resource"
    CLUSTER = "Cluster"
    #: the waves of the rollout of the ApplicationSet that owns the Application
    ROLLOUT = "Rollout"


LANES: tuple[Lane, ...] = tuple(Lane)


@dataclass(frozen=True, order=True)
class ObjectRef:
    """The object an entry is about (an Event's involvedObject/regarding)."""

    kind: str
    name: str
    namespace: str = ""
    api_version: str = ""

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}" if self.kind else self.name


@dataclass(frozen=True)
class Entry:
    """One thing that happened.

    ``time`` is when it happened (or began); ``last_time`` is when it ended or was last seen, equal
    to ``time`` for a point. A Kubernetes Event merged ``count`` times keeps only its first and last
    time: ``timestamps_lost`` says the occurrences in between cannot be placed.
    """

    time: datetime
    lane: Lane
    reason: str
    object: ObjectRef
    message: str
    source: str
    last_time: datetime
    count: int = 1
    type: str = "Normal"
    timestamps_lost: bool = False
    #: order among entries of the same instant (input order, or the Event name's nanoseconds)
    seq: int = field(default=0, compare=False)

    @property
    def is_span(self) -> bool:
        return self.last_time > self.time

    @property
    def is_warning(self) -> bool:
        return self.type == "Warning"


@dataclass(frozen=True)
class Destination:
    server: str = ""
    name: str = ""
    namespace: str = ""


@dataclass(frozen=True)
class Window:
    """The time range entries were kept from (``start`` None: no lower bound)."""

    since: str | None = None
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class Timeline:
    app: str
    namespace: str
    entries: tuple[Entry, ...]
    destination: Destination = Destination()
    project: str = ""
    window: Window = Window()
    #: one-line remarks for the reader (what was left out and why)
    notes: tuple[str, ...] = ()

    @property
    def first_time(self) -> datetime | None:
        return self.entries[0].time if self.entries else None

    def lane_entries(self, lane: Lane) -> list[Entry]:
        return [e for e in self.entries if e.lane is lane]
