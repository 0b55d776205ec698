"""The transform plan (plugin/transforms/plan.py): which steps run, in which order, from the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.deprecations import knowledge, table
from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.transforms.hpa import drop_autoscaled_replicas
from argocd_lifecycle.plugin.transforms.lifecycle import forbid_prune_and_delete
from argocd_lifecycle.plugin.transforms.plan import RewriteWhenNeeded, run
from argocd_lifecycle.plugin.transforms.rewrite_apis import RewriteApis
from argocd_lifecycle.plugin.transforms.validate_schemas import ValidateSchemas
from tests.unit.plugin.transforms.helpers import hpa, obj, planned


def test_switch_off_by_parameter(tmp_path: Path) -> None:
    assert drop_autoscaled_replicas in planned(tmp_path)
    steps = planned(tmp_path, ARGOCD_APP_PARAMETERS='[{"name":"hpaAwareReplicas","string":"false"}]')
    assert drop_autoscaled_replicas not in steps
    out = run(steps, [obj("Deployment", "web", replicas=3), hpa("Deployment", "web")], Diagnostics())
    assert out[0].obj["spec"]["replicas"] == 3


def test_everything_on_runs_rewrite_first_and_validation_last(tmp_path: Path) -> None:
    steps = planned(
        tmp_path,
        KUBE_VERSION="1.29",
        ARGOCD_ENV_CLUSTER_PHASE="Unreachable",
        ARGOCD_APP_PARAMETERS='[{"name":"validate","string":"true"}]',
    )
    assert [type(s) for s in steps] == [
        RewriteWhenNeeded,
        type(drop_autoscaled_replicas),
        type(forbid_prune_and_delete),
        ValidateSchemas,
    ]
    assert steps[1:3] == (drop_autoscaled_replicas, forbid_prune_and_delete)
    assert steps[3] == ValidateSchemas(((1, 29),))


def test_steps_switched_off_are_not_in_the_plan(tmp_path: Path) -> None:
    off = '[{"name":"rewriteApis","string":"false"},{"name":"hpaAwareReplicas","string":"false"}]'
    assert planned(tmp_path, ARGOCD_APP_PARAMETERS=off) == ()


def test_the_steps_get_typed_values_from_the_settings(tmp_path: Path) -> None:
    params = '[{"name":"onRemoved","string":"keep"},{"name":"validate","string":"true"}]'
    steps = planned(
        tmp_path,
        KUBE_VERSION="1.25",
        ARGOCD_ENV_CLUSTER_PHASE="Upgrading",
        ARGOCD_ENV_CLUSTER_UPGRADE_TO="1.26",
        KUBE_API_VERSIONS="v1,v1/ConfigMap",
        ARGOCD_APP_PARAMETERS=params,
    )
    gate, validate = steps[0], steps[-1]
    assert isinstance(gate, RewriteWhenNeeded) and isinstance(validate, ValidateSchemas)
    rewrite = gate.full
    assert rewrite.policy == Policy(OnRemoved.KEEP)
    assert rewrite.target == Target.of((1, 25), upgrade_to=(1, 26), api_versions=["v1", "v1/ConfigMap"])
    assert validate.versions == ((1, 25), (1, 26))
    # the upgrade target counts only while the cluster is Upgrading
    ready = planned(tmp_path, KUBE_VERSION="1.25", ARGOCD_ENV_CLUSTER_UPGRADE_TO="1.26", ARGOCD_APP_PARAMETERS=params)
    assert isinstance(ready[0], RewriteWhenNeeded) and ready[0].full.target.upgrade_to is None
    assert ready[-1] == ValidateSchemas(((1, 25),))


def test_the_users_rules_are_loaded_when_planning(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "apis:\n- {apiVersion: example.test/v1beta1, kind: Widget, removedIn: '1.28',"
        " replacements: [{apiVersion: example.test/v1, since: '1.25'}]}\n"
    )
    params = '[{"name":"additionalVersions","string":"rules.yaml"}]'
    rewrite = planned(tmp_path, ARGOCD_APP_PARAMETERS=params)[0]
    assert isinstance(rewrite, RewriteApis)
    assert rewrite.kb.lookup("example.test/v1beta1", "Widget") is not None
    (tmp_path / "rules.yaml").write_text("apis: [{kind: Widget}]\n")
    with pytest.raises(ConfigError, match=r"additionalVersions \(rules.yaml\): apis\[0\]: 'apiVersion' is required"):
        planned(tmp_path, ARGOCD_APP_PARAMETERS=params)


def test_the_built_in_table_is_built_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = knowledge.KnowledgeBase

    def counting(rules: Any, *, data_version: str = "") -> knowledge.KnowledgeBase:
        built.append(data_version)
        return real(rules, data_version=data_version)

    monkeypatch.setattr(knowledge, "KnowledgeBase", counting)
    knowledge.builtin.cache_clear()
    try:
        for version in ("1.21", "1.29", "1.33"):  # three renders, as the demo or scan --render do
            run(planned(tmp_path, KUBE_VERSION=version), [obj("CronJob", "c", "batch/v1beta1")], Diagnostics())
    finally:
        knowledge.builtin.cache_clear()  # the next test gets the real table
    assert built == [table.DATA_VERSION]


def test_a_render_with_nothing_the_engine_could_change_never_builds_it(tmp_path: Path) -> None:
    gate = planned(tmp_path, KUBE_VERSION="1.29")[0]
    assert isinstance(gate, RewriteWhenNeeded)
    current = [obj("Deployment", "web"), obj("ConfigMap", "c", "v1")]
    assert gate(current, Diagnostics()) is current and gate._full is None
    old = [*current, obj("CronJob", "nightly", "batch/v1beta1")]
    out = gate(old, Diagnostics())
    assert gate._full is not None and out[2].obj["apiVersion"] == "batch/v1"
    assert out[:2] == current
