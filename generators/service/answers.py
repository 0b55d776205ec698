"""Answers to getparams.execute: safety checks, then cached parameter sets as ready-made JSON bytes.

Argo CD asks every ``requeueAfterSeconds`` per ApplicationSet (and once per parent in a matrix), and
the fleet changes only on transitions, so the work is done once per fleet change: per-cluster
parameter sets are kept while the ClusterState objects are unchanged, and each distinct input's answer
is kept as encoded JSON until the fleet changes. ClusterState is frozen, so an inventory that keeps
its objects is detected unchanged by identity; one that rebuilds them is compared by value.

An input with a ``rollout`` is answered from that cached answer (the mass-drop guard judges it as it
is) with each set's ``rollout.*`` added from the rollout's plan at this moment: a rollout changes
revisions, never which clusters are answered.
"""

from __future__ import annotations

import gzip
import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.generators.fleet.view import (
    Baseline,
    ClusterState,
    FleetView,
    HoldReporter,
    Placement,
    RememberedAnswers,
)
from argocd_lifecycle.generators.rollout.errors import RolloutUnavailable
from argocd_lifecycle.generators.rollout.machine import Decision
from argocd_lifecycle.generators.rollout.spec import RolloutSpec
from argocd_lifecycle.generators.rollout.summary import RolloutSummary
from argocd_lifecycle.generators.service.admission import admitted
from argocd_lifecycle.generators.service.errors import NotPlaced, Unavailable
from argocd_lifecycle.generators.service.guard import DEFAULT_SETTLE, Fleet, MassDropGuard
from argocd_lifecycle.generators.service.inputs import GeneratorInput, ParamsRequest
from argocd_lifecycle.generators.service.params import AppSetParams, ClusterParams, cluster_params, output_parameters
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Phase

MAX_CACHED_ANSWERS = 256


@dataclass(frozen=True)
class Snapshot:
    generation: int
    clusters: tuple[ClusterState, ...]
    params: tuple[ClusterParams, ...]

    @cached_property
    def identities(self) -> frozenset[tuple[str, str]]:
        return frozenset((c.server, c.name) for c in self.clusters)

    @cached_property
    def decommissioning(self) -> frozenset[tuple[str, str]]:
        return frozenset((c.server, c.name) for c in self.clusters if c.phase is Phase.DECOMMISSIONING)


class Rollouts(Protocol):
    """Plans a rollout (generators/rollout/keeper.py): each answered cluster's decision by name; and
    what it holds of each rollout, for the fleet page and ``GET /api/v1/rollouts``."""

    def plan(self, appset: str, spec: RolloutSpec, clusters: Sequence[ClusterState]) -> Mapping[str, Decision]: ...

    def summaries(self) -> Sequence[RolloutSummary]: ...


def _encode(chosen: list[ClusterParams], wanted: GeneratorInput, appset: AppSetParams | None) -> bytes:
    output: dict[str, Any] = {"output": {"parameters": output_parameters(chosen, wanted, appset)}}
    return json.dumps(output, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True)
class Answer:
    body: bytes
    clusters: tuple[ClusterState, ...]
    params: tuple[ClusterParams, ...] = ()
    #: the ApplicationSet the answer names (``applicationSet.*``), None without a placement
    appset: AppSetParams | None = None

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(c.name for c in self.clusters)

    @cached_property
    def identities(self) -> frozenset[tuple[str, str]]:
        return frozenset((c.server, c.name) for c in self.clusters)

    @cached_property
    def gzipped(self) -> bytes:
        """Compressed once per answer: Argo CD's Go client asks for gzip and inflates transparently."""
        return gzip.compress(self.body, compresslevel=6, mtime=0)


class ParamsCache:
    """Per-cluster parameter sets of the last fleet seen, and encoded answers for that fleet."""

    def __init__(self, policy: PolicyTable) -> None:
        self._policy = policy
        self._snapshot = Snapshot(0, (), ())
        self._seen: list[ClusterState] = []
        self._answers: OrderedDict[str, Answer] = OrderedDict()

    def refresh(self, clusters: list[ClusterState]) -> Snapshot:
        old = self._snapshot
        # list equality runs in C and checks identity before value, so an unchanged fleet costs microseconds
        if clusters == self._seen:
            return old
        self._seen = list(clusters)
        # The old snapshot holds its objects alive, so an id found here is the very same object.
        by_id = {id(c): p for c, p in zip(old.clusters, old.params, strict=True)}
        by_name = {c.name: (c, p) for c, p in zip(old.clusters, old.params, strict=True)}
        params: list[ClusterParams] = []
        changed = len(clusters) != len(old.clusters)
        for i, cluster in enumerate(clusters):
            known = by_id.get(id(cluster))
            if known is None:
                previous = by_name.get(cluster.name)
                if previous is not None and previous[0] == cluster:
                    known = previous[1]
                else:
                    known = cluster_params(cluster, self._policy)
            changed = changed or old.clusters[i].name != cluster.name or known is not old.params[i]
            params.append(known)
        generation = old.generation + 1 if changed else old.generation
        if changed:
            self._answers.clear()
        self._snapshot = Snapshot(generation, tuple(clusters), tuple(params))
        return self._snapshot

    def answer(self, request: ParamsRequest, snapshot: Snapshot, placed: Placement | None = None) -> Answer:
        appset: AppSetParams | None = None
        if placed is not None:
            appset = {"namespace": placed.namespace, "name": placed.name, "project": placed.project}
        # the answer names its ApplicationSet, so two ApplicationSets with one input get two answers
        key = json.dumps([appset, request.answer_key], separators=(",", ":"))
        cached = self._answers.get(key)
        if cached is not None:
            self._answers.move_to_end(key)
            return cached
        wanted = request.input
        pairs = [(c, p) for c, p in zip(snapshot.clusters, snapshot.params, strict=True) if admitted(c, wanted)]
        chosen = [p for _, p in pairs]
        result = Answer(_encode(chosen, wanted, appset), tuple(c for c, _ in pairs), tuple(chosen), appset)
        self._answers[key] = result
        while len(self._answers) > MAX_CACHED_ANSWERS:
            self._answers.popitem(last=False)
        return result


