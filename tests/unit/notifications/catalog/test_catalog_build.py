"""The catalog builder: names, sources, settings, and one clear error per broken source."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import CatalogError, CatalogSettings, build, source_dir

CATALOG_TRIGGERS = {
    "on-sync-failed-removed-api",
    "on-out-of-sync-too-long",
    "on-health-degraded-too-long",
    "on-health-recovered",
    "on-self-heal",
    "on-cluster-unreachable",
    "on-cluster-recovered",
    "on-cluster-upgrading",
    "on-cluster-upgraded",
    "on-cluster-decommissioning",
    "on-cluster-upgrade-blocked",
    "on-drift-unreconciled",
    "on-drift-reconciled",
}


def test_the_catalog_has_exactly_the_triggers_and_one_template_each() -> None:
    catalog = build()
    assert {t.name for t in catalog.triggers} == CATALOG_TRIGGERS
    for trigger in catalog.triggers:
        assert "." not in trigger.name
        assert trigger.templates == (trigger.name.replace("on-", "lifecycle-", 1),)
    assert {t.name for t in catalog.templates} == {t.templates[0] for t in catalog.triggers}
    data = catalog.data()
    assert sorted(data) == sorted(
        [f"trigger.{t}" for t in CATALOG_TRIGGERS] + [f"template.{t.name}" for t in catalog.templates]
    )
    for key, value in data.items():
        parsed = yaml.safe_load(value)
        assert isinstance(parsed, list if key.startswith("trigger.") else dict), key


def test_every_template_carries_every_destination_field() -> None:
    for template in build().templates:
        fields = template.fields
        assert set(fields) == {"message", "email", "slack", "teams", "webhook"}
        assert fields["email"]["subject"]
        assert {"attachments", "groupingKey"} <= set(fields["slack"])
        assert {"title", "text", "themeColor", "facts", "potentialAction"} <= set(fields["teams"])
        hook = fields["webhook"]["argocd-lifecycle"]
        assert hook["method"] == "POST"
        assert "toJson (dict" in hook["body"]


def test_thresholds_reach_the_expressions_and_the_messages() -> None:
    catalog = build(CatalogSettings(out_of_sync_minutes=45, degraded_minutes=7, fresh_minutes=3, webhook_service="hub"))
    data = catalog.data()
    assert ">= 45 * time.Minute" in data["trigger.on-out-of-sync-too-long"]
    assert ">= 7 * time.Minute" in data["trigger.on-health-degraded-too-long"]
    assert "< 3 * time.Minute" in data["trigger.on-self-heal"]
    assert "more than 45 minutes" in data["template.lifecycle-out-of-sync-too-long"]
    assert all("\n  hub:\n" in data[f"template.{t.name}"] for t in catalog.templates)
    assert "Bearer $hub-token" in catalog.webhook_service_example


def test_unused_variables_are_pruned_from_each_field() -> None:
    template = next(t for t in build().templates if t.name == "lifecycle-cluster-unreachable")
    grouping = template.fields["slack"]["groupingKey"]
    assert "$health" not in grouping and "$msg" not in grouping
    assert grouping.splitlines()[-1] == '{{ printf "argocd-lifecycle/%s" $appRef }}'


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"out_of_sync_minutes": 0}, "out-of-sync-minutes: expected whole minutes"),
        ({"degraded_minutes": True}, "degraded-minutes"),
        ({"fresh_minutes": 10_081}, "fresh-minutes"),
        ({"webhook_service": "argocd.lifecycle"}, "webhook-service: .* without dots"),
        ({"webhook_service": "Hub"}, "lower-case"),
    ],
)
def test_bad_settings_name_the_setting(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        CatalogSettings(**kwargs)  # type: ignore[arg-type]


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(source_dir(), root)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_broken_sources_name_the_file(sources: Path) -> None:
    trig = sources / "triggers" / "on-self-heal.yaml.j2"
    edit(trig, "severity: info", "severity: urgent")
    with pytest.raises(CatalogError, match=r"triggers/on-self-heal.yaml.j2: severity 'urgent' is not one of"):
        build(root=sources)
    edit(trig, "severity: urgent", "severity: << settings.no_such_setting >>")
    with pytest.raises(CatalogError, match=r"triggers/on-self-heal.yaml.j2: .*no_such_setting"):
        build(root=sources)


def test_source_names_without_dots(sources: Path) -> None:
    (sources / "triggers" / "on-self-heal.yaml.j2").rename(sources / "triggers" / "on.self-heal.yaml.j2")
    with pytest.raises(CatalogError, match=r"triggers/on.self-heal.yaml.j2: name must be"):
        build(root=sources)


def test_a_template_nobody_sends_and_a_missing_template(sources: Path) -> None:
    shutil.copy(sources / "templates" / "lifecycle-self-heal.yaml.j2", sources / "templates" / "orphan.yaml.j2")
    with pytest.raises(CatalogError, match=r"templates/orphan.yaml.j2: no trigger sends it"):
        build(root=sources)
    (sources / "templates" / "orphan.yaml.j2").unlink()
    (sources / "templates" / "lifecycle-self-heal.yaml.j2").unlink()
    with pytest.raises(CatalogError, match=r"send templates that have no source: lifecycle-self-heal"):
        build(root=sources)


def test_jinja_syntax_error_points_at_the_line(sources: Path) -> None:
    edit(sources / "_expr.j2", "<%- endmacro %>", "<%- endmacr %>")
    with pytest.raises(CatalogError, match=r"_expr.j2:\d+ \(included from triggers/"):
        build(root=sources)


def test_rendered_text_must_be_yaml_with_the_known_keys(sources: Path) -> None:
    edit(sources / "triggers" / "on-self-heal.yaml.j2", "conditions:", "extra: 1\nconditions:")
    with pytest.raises(CatalogError, match=r"on-self-heal.yaml.j2: expected keys"):
        build(root=sources)
