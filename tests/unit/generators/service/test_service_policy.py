"""The phase policy table and its override file."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.generators.service.policy import PolicyTable, SyncRule, load_policy
from argocd_lifecycle.model import Phase


def test_defaults_cover_every_phase() -> None:
    table = PolicyTable.default().as_dict()
    assert list(table) == [p.value for p in Phase]
    assert table["Ready"] == {"syncEnabled": True, "prune": True, "selfHeal": True}
    assert table["Pending"]["syncEnabled"] is False


def test_override_file_changes_only_the_named_cells(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("Degraded: {prune: true}\nReady:\n  selfHeal: false\n")
    table = load_policy(path)
    assert table.rule(Phase.DEGRADED) == SyncRule(sync_enabled=True, prune=True, self_heal=True)
    assert table.rule(Phase.READY) == SyncRule(sync_enabled=True, prune=True, self_heal=False)
    assert table.rule(Phase.PENDING) == PolicyTable.default().rule(Phase.PENDING)


def test_empty_file_and_no_file_give_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("")
    assert load_policy(tmp_path / "empty.yaml") == PolicyTable.default() == load_policy(None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Broken: {prune: true}", "unknown phase 'Broken'"),
        ("Ready: {purge: true}", "Ready: unknown setting 'purge'"),
        ("Ready: {prune: 'yes'}", "Ready.prune: expected true or false, got 'yes'"),
        ("Ready: [prune]", "Ready: expected a mapping, got a list"),
        ("- Ready", "expected a mapping of phase to settings, got a list"),
        ("Ready: {prune: [", "not valid YAML"),
    ],
)
def test_bad_override_files_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_policy(path)
    assert str(path) in err.value.message
    assert message in err.value.message


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the policy file"):
        load_policy(tmp_path / "nope.yaml")