class ParamsService:
    """Everything getparams.execute does after the request was authenticated and parsed."""

    def __init__(
        self,
        fleet: FleetView,
        policy: PolicyTable,
        *,
        max_staleness: float,
        max_drop_percent: float,
        baseline: Baseline | None = None,
        reporter: HoldReporter | None = None,
        settle: float = DEFAULT_SETTLE,
        rollouts: Rollouts | None = None,
    ):
        self.fleet = fleet
        self.rollouts = rollouts
        self.max_staleness = max_staleness
        self.cache = ParamsCache(policy)
        self.baseline: Baseline = baseline if baseline is not None else RememberedAnswers()
        self.guard = MassDropGuard(max_drop_percent, settle=settle, reporter=reporter)

    def _known(self) -> None:
        """503 unless the fleet and the guard's baseline are both known and fresh."""
        if not self.fleet.synced():
            raise Unavailable(
                "the cluster inventory has not listed the cluster Secrets yet; answering nothing rather "
                "than an empty list (which would delete Applications)"
            )
        if not self.baseline.synced():
            raise Unavailable(
                "the ApplicationSets and Applications of the watched namespaces have not been listed yet, so the "
                "mass-drop guard cannot tell what an answer would delete; answering nothing until they are"
            )
        for what, stale in (
            ("cluster Secret", self.fleet.stale_seconds()),
            ("Application", self.baseline.stale_seconds()),
        ):
            if stale > self.max_staleness:
                raise Unavailable(
                    f"the {what} watch has been broken for {stale:.0f}s (more than --max-staleness "
                    f"{self.max_staleness:g}s); answering nothing rather than from a view that may be out of date"
                )

    def place(self, request: ParamsRequest) -> Placement:
        """Where the request's ApplicationSet lives; 503 unless the baseline is known and places it."""
        self._known()
        where = self.baseline.place(request.appset, request.input.appset_namespace)
        if where.problem:
            raise NotPlaced(where.problem)
        return where

    def execute(self, request: ParamsRequest, where: Placement | None = None) -> Answer:
        """The answer to one request (``where``: its ``place``, when the caller placed it already)."""
        if where is None:
            where = self.place(request)
        else:
            self._known()
        snapshot = self.cache.refresh(self.fleet.clusters())
        result = self.cache.answer(request, snapshot, where)
        fleet = Fleet(
            answered=result.identities,
            known=snapshot.identities,
            decommissioning=snapshot.decommissioning,
            departed=self.fleet.departed(),
            drop_decommissioned=request.input.drop_decommissioned,
        )
        appset, baseline = where.key, self.baseline
        targets = baseline.targets(appset)
        try:
            self.guard.check(
                appset, targets, fleet, allow=request.input.allow_mass_drop,
                confirm=lambda: baseline.confirm(appset), project=where.project,
            )  # fmt: skip
        except LifecycleError as exc:
            if isinstance(exc, Unavailable):
                raise
            raise Unavailable(  # the fresh read failed: nothing is given that could not be checked
                f"mass-drop guard: cannot read the Applications of ApplicationSet {appset!r} to confirm a drop: "
                f"{exc.message}"
            ) from exc
        self.baseline.answered(appset, result.clusters)
        if request.input.rollout is None:
            return result
        return self._rolled(request, where, result, request.input.rollout)

    def _rolled(self, request: ParamsRequest, where: Placement, result: Answer, spec: RolloutSpec) -> Answer:
        """The answer with each set's ``rollout.*``: the same clusters, the revision each runs now."""
        if self.rollouts is None:
            raise Unavailable(
                "a rollout needs the Applications and the ApplicationSet's annotations (Kubernetes); "
                "with --clusters-from it cannot see what each cluster runs, so it answers nothing"
            )
        if where.key != where.name:  # a tenant's: the rollout state lives on the Argo CD namespace's ones
            raise Unavailable(
                f"ApplicationSet {where.key}: rollouts are kept for ApplicationSets in the Argo CD namespace "
                "only; answering nothing rather than rolling it without its state"
            )
        try:
            plan = self.rollouts.plan(where.name, spec, result.clusters)
        except RolloutUnavailable as exc:
            raise Unavailable(exc.message) from None
        chosen: list[ClusterParams] = []
        for cluster, params in zip(result.clusters, result.params, strict=True):
            d = plan[cluster.name]
            chosen.append({**params, "rollout": {"revision": d.revision, "wave": d.wave, "state": d.state.value}})
        return Answer(_encode(chosen, request.input, result.appset), result.clusters, tuple(chosen), result.appset)
