"""The preflight's verdicts: blocker, rewritten at render, deprecated; the APIs the upgrade drops."""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle.deprecations.knowledge import builtin, knowledge_base
from argocd_lifecycle.generators.preflight import sources
from argocd_lifecycle.generators.preflight.apps import read_application
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.report import Status, blocked_summary, headline

from .helpers import APPS_FILE, SECRETS_FILE, application, cluster_secret, resource

PLUGIN = {"name": "argocd-lifecycle-v1"}


def _story():  # type: ignore[no-untyped-def]
    inputs = sources.read_files([APPS_FILE, SECRETS_FILE])
    return evaluate(builtin(), resolve("prod-eu-1", inputs.secrets), inputs.apps, (1, 25))


def test_the_recorded_story_for_1_25() -> None:
    report = _story()
    seen = {(f.application, f.resource.kind, f.resource.name): f.status for f in report.findings}
    assert seen == {
        ("argocd/shop", "PodDisruptionBudget", "web"): Status.BLOCKER,
        ("argocd/shop", "PodSecurityPolicy", "restricted"): Status.BLOCKER,
        ("argocd/legacy", "CronJob", "nightly"): Status.BLOCKER,
        ("argocd/payments", "PodDisruptionBudget", "api"): Status.REWRITTEN,
        ("argocd/payments", "CronJob", "settle"): Status.REWRITTEN,
        ("argocd/discovered", "PodDisruptionBudget", "frontend"): Status.REWRITTEN,
        ("argocd/shop", "HorizontalPodAutoscaler", "web"): Status.DEPRECATED,
    }
    # staging-shop deploys elsewhere; payments is matched by destination name, discovered by server + "/"
    assert report.applications == ("argocd/discovered", "argocd/legacy", "argocd/new", "argocd/payments", "argocd/shop")
    assert report.current == (1, 24) and report.objects == 9
    assert [f.status for f in report.findings][:3] == [Status.BLOCKER] * 3  # blockers first
    assert any("list no resources yet: argocd/new" in n for n in report.notes)


def test_each_blocker_says_what_to_do() -> None:
    notes = {f.resource.kind + "/" + f.application: f for f in _story().blockers}
    assert notes["PodDisruptionBudget/argocd/shop"].note == "change the manifest in Git to policy/v1"
    assert notes["PodDisruptionBudget/argocd/shop"].replacement == "policy/v1"
    assert "Pod Security Admission" in notes["PodSecurityPolicy/argocd/shop"].note
    assert notes["CronJob/argocd/legacy"].note.startswith("the Application sets rewriteApis=false")


def test_the_apis_the_upgrade_drops_are_context() -> None:
    dropped = {(d.api_version, d.kind) for d in _story().dropped}
    assert ("policy/v1beta1", "PodSecurityPolicy") in dropped and ("batch/v1beta1", "CronJob") in dropped
    assert all(d.removed_in == "1.25" for d in _story().dropped)


def test_pairs_that_need_a_human_block_even_in_plugin_apps() -> None:
    app = read_application(
        application(
            "dra", [resource("resource.k8s.io/v1beta1", "ResourceClaim", "gpu")], plugin=PLUGIN, source_type="Plugin"
        ),
        "x",
    )
    report = evaluate(builtin(), resolve("prod", [cluster_secret()]), [app], (1, 38), current=(1, 37))
    assert [(f.status, f.note) for f in report.findings] == [
        (Status.BLOCKER, "needs a manual migration: requests moved under exactly")
    ]


def test_the_e2e_pair_vac_v1beta1_at_1_37() -> None:
    vac = [resource("storage.k8s.io/v1beta1", "VolumeAttributesClass", "fast", namespace="")]
    plain = read_application(application("plain", vac), "x")
    ours = read_application(application("ours", vac, plugin=PLUGIN, source_type="Plugin"), "x")
    report = evaluate(builtin(), resolve("prod", [cluster_secret()]), [plain, ours], (1, 37), current=(1, 34))
    assert [(f.application, f.status, f.replacement) for f in report.findings] == [
        ("argocd/plain", Status.BLOCKER, "storage.k8s.io/v1"),
        ("argocd/ours", Status.REWRITTEN, "storage.k8s.io/v1"),
    ]
    assert headline(report) == (
        "upgrade of prod to 1.37 blocked by 1 object(s) in 1 Application(s); "
        "1 object(s) rewritten at render by the plugin"
    )
    assert blocked_summary(report) == (
        "by project: default 1; argocd/plain: VolumeAttributesClass fast (storage.k8s.io/v1beta1)"
    )
    # served at 1.36: deprecated only, nothing blocks
    later = evaluate(builtin(), resolve("prod", [cluster_secret()]), [plain], (1, 36), current=(1, 34))
    assert [f.status for f in later.findings] == [Status.DEPRECATED] and not later.blockers


def test_users_rules_for_their_crds_count(tmp_path: Path) -> None:
    rules = tmp_path / "crds.yaml"
    rules.write_text(
        "apis:\n- {apiVersion: example.test/v1beta1, kind: Widget, removedIn: '1.30',\n"
        "   replacements: [{apiVersion: example.test/v1, since: '1.28'}]}\n"
    )
    kb = knowledge_base(rules)
    widget = [resource("example.test/v1beta1", "Widget", "w")]
    apps = [
        read_application(application("plain", widget), "x"),
        read_application(application("ours", widget, plugin=PLUGIN, source_type="Plugin"), "x"),
    ]
    report = evaluate(kb, resolve("prod", [cluster_secret()]), apps, (1, 30), current=(1, 29))
    assert [f.status for f in report.findings] == [Status.BLOCKER, Status.REWRITTEN]  # users' rules are renames
    assert ("example.test/v1beta1", "Widget") in {(d.api_version, d.kind) for d in report.dropped}


def test_unknown_or_newer_current_versions_say_so() -> None:
    report = evaluate(builtin(), resolve("prod", [cluster_secret()]), [], (1, 30))
    assert report.dropped == () and any("current version is unknown" in n for n in report.notes)
    assert any("no Application deploys to prod" in n for n in report.notes)
    report = evaluate(builtin(), resolve("prod", [cluster_secret()]), [], (1, 30), current=(1, 31))
    assert any("already runs 1.31" in n for n in report.notes)


def test_summaries_stay_bounded() -> None:
    many = [resource("policy/v1beta1", "PodDisruptionBudget", f"pdb-{i:03}-" + "x" * 40) for i in range(200)]
    report = evaluate(
        builtin(), resolve("prod", [cluster_secret()]), [read_application(application("big", many), "x")], (1, 25)
    )
    text = blocked_summary(report)
    assert len(text) <= 1024 and text.endswith("more")
    assert text.startswith("by project: default 200; argocd/big: PodDisruptionBudget shop/pdb-000")
    kept = text.count("argocd/big:")
    assert text.endswith(f"; and {200 - kept} more")
