"""generator.policy reaches `generator serve --policy-file` as a mounted ConfigMap the generator's own loader
reads, and generator.extraVolumes / extraVolumeMounts reach the pod."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.service.policy import PolicyTable, load_policy
from argocd_lifecycle.model import Phase
from tests.integration.chart.chartkit import CHART, find, one, render, render_error

pytestmark = pytest.mark.upstream

NAME = "argocd-lifecycle-generator"


def container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    (c,) = one(docs, "Deployment", NAME)["spec"]["template"]["spec"]["containers"]
    return c  # type: ignore[no-any-return]


def mounted_file(docs: list[dict[str, Any]], path: str) -> str:
    """The text at ``path`` in the generator's container, following its mounts to a ConfigMap key."""
    pod = one(docs, "Deployment", NAME)["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    for mount in container(docs)["volumeMounts"]:
        folder = mount["mountPath"].rstrip("/") + "/"
        if path.startswith(folder):
            cm = one(docs, "ConfigMap", volumes[mount["name"]]["configMap"]["name"])
            return str(cm["data"][path.removeprefix(folder)])
    raise AssertionError(f"nothing is mounted at {path}")


def test_the_policy_reaches_the_generator(tmp_path: Path) -> None:
    docs = render(sets=("generator.policy.Degraded.prune=true", "generator.policy.Ready.selfHeal=false"))
    args = container(docs)["args"]
    policy_file = args[args.index("--policy-file") + 1]
    local = tmp_path / "policy.yaml"
    local.write_text(mounted_file(docs, policy_file))
    table = load_policy(local)  # the generator's own loader: what the pod will run with
    default = PolicyTable.default()
    assert table.rule(Phase.DEGRADED).prune is True and default.rule(Phase.DEGRADED).prune is False
    assert table.rule(Phase.READY).self_heal is False
    assert table.rule(Phase.UPGRADING) == default.rule(Phase.UPGRADING)
    # read once at start: a changed policy must roll the pods
    annotations = one(docs, "Deployment", NAME)["spec"]["template"]["metadata"]["annotations"]
    other = render(sets=("generator.policy.Degraded.prune=false",))
    other_annotations = one(other, "Deployment", NAME)["spec"]["template"]["metadata"]["annotations"]
    assert annotations["checksum/policy"] != other_annotations["checksum/policy"]


def test_no_policy_no_flag_and_no_configmap() -> None:
    docs = render()
    assert "--policy-file" not in container(docs)["args"]
    assert find(docs, "ConfigMap", f"{NAME}-policy") == []


def test_the_schema_takes_the_loaders_names() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    policy = schema["properties"]["generator"]["properties"]["policy"]
    table = PolicyTable.default().as_dict()
    assert policy["propertyNames"]["enum"] == list(table)
    assert set(policy["additionalProperties"]["properties"]) == set(table[Phase.READY.value])


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        (("generator.policy.Broken.prune=true",), "generator.policy"),
        (("generator.policy.Ready.pruning=true",), "generator.policy.Ready"),
        (("generator.policy.Ready.prune=yes",), "generator.policy.Ready.prune"),
    ],
)
def test_a_policy_the_generator_would_refuse_is_refused_by_helm(sets: tuple[str, ...], expected: str) -> None:
    assert expected in render_error(sets=sets)


def test_extra_volumes_reach_the_pod() -> None:
    docs = render(
        sets=(
            "generator.extraVolumes[0].name=ca",
            "generator.extraVolumes[0].configMap.name=corporate-ca",
            "generator.extraVolumeMounts[0].name=ca",
            "generator.extraVolumeMounts[0].mountPath=/etc/ssl/corporate",
        )
    )
    pod = one(docs, "Deployment", NAME)["spec"]["template"]["spec"]
    assert {"name": "ca", "configMap": {"name": "corporate-ca"}} in pod["volumes"]
    assert {"name": "ca", "mountPath": "/etc/ssl/corporate"} in container(docs)["volumeMounts"]
