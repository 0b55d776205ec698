"""generator.drift reaches `generator serve`: `--drift`/`--no-drift` and `--drift-window` parse with the real
command into the settings the drift watch runs with, and projectWindows reach the policy file the generator's
own loader reads as `driftWindows`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.drift.window import Windows, project_windows
from argocd_lifecycle.generators.service.policy import PolicyTable, load_policy
from argocd_lifecycle.model import Phase
from tests.integration.chart.chartkit import find, one, render, render_error
from tests.integration.chart.test_chart_policy import NAME, container, mounted_file

pytestmark = pytest.mark.upstream


def serve_params(docs: list[dict[str, Any]]) -> dict[str, Any]:
    from argocd_lifecycle.app.cli import cli

    args = container(docs)["args"]
    group = cli.get_command(None, args[0])  # type: ignore[arg-type]
    assert group is not None
    return group.commands[args[1]].make_context(args[1], list(args[2:])).params  # type: ignore[attr-defined,no-any-return]


def test_the_default_is_the_watch_on_with_a_30_minute_window() -> None:
    params = serve_params(render())
    assert (params["drift"], params["drift_window"]) == (True, 1800.0)
    assert Windows(params["drift_window"]).default == 1800.0


def test_the_window_reaches_the_command() -> None:
    params = serve_params(render(sets=("generator.drift.window=1h30m",)))
    assert (params["drift"], params["drift_window"]) == (True, 5400.0)


def test_disabled_passes_no_drift() -> None:
    docs = render(sets=("generator.drift.enabled=false",))
    args = container(docs)["args"]
    assert "--no-drift" in args and "--drift" not in args and "--drift-window" not in args
    assert serve_params(docs)["drift"] is False


def test_project_windows_reach_the_policy_file(tmp_path: Path) -> None:
    docs = render(sets=("generator.drift.projectWindows.payments=10m", "generator.drift.projectWindows.web=2h"))
    args = container(docs)["args"]
    local = tmp_path / "policy.yaml"
    local.write_text(mounted_file(docs, args[args.index("--policy-file") + 1]))
    assert project_windows(local) == {"payments": 600.0, "web": 7200.0}  # the generator's own reader
    assert load_policy(local) == PolicyTable.default()  # the phase table is untouched
    # read once at start: a changed window rolls the pods
    checksum = one(docs, "Deployment", NAME)["spec"]["template"]["metadata"]["annotations"]["checksum/policy"]
    other = render(sets=("generator.drift.projectWindows.payments=20m", "generator.drift.projectWindows.web=2h"))
    assert one(other, "Deployment", NAME)["spec"]["template"]["metadata"]["annotations"]["checksum/policy"] != checksum


def test_project_windows_and_the_phase_policy_share_the_file(tmp_path: Path) -> None:
    docs = render(sets=("generator.drift.projectWindows.payments=10m", "generator.policy.Degraded.prune=true"))
    local = tmp_path / "policy.yaml"
    args = container(docs)["args"]
    local.write_text(mounted_file(docs, args[args.index("--policy-file") + 1]))
    assert project_windows(local) == {"payments": 600.0}
    assert load_policy(local).rule(Phase.DEGRADED).prune is True


def test_no_project_windows_no_policy_file() -> None:
    docs = render()
    assert "--policy-file" not in container(docs)["args"]
    assert find(docs, "ConfigMap", f"{NAME}-policy") == []


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        (("generator.drift.window=30 minutes",), "generator.drift.window"),
        (("generator.drift.window=0m",), "generator.drift.window"),
        (("generator.drift.window=1.5h",), "generator.drift.window"),
        (("generator.drift.enabled=maybe",), "generator.drift.enabled"),
        (("generator.drift.windoww=30m",), "generator.drift"),
        (("generator.drift.projectWindows.payments=soon",), "generator.drift.projectWindows"),
        (("generator.drift.projectWindows.Pay_ments=10m",), "generator.drift.projectWindows"),
    ],
)
def test_a_drift_value_the_generator_would_refuse_is_refused_by_helm(sets: tuple[str, ...], expected: str) -> None:
    assert expected in render_error(sets=sets)
