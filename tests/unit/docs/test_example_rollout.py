"""The rollout example (examples/applicationset-rollout.yaml) and every rollout input in README and docs
are what the generator accepts, and the example's templatePatch puts rollout.revision into targetRevision."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.rollout.spec import parse_rollout
from tests.unit.docs.blocks import REPO, all_blocks

EXAMPLE = REPO / "examples" / "applicationset-rollout.yaml"


def rollouts(node: Any) -> list[Any]:
    """Every ``rollout:`` under a plugin generator's ``input.parameters`` (or a bare rollout block)."""
    found: list[Any] = []
    if isinstance(node, dict):
        if isinstance(node.get("rollout"), dict) and "revision" in node["rollout"]:
            found.append(node["rollout"])
        for value in node.values():
            found += rollouts(value)
    elif isinstance(node, list):
        for item in node:
            found += rollouts(item)
    return found


def example() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_example_input_parses() -> None:
    (found,) = rollouts(example())
    assert parse_rollout(found).revision == "v2.3.0"


def test_the_example_puts_the_rollout_revision_into_target_revision() -> None:
    patch = yaml.safe_load(example()["spec"]["templatePatch"].replace("{{ .lifecycle.", "x{{ ."))
    assert patch["spec"]["source"]["targetRevision"] == "{{ .rollout.revision }}"
    assert example()["spec"]["goTemplate"] is True


DOC_INPUTS = [
    (b.where, r)
    for b in all_blocks()
    if b.lang in ("yaml", "yml") and not b.illustrative and "rollout:" in b.text
    for d in yaml.safe_load_all(b.text)
    for r in rollouts(d)
]


def test_the_docs_show_rollout_inputs() -> None:
    assert len(DOC_INPUTS) >= 2


@pytest.mark.parametrize(("where", "data"), DOC_INPUTS, ids=[w for w, _ in DOC_INPUTS])
def test_every_rollout_input_in_the_docs_parses(where: str, data: Any) -> None:
    parse_rollout(data, where)
