"""Chaos soak of deletion safety on the e2e platform (``make soak``; a short run is in the e2e tier).

Real etcd, kube-apiservers, Argo CD's ApplicationSet, application and notifications controllers, two
``generator serve`` replicas with leader election and the receiver (tests/harness/fleet.py),
with many loopback clusters. Random events, drawn with a seeded generator so a seed repeats the same
sequence: outage, flap, recovery, upgrade, generator restart, leader failover, Secret deleted after a
decommission, Secret deleted without one, several Secrets deleted at once, selector edit, label change;
plus the upkeep a fleet needs (a deleted cluster registered again, a held answer released by restoring
what was lost or by ``allowMassDrop``). Two ApplicationSets are guarded over the same clusters: the
soak's own in the Argo CD namespace, whose input the selector edits change, and a tenant's in team-a
(``team-a/fleet``, its input fixed, its held answers routed to team-a's destination). After every event
it checks every Application Argo CD deleted, of both, against the model's verdict (soak_model.py) and
waits for the system to settle.

    python -m tests.e2e.soak --seed 1 --events 500 --clusters 30     # results on stdout, progress on stderr

``--events`` counts the listed kinds only; the upkeep events come on top.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tests.e2e.soak_analysis import Episodes, outage_episodes
from tests.e2e.soak_model import AWAY, HOME, OWN, TENANT, Model, Verdict
from tests.harness import argocd
from tests.harness.fleet import APPSET, COUNTED, PREFIX, SELECTED, Rig
from tests.harness.guard import HELD, DeletionWatch, appset_error, held_messages
from tests.harness.procs import HarnessError, wait_until
from tests.harness.services import TEAM_A, TEAM_A_PATH

WEIGHTS = {
    "outage": 12, "flap": 7, "recovery": 12, "upgrade": 6, "generator restart": 3, "leader failover": 3,
    "Secret deleted after decommission": 5, "Secret deleted without it": 5, "several Secrets deleted at once": 4,
    "selector edit": 5, "label change": 7,
}  # fmt: skip
UPKEEP = ("cluster registered again", "held answer released")
SETTLE_TIMEOUT = 60.0
COOLDOWN = 20.0  # seconds between a cluster's recovery and its next outage, so episodes stay apart
#: where each guarded ApplicationSet lives: (namespace, name)
APPSETS = {OWN: (argocd.NAMESPACE, APPSET), TENANT: (TEAM_A, "fleet")}
#: where the receiver delivers held answers: the catch-all, and team-a's own destination
HELD_PATHS = ("/alerts", TEAM_A_PATH)


@dataclass
class Report:
    seed: int
    clusters: int
    counts: Counter[str] = field(default_factory=Counter)
    deletions: Counter[str] = field(default_factory=Counter)
    wrongful: list[str] = field(default_factory=list)
    held_expected: int = 0
    held_told: int = 0
    #: of held_told: the tenant's, delivered to team-a's destination and nowhere else
    held_told_tenant: int = 0
    held_tenant_elsewhere: int = 0
    held_events: int = 0
    #: deletions of the tenant's Applications, by reason (part of ``deletions``)
    tenant_deletions: Counter[str] = field(default_factory=Counter)
    refusals: float = 0.0
    unsettled: int = 0
    episodes: Episodes | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        e = self.episodes
        routed = not self.held_tenant_elsewhere
        return not self.wrongful and routed and e is not None and e.max_down <= 1 and e.max_recovered <= 1

    def lines(self) -> list[str]:
        issue = sum(n for k, n in self.counts.items() if k in WEIGHTS)
        e = self.episodes or Episodes()
        return [
            f"seed {self.seed}: {self.clusters} clusters, {sum(self.counts.values())} events ({issue} of the "
            f"listed kinds, {self.counts['cluster registered again']} re-registrations, "
            f"{self.counts['held answer released']} releases) in {self.seconds / 60:.1f} min",
            "events: " + ", ".join(f"{k} {self.counts[k]}" for k in [*WEIGHTS, *UPKEEP]),
            f"deletions after an explicit departure: {self.deletions['explicit departure']}",
            f"deletions in an allowed drop: {self.deletions['drop within the threshold']} within the threshold, "
            f"{self.deletions['allowMassDrop']} with allowMassDrop",
            f"wrongful deletions: {len(self.wrongful)}" + "".join(f"\n  {w}" for w in self.wrongful),
            f"outage episodes: {e.count}; messages per episode: down {e.histogram('down')}, "
            f"recovered {e.histogram('recovered')} (max {e.max_down} and {e.max_recovered}); "
            f"ClusterUnreachable repeated within an episode {e.repeated}, alerts outside any {e.unattributed}"
            + "".join(f"\n  {x}" for x in e.extra),
            f"guard refusals: {self.refusals:.0f} (held episodes expected {self.held_expected}, told "
            f"{self.held_told}, MassDropHeld Events {self.held_events})",
            f"tenant {'/'.join(APPSETS[TENANT])}: deletions {dict(sorted(self.tenant_deletions.items()))}, held "
            f"answers told to team-a's destination {self.held_told_tenant}, elsewhere {self.held_tenant_elsewhere}",
            f"unsettled waits: {self.unsettled}",
            "result: " + ("PASS" if self.ok else "FAIL"),
        ]


class Soak:
    def __init__(self, rig: Rig, seed: int, events: int, progress: TextIO = sys.stderr) -> None:
        self.rig, self.rng, self.events, self.progress = rig, random.Random(seed), events, progress
        self.model = Model(sorted(rig.clusters))
        self.report = Report(seed, len(rig.clusters))
        self.watches: dict[str, DeletionWatch] = {}
        self.seen = dict.fromkeys(APPSETS, 0)
        self.current = (0, "start")  # the event under way, for the deletions judged during it
        self.recovered_at: dict[str, float] = {}
        self.told_before = len(held_messages(rig, HELD_PATHS))
        self.events_before = self._held_events()
        self.refused_before = rig.total(COUNTED[0])
        self.by_server = {f.url: name for name, f in rig.clusters.items()}
        # every listed kind once first, in a seeded order, so that a short run covers them all
        self.first = self.rng.sample(list(WEIGHTS), len(WEIGHTS))

    # -- the run ---------------------------------------------------------------------------------------
    def run(self) -> Report:
        started = time.monotonic()
        self._tenant_up()
        self.watches = {key: DeletionWatch(self.rig, *where) for key, where in APPSETS.items()}
        listed, index = 0, 0
        while listed < self.events:  # upkeep events come on top of the listed kinds
            kind = self._pick()
            index += 1
            listed += kind in WEIGHTS
            self.report.counts[kind] += 1
            self._log(f"event {index} ({listed}/{self.events} of the listed kinds): {kind}")
            self.current = (index, kind)
            self._do(kind)
            self._check(index, kind)
        for name in sorted(self.model.down):  # the fleet whole again before the messages are counted
            self._recover(name)
        time.sleep(20)  # late alerts of the last episodes
        self._check(index, "end")
        for w in self.watches.values():
            w.close()
        self._tenant_down()
        r = self.report
        r.seconds = time.monotonic() - started
        held = held_messages(self.rig, HELD_PATHS)
        r.held_told = len(held) - self.told_before
        tenant = [m for m in held if (m.body.get("event") or {}).get("namespace") == TEAM_A]
        r.held_told_tenant = sum(m.path == TEAM_A_PATH for m in tenant)
        r.held_tenant_elsewhere = len(tenant) - r.held_told_tenant
        r.held_events = self._held_events() - self.events_before
        r.refusals = self.rig.total(COUNTED[0]) - self.refused_before
        r.episodes = outage_episodes(self.rig.sink.messages(), self.by_server)
        return r

    def _log(self, message: str) -> None:
        self.progress.write(f"[soak {time.strftime('%H:%M:%S')}] {message}\n")
        self.progress.flush()

    def _tenant_up(self) -> None:
        """The tenant's ApplicationSet, over the same clusters as the soak's own at the start: its input
        names its namespace and never changes."""
        namespace, name = APPSETS[TENANT]
        parameters = {**SELECTED, "applicationSetNamespace": namespace}
        self.rig.platform.mgmt.apply(self.rig.tenant_appset(name, namespace, parameters))
        want = self.model.expected_apps(TENANT, self._admitted())
        what = f"{len(want)} Applications of {namespace}/{name}"
        wait_until(lambda: self._apps(TENANT) == want, timeout=120, what=what)
        self._log(f"tenant ApplicationSet {namespace}/{name}: {len(want)} Applications")

    def _tenant_down(self) -> None:
        namespace, name = APPSETS[TENANT]
        self.rig.platform.mgmt.delete("argoproj.io/v1alpha1", "ApplicationSet", name, namespace)

    def _held_events(self) -> int:
        return sum(self.rig.appset_events("MassDropHeld", namespace) for namespace, _ in APPSETS.values())

    def _pick(self) -> str:
        m = self.model
        if m.holding and self.rng.random() < 0.4:
            return "held answer released"
        for kind in list(self.first):  # one not possible yet (a recovery before any outage) waits its turn
            if self._possible(kind):
                self.first.remove(kind)
                return kind
        missing = [c for c in m.clusters if c not in m.present]
        if missing and (len(m.present) < 0.7 * len(m.clusters) or self.rng.random() < 0.08):
            return "cluster registered again"
        kinds = [k for k in WEIGHTS if self._possible(k)]
        return self.rng.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]

    def _possible(self, kind: str) -> bool:
        m = self.model
        if kind == "recovery":
            return bool(m.down)
        if kind in ("outage", "flap"):
            return bool(self._calm()) and len(m.down) < len(m.clusters) // 2
        if kind in ("Secret deleted after decommission", "Secret deleted without it", "label change", "upgrade"):
            return bool(self._steady())
        if kind == "several Secrets deleted at once":
            return len(self._steady()) >= 2
        return True

    def _steady(self) -> list[str]:
        """Registered clusters no other event is changing right now."""
        m = self.model
        return sorted(m.present - m.decommissioning - m.upgrading)

    def _calm(self) -> list[str]:
        now = time.monotonic()
        return [c for c in self._steady() if c not in self.model.down and now - self.recovered_at.get(c, 0) > COOLDOWN]

    def _do(self, kind: str) -> None:
        actions: dict[str, Callable[[], None]] = {
            "outage": self._outage, "flap": self._flap,
            "recovery": lambda: self._recover(self._choice(self.model.down)),
            "upgrade": self._upgrade, "generator restart": self._restart, "leader failover": self._failover,
            "Secret deleted after decommission": self._decommission_delete,
            "Secret deleted without it": lambda: self._delete([self._choice(self._steady())]),
            "several Secrets deleted at once": self._mass_delete, "selector edit": self._selector_edit,
            "label change": self._label_change, "cluster registered again": self._register_again,
            "held answer released": self._release,
        }  # fmt: skip
        try:
            actions[kind]()
        except HarnessError as exc:  # a wait that ran out: noted, the run goes on
            dead = [p.name for p in self.rig.platform.sup.processes if not p.alive()]
            if dead:  # a component that died (a replica that cannot start): what follows would prove nothing
                raise HarnessError(f"{', '.join(dead)} died during event {self.current[0]} ({kind}): {exc}") from None
            self.report.unsettled += 1
            self._log(f"  not settled: {exc}")

    def _choice(self, names: set[str] | list[str]) -> str:
        return self.rng.choice(sorted(names))

    # -- events ----------------------------------------------------------------------------------------
    def _outage(self) -> None:
        name = self._choice(self._calm())
        self._log(f"  {name} down")
        self.rig.clusters[name].down()
        self.model.down.add(name)

    def _recover(self, name: str) -> None:
        self._log(f"  {name} up")
        self.rig.clusters[name].up()
        self.model.down.discard(name)
        self.recovered_at[name] = time.monotonic()

    def _flap(self) -> None:
        name = self._choice(self._calm())
        forward = self.rig.clusters[name]
        for _ in range(self.rng.randint(3, 5)):
            forward.down()
            time.sleep(self.rng.uniform(0.3, 1.5))
            forward.up()
            time.sleep(self.rng.uniform(0.3, 1.5))
        self.recovered_at[name] = time.monotonic()

    def _upgrade(self) -> None:
        m = self.model
        if m.upgrading and self.rng.random() < 0.6:
            name = self._choice(m.upgrading)
            self.rig.annotate(name, PREFIX + "upgrade-to", None)  # done: Ready again after the gate's probes
            m.upgrading.discard(name)
        else:
            name = self._choice(self._steady())
            self.rig.annotate(name, PREFIX + "upgrade-to", "1.35")
            m.upgrading.add(name)

    def _restart(self) -> None:
        index = self.rng.randrange(len(self.rig.replicas))
        self.rig.stop_replica(index, kill=self.rng.random() < 0.5)
        self.rig.start_replica(index)

    def _failover(self) -> None:
        leader = self.rig.leader()
        index = next((i for i, r in enumerate(self.rig.replicas) if r.identity == leader), 0)
        self.rig.stop_replica(index, kill=True)  # the Lease is not given up: the other waits for it to expire
        self.rig.start_replica(index)

    def _decommission_delete(self) -> None:
        """The README's procedure: annotate, wait for the phase (and, unless the answer is held, for the
        Application to carry it), then delete the Secret."""
        name = self._choice(self._steady())
        self.model.decommissioning.add(name)
        self.rig.annotate(name, PREFIX + "decommission", "true")
        wait_until(lambda: self.rig.phases().get(name) == "Decommissioning", timeout=30, what=f"{name} Decommissioning")
        if name in self._apps(OWN) and not self.model.inputs[OWN].held:
            wait_until(lambda: _phase_of(self.rig.applications().get(name)) == "Decommissioning", timeout=45,
                       what=f"the Application of {name} to carry Decommissioning")  # fmt: skip
        self.model.depart(name)
        self._delete([name])

    def _delete(self, names: list[str]) -> None:
        before = self._snapshot()
        self._log(f"  deleting the Secrets of {', '.join(sorted(names))}")
        self.rig.delete_secrets(names)
        for name in names:
            self.model.present.discard(name)
            self.model.upgrading.discard(name)
        self._judge_and_settle(before)

    def _mass_delete(self) -> None:
        steady = self._steady()
        k = self.rng.randint(2, max(2, len(steady) * 3 // 4))  # a good share of them more than half
        self._delete(self.rng.sample(steady, k))

    def _selector_edit(self) -> None:
        choices = [frozenset({"sook"}), frozenset({AWAY}), frozenset({HOME, AWAY}), frozenset({HOME})]
        selector = self.rng.choice([s for s in choices if s != self.model.inputs[OWN].selector])
        allow = self.rng.random() < 0.25 and not selector >= {HOME}
        self._apply(selector, allow)
        if allow:  # the drop was meant: back to a guarded input, from the new baseline
            self._apply(selector, False)

    def _apply(self, selector: frozenset[str], allow: bool, before: dict[str, set[str]] | None = None) -> None:
        """A new input of the soak's own ApplicationSet (the tenant's never changes)."""
        before = self._snapshot() if before is None else before
        self._log(f"  input: env in {sorted(selector)}" + (", allowMassDrop" if allow else ""))
        own = self.model.inputs[OWN]
        own.selector, own.allow = selector, allow
        parameters: dict[str, Any] = {
            "labelSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": sorted(selector)}]}
        }
        if allow:
            parameters["allowMassDrop"] = True
        self.rig.apply_appset(parameters)
        self._judge_and_settle(before)

    def _label_change(self) -> None:
        before, name = self._snapshot(), self._choice(self._steady())
        self.model.env[name] = AWAY if self.model.env[name] == HOME else HOME
        self._log(f"  {name}: env={self.model.env[name]}")
        self.rig.label(name, self.model.env[name])
        self._judge_and_settle(before)

    def _register_again(self) -> None:
        """A deleted cluster comes back (several when the fleet has shrunk below 70 %)."""
        m, before = self.model, self._snapshot()
        missing = sorted(c for c in m.clusters if c not in m.present)
        low = len(m.present) < 0.7 * len(m.clusters)
        back = self.rng.sample(missing, max(1, len(missing) // 2) if low else 1)
        self._log(f"  registering {', '.join(sorted(back))}")
        for name in back:
            m.env[name] = HOME
            self.rig.register(name)
            m.present.add(name)
            m.departed.discard(name)  # a decommissioned cluster back is a new one (the gate again)
        # through the gate first (those that answer probes), so their Applications exist before the next
        # event: a verdict is made on the Applications there are
        reachable = [n for n in back if n not in m.down]
        wait_until(lambda: set(reachable) <= self._admitted(), timeout=SETTLE_TIMEOUT, what="the readiness gate")
        now = self._snapshot()
        self._judge_and_settle({key: apps | now[key] for key, apps in before.items()})

    def _release(self) -> None:
        """The way out of a held answer: restore what was lost, or accept the drop with allowMassDrop (the
        soak's own input only: a held tenant is released by restoring)."""
        m, before = self.model, self._snapshot()
        if m.inputs[TENANT].held or self.rng.random() < 0.7:
            self._log("  restoring what was lost")
            for name in sorted(set(m.clusters) - m.present - m.departed):
                self.rig.register(name)
                m.present.add(name)
            for name in sorted(c for c in m.present if m.env[c] != HOME):
                m.env[name] = HOME
                self.rig.label(name, HOME)
            self._apply(frozenset({HOME}), False, before)
        else:
            self._apply(m.inputs[OWN].selector, True, before)
            self._apply(m.inputs[OWN].selector, False)

    # -- verdicts and checks ---------------------------------------------------------------------------
    def _apps(self, appset: str = OWN) -> set[str]:
        return set(self.rig.applications(*APPSETS[appset]))

    def _snapshot(self) -> dict[str, set[str]]:
        return {key: self._apps(key) for key in APPSETS}

    def _admitted(self) -> set[str]:
        return {n for n, s in self.rig.cluster_secrets().items()
                if (s["metadata"].get("annotations") or {}).get(PREFIX + "admitted") == "true"}  # fmt: skip

    def _judge_and_settle(self, before: dict[str, set[str]]) -> None:
        """``before``: each ApplicationSet's Applications before the change (taken first: an allowed drop
        is answered at once, and Argo CD may delete while the verdict is still being made)."""
        marks = dict(self.seen)  # this change's deletions come after what was judged before it
        for key, apps in before.items():
            was = self.model.inputs[key].held
            verdict: Verdict = self.model.judge(key, apps)
            if verdict.held and not was:
                self.report.held_expected += 1
            if verdict.lost:
                self._log(f"  {'/'.join(APPSETS[key])} loses {len(verdict.lost)} of {verdict.targets} "
                          f"({verdict.percent:.0f}%): " + ("held" if verdict.held else "given"))  # fmt: skip
        for key, apps in before.items():
            namespace, name = APPSETS[key]
            if self.model.inputs[key].held:
                held = lambda: HELD in appset_error(self.rig, name, namespace)  # noqa: E731
                wait_until(held, timeout=SETTLE_TIMEOUT, what=f"the hold on {namespace}/{name}")
                continue
            what = f"Argo CD's Applications of {namespace}/{name} to follow the answer"
            wait_until(lambda: self._apps(key) == self.model.expected_apps(key, self._admitted()),
                       timeout=SETTLE_TIMEOUT, what=what)  # fmt: skip
            self._judge_deletions(key, apps - self._apps(key), marks[key])
            self.model.settled(key, self._admitted())

    def _judge_deletions(self, key: str, gone: set[str], mark: int) -> None:
        """Before ``settled`` takes a permission back: wait for ``key``'s watch to deliver the deletions of
        the Applications the list no longer shows (a watch event may come after the list, or only at the
        next re-list), counted from ``mark`` (judging the other ApplicationSet's may have judged some of
        these already), and judge them with the permissions they were made under."""

        def delivered() -> bool:
            return gone <= {self.by_server.get(d.server, d.server) for d in self.watches[key].since(mark)}

        try:
            where = "/".join(APPSETS[key])
            wait_until(delivered, timeout=SETTLE_TIMEOUT, what=f"the watch to deliver the deletions of {where}")
        except HarnessError as exc:  # judged at the next check instead
            self.report.unsettled += 1
            self._log(f"  not settled: {exc}")
        self._check(*self.current)

    def _check(self, index: int, kind: str) -> None:
        for key, watch in self.watches.items():
            given = self.model.inputs[key]
            for deletion in watch.since(self.seen[key]):
                self.seen[key] += 1
                name = self.by_server.get(deletion.server, deletion.server)
                reason = given.permitted.get(name)
                if reason is None:
                    m = self.model
                    state = (f"present={name in m.present} env={m.env.get(name)} selector={sorted(given.selector)} "
                             f"departed={name in m.departed} allow={given.allow}")  # fmt: skip
                    where = "/".join(APPSETS[key])
                    self.report.wrongful.append(f"event {index} ({kind}): {where} {deletion.app} of {name} ({state})")
                    self._log(f"  WRONGFUL deletion of {where} {deletion.app}: {state}")
                    continue
                self.report.deletions[reason] += 1
                if key == TENANT:
                    self.report.tenant_deletions[reason] += 1
                if reason == "explicit departure":
                    del given.permitted[name]


def _phase_of(app: dict[str, Any] | None) -> str:
    return str(((app or {}).get("metadata", {}).get("annotations") or {}).get(PREFIX + "cluster-phase", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, action="append", help="repeatable: one run per seed (default 1)")
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--clusters", type=int, default=30)
    args = parser.parse_args(argv)
    import shutil
    import tempfile

    from tests.harness import paths
    from tests.harness.fleet import start_rig
    from tests.harness.platform import start_platform
    from tests.harness.sink import Sink

    failed = 0
    for seed in args.seed or [1]:
        artifacts = paths.REPO / "test-artifacts" / "soak" / f"seed-{seed}"
        shutil.rmtree(artifacts, ignore_errors=True)
        artifacts.mkdir(parents=True)
        with tempfile.TemporaryDirectory(prefix="soak-") as scratch:
            platform = start_platform(Path(scratch), artifacts, lambda m: print(f"[soak] {m}", file=sys.stderr))
            sink = Sink()
            try:
                rig = start_rig(platform, sink, args.clusters)
                report = Soak(rig, seed, args.events).run()
                rig.close()
                wall = time.time() - time.monotonic()  # what reached the sink, for a look afterwards
                with (artifacts / "sink-messages.jsonl").open("w") as out:
                    for m in sink.messages():
                        out.write(json.dumps({"path": m.path, "at": m.received + wall, "body": m.body}) + "\n")
            finally:
                sink.close()
                platform.stop()
        text = "\n".join(report.lines())
        (artifacts / "report.txt").write_text(text + "\n")
        print(text, flush=True)
        failed += not report.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
