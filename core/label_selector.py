"""Kubernetes label selectors (``matchLabels`` + ``matchExpressions``) with Kubernetes semantics.

Every requirement must hold (AND). ``In``: the label is present with one of the values; ``NotIn``: the
label is absent or has none of the values; ``Exists`` / ``DoesNotExist``: presence only. An empty
selector matches everything. As in Argo CD's generators, label values are not checked for syntax, so
a selector can match on anything a cluster Secret carries. Shared by the plugin-generator service's
input and the rollout's waves; a mistake is one ``SelectorError`` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import LifecycleError

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class SelectorError(LifecycleError):
    """A label selector that does not parse; the message names the field."""


_KINDS: dict[type, str] = {
    list: "a list",
    dict: "an object",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def kind_of(value: object) -> str:
    """JSON-ish name of a value's type, for messages like ``expected a list, got a string``."""
    return _KINDS.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.operator == "Exists":
            return self.key in labels
        if self.operator == "DoesNotExist":
            return self.key not in labels
        present = self.key in labels and labels[self.key] in self.values
        return present if self.operator == "In" else not present


@dataclass(frozen=True)
class LabelSelector:
    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    @classmethod
    def parse(cls, data: Any, where: str) -> LabelSelector:
        """Parse the wire form; every mistake raises SelectorError naming the field (``where`` + path)."""
        if not isinstance(data, Mapping):
            raise SelectorError(f"{where}: expected an object, got {kind_of(data)}")
        unknown = sorted(set(data) - {"matchLabels", "matchExpressions"})
        if unknown:
            raise SelectorError(f"{where}: unknown field {unknown[0]!r} (expected matchLabels, matchExpressions)")
        reqs: list[Requirement] = []
        match_labels = _or_empty(data.get("matchLabels"), {})
        if not isinstance(match_labels, Mapping):
            raise SelectorError(f"{where}.matchLabels: expected an object, got {kind_of(match_labels)}")
        for key, value in match_labels.items():
            if not isinstance(value, str):
                raise SelectorError(f"{where}.matchLabels.{key}: expected a string, got {kind_of(value)}")
            reqs.append(Requirement(key, "In", frozenset([value])))
        expressions = _or_empty(data.get("matchExpressions"), [])
        if not isinstance(expressions, list):
            raise SelectorError(f"{where}.matchExpressions: expected a list, got {kind_of(expressions)}")
        for i, expr in enumerate(expressions):
            reqs.append(_expression(expr, f"{where}.matchExpressions[{i}]"))
        return cls(tuple(reqs))


def _expression(expr: Any, where: str) -> Requirement:
    if not isinstance(expr, Mapping):
        raise SelectorError(f"{where}: expected an object, got {kind_of(expr)}")
    unknown = sorted(set(expr) - {"key", "operator", "values"})
    if unknown:
        raise SelectorError(f"{where}: unknown field {unknown[0]!r} (expected key, operator, values)")
    key = _key(expr.get("key"), where)
    operator = expr.get("operator")
    if operator not in _OPERATORS:
        raise SelectorError(f"{where}.operator: {operator!r} is not one of {', '.join(_OPERATORS)}")
    values = _or_empty(expr.get("values"), [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SelectorError(f"{where}.values: expected a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise SelectorError(f"{where}.values: must not be empty for operator {operator}")
    if operator in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"{where}.values: must be empty for operator {operator}")
    return Requirement(key, operator, frozenset(values))


def _or_empty(value: Any, empty: Any) -> Any:
    """null means not set; any other value, even a falsy one of the wrong type, is checked."""
    return empty if value is None else value


def _key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not key:
        got = "an empty string" if key == "" else kind_of(key)
        raise SelectorError(f"{where}.key: expected a non-empty label key, got {got}")
    return key
