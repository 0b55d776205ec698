"""Label selectors as Kubernetes defines them: matchLabels and matchExpressions, all terms ANDed."""

from __future__ import annotations

import pytest

from argocd_lifecycle.label_selector import LabelSelector


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ({}, {}, True),
        ({"matchLabels": {"env": "prod"}}, {"env": "prod", "x": "y"}, True),
        ({"matchLabels": {"env": "prod"}}, {"env": "dev"}, False),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a", "b"]}]}, {"env": "b"}, True),
        ({"matchExpressions": [{"key": "env", "operator": "In", "values": ["a"]}]}, {}, False),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["a"]}]}, {"env": "a"}, False),
        ({"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, {"gpu": ""}, True),
        ({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}, {"gpu": ""}, False),
        (
            {"matchLabels": {"env": "prod"}, "matchExpressions": [{"key": "gpu", "operator": "Exists"}]},
            {"env": "prod"},
            False,
        ),
    ],
)
def test_label_selector_semantics(selector: dict[str, object], labels: dict[str, str], matches: bool) -> None:
    assert LabelSelector.parse(selector, "s").matches(labels) is matches
