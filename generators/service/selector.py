"""Kubernetes label selectors (``matchLabels`` + ``matchExpressions``) with Kubernetes semantics.

Every requirement must hold (AND). ``In``: the label is present with one of the values; ``NotIn``: the
label is absent or has none of the values; ``Exists`` / ``DoesNotExist``: presence only. An empty
selector matches everything. As in Argo CD's generators, label values are not checked for syntax, so
a selector can match on anything a cluster Secret carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.generators.service.errors import InputError, kind_of

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


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
        """Parse the wire form; every mistake raises InputError naming the field (``where`` + path)."""
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected an object, got {kind_of(data)}")
        unknown = sorted(set(data) - {"matchLabels", "matchExpressions"})
        if unknown:
            raise InputError(f"{where}: unknown field {unknown[0]!r} (expected matchLabels, matchExpressions)")
        reqs: list[Requirement] = []
        match_labels = _or_empty(data.get("matchLabels"), {})
        if not isinstance(match_labels, Mapping):
            raise InputError(f"{where}.matchLabels: expected an object, got {kind_of(match_labels)}")
        for key, value in match_labels.items():
            if not isinstance(value, str):
                raise InputError(f"{where}.matchLabels.{key}: expected a string, got {kind_of(value)}")
            reqs.append(Requirement(key, "In", frozenset([value])))
        expressions = _or_empty(data.get("matchExpressions"), [])
        if not isinstance(expressions, list):
            raise InputError(f"{where}.matchExpressions: expected a list, got {kind_of(expressions)}")
        for i, expr in enumerate(expressions):
            reqs.append(_expression(expr, f"{where}.matchExpressions[{i}]"))
        return cls(tuple(reqs))


def _expression(expr: Any, where: str) -> Requirement:
    if not isinstance(expr, Mapping):
        raise InputError(f"{where}: expected an object, got {kind_of(expr)}")
    unknown = sorted(set(expr) - {"key", "operator", "values"})
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r} (expected key, operator, values)")
    key = _key(expr.get("key"), where)
    operator = expr.get("operator")
    if operator not in _OPERATORS:
        raise InputError(f"{where}.operator: {operator!r} is not one of {', '.join(_OPERATORS)}")
    values = _or_empty(expr.get("values"), [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}.values: expected a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise InputError(f"{where}.values: must not be empty for operator {operator}")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InputError(f"{where}.values: must be empty for operator {operator}")
    return Requirement(key, operator, frozenset(values))


def _or_empty(value: Any, empty: Any) -> Any:
    """null means not set; any other value, even a falsy one of the wrong type, is checked."""
    return empty if value is None else value


def _key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not key:
        got = "an empty string" if key == "" else kind_of(key)
        raise InputError(f"{where}.key: expected a non-empty label key, got {got}")
    return key
