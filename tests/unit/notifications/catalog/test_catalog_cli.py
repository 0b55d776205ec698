"""`argocd-lifecycle notifications render`: three formats on stdout, typed exit codes, atomic --output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from argocd_lifecycle.notifications.catalog.build import build
from argocd_lifecycle.notifications.catalog.cli import notifications
from argocd_lifecycle.notifications.catalog.formats import markdown

REPO = Path(__file__).resolve().parents[4]


def render(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(notifications, ["render", *args])
    return result.exit_code, result.stdout, result.stderr


def test_configmap_holds_only_catalog_keys_and_a_commented_service() -> None:
    code, out, err = render()
    assert (code, err) == (0, "")
    doc = yaml.safe_load(out)
    assert doc["kind"] == "ConfigMap" and doc["metadata"]["name"] == "argocd-notifications-cm"
    assert doc["data"] == build().data()
    assert all(k.startswith(("trigger.", "template.")) for k in doc["data"])
    after = out.split("  # service.webhook.argocd-lifecycle: |\n", 1)[1]
    commented = []
    for line in after.splitlines():
        if not line.startswith("  #   "):
            break
        commented.append(line[len("  #   ") :])
    service = yaml.safe_load("\n".join(commented))
    assert service["url"].startswith("http://argocd-lifecycle-receiver.")
    assert {"name": "Authorization", "value": "Bearer $argocd-lifecycle-token"} in service["headers"]


def test_helm_values_use_prefixed_keys() -> None:
    code, out, _ = render("--format", "helm-values")
    assert code == 0
    values = yaml.safe_load(out)["notifications"]
    data = build().data()
    assert values["triggers"] == {k: v for k, v in data.items() if k.startswith("trigger.")}
    assert values["templates"] == {k: v for k, v in data.items() if k.startswith("template.")}
    assert "# notifiers:" in out


def test_output_is_deterministic_and_follows_settings() -> None:
    assert render("--format", "markdown") == render("--format", "markdown")
    code, out, _ = render("--out-of-sync-minutes", "45", "--webhook-service", "hub")
    assert code == 0
    assert "45 * time.Minute" in out and "\n      hub:\n" in out and "--out-of-sync-minutes 45" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "json"], "Invalid value for '--format'"),
        (["--degraded-minutes", "0"], "Invalid value for '--degraded-minutes'"),
        (["--webhook-service", "a.b"], "Invalid value for '--webhook-service'"),
    ],
)
def test_bad_options_are_usage_errors(args: list[str], message: str) -> None:
    code, out, err = render(*args)
    assert code == 2
    assert out == ""
    assert message in err


def test_output_file_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "catalog.md"
    code, out, _ = render("--format", "markdown", "-o", str(target))
    assert (code, out) == (0, "")
    assert target.read_text(encoding="utf-8") == markdown(build())
    assert [p.name for p in tmp_path.iterdir()] == ["catalog.md"]


def test_unwritable_output_is_one_error_line_without_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "cm.yaml"
    proc = subprocess.run(
        [sys.executable, "-m", "argocd_lifecycle.app", "notifications", "render", "-o", str(missing)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"error: --output {missing}: cannot write")
    assert "Traceback" not in proc.stderr


def test_committed_docs_match_the_sources() -> None:
    committed = (REPO / "docs" / "notifications-catalog.md").read_text(encoding="utf-8")
    assert committed == markdown(build()), (
        "docs/notifications-catalog.md drifted: run "
        "`argocd-lifecycle notifications render --format markdown -o docs/notifications-catalog.md`"
    )
