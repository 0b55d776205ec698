"""Applications as the preflight reads them: what they deploy, and whether our plugin renders them."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.preflight.apps import PreflightInputError, Resource, read_application

from .helpers import application, resource


def test_resources_become_api_versions_core_group_included() -> None:
    app = read_application(
        application(
            "shop", [resource("policy/v1beta1", "PodDisruptionBudget", "web"), resource("v1", "Service", "web")]
        ),
        "here",
    )
    assert app.resources == (
        Resource("policy/v1beta1", "PodDisruptionBudget", "shop", "web"),
        Resource("v1", "Service", "shop", "web"),
    )
    assert app.ref == "argocd/shop" and app.dest_server == "https://prod.example.test:6443"
    assert not app.plugin and not app.rewrites


@pytest.mark.parametrize(
    ("plugin", "source_type", "how", "rewrites"),
    [
        ({"name": "argocd-lifecycle-v1"}, "Plugin", "name", True),
        ({"name": "argocd-lifecycle-v1"}, "", "name", True),  # never compared yet: the name says it
        ({}, "Plugin", "discovery", True),  # `plugin: {}` and Argo CD found a plugin: our marker
        (None, "Plugin", "discovery", True),
        (None, "Directory", "", False),
        ({"name": "someone-elses-v1"}, "Plugin", "", False),
        ({}, "", "", False),  # asks for discovery, but nothing says a plugin rendered it
        ({"name": "argocd-lifecycle-v1", "parameters": [{"name": "rewriteApis", "string": "false"}]}, "Plugin", "name",
         False),
        ({"name": "argocd-lifecycle-v1", "parameters": [{"name": "rewriteApis", "string": "true"}]}, "Plugin", "name",
         True),
    ],
)  # fmt: skip
def test_who_renders_it(plugin: dict[str, object] | None, source_type: str, how: str, rewrites: bool) -> None:
    app = read_application(application("a", [], plugin=plugin, source_type=source_type), "here")
    assert (app.plugin, app.rewrites) == (how, rewrites)


def test_multi_source_apps_are_ours_only_when_every_source_is() -> None:
    obj = application("multi", [])
    obj["spec"]["sources"] = [
        {"repoURL": "r", "path": "a", "plugin": {"name": "argocd-lifecycle-v1"}},
        {"repoURL": "r", "path": "b"},
    ]
    obj["status"]["sourceTypes"] = ["Plugin", "Directory"]
    assert read_application(obj, "here").plugin == ""
    obj["spec"]["sources"][1]["plugin"] = {"name": "argocd-lifecycle-v1"}
    assert read_application(obj, "here").plugin == "name"


def test_destination_by_name_and_trailing_slash() -> None:
    assert read_application(application("a", [], dest_name="prod"), "x").dest_name == "prod"
    assert read_application(application("a", [], server="https://p.example.test/"), "x").dest_server == (
        "https://p.example.test"
    )


def test_hostile_shapes_are_one_message_or_ignored() -> None:
    bad = application("a", [])
    bad["status"]["resources"] = "everything"
    with pytest.raises(PreflightInputError, match=r"here \(argocd/a\): status.resources should be a list"):
        read_application(bad, "here")
    odd = application("a", [42, {"kind": "ConfigMap"}, {"version": "v1", "kind": "ConfigMap", "name": 7}])  # type: ignore[list-item]
    odd["spec"]["destination"] = "prod"
    app = read_application(odd, "here")
    assert app.resources == (Resource("v1", "ConfigMap", "", ""),) and app.dest_server == ""
    with pytest.raises(PreflightInputError, match=r"metadata\.name is missing"):
        read_application({"metadata": {"name": ["x"]}}, "here")
