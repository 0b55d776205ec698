"""The request of Argo CD's plugin generator, parsed and checked into a frozen GeneratorInput.

Argo CD sends ``{"applicationSetName": "...", "input": {"parameters": {...}}}`` (``parameters`` is
left out when the generator has none). Input parameters (all optional)::

    labelSelector       {matchLabels: {k: v}, matchExpressions: [{key, operator, values}]}
    names               [cluster name, ...]           (empty: no filter)
    minVersion          "1.29" or "1.29.3"            (inclusive; "" : no filter)
    maxVersion          "1.31"                        (inclusive)
    phases              [Ready, Degraded, ...]        (empty: no filter)
    readyOnly           true   admit a cluster only once it passed the readiness gate
    dropDecommissioned  false  leave out Decommissioning clusters (their Applications get deleted)
    flatList            false  one parameter set {"clusters": [...]} instead of one per cluster
    allowMassDrop       false  answer even when the answer loses more clusters than allowed
    applicationSetNamespace ""  the ApplicationSet's own namespace, where its name is in several
                                watched namespaces (Argo CD's request names none)
    rollout             {revision, waves, bakeTime, maxUnavailable, ...}  generators/rollout/spec.py

Booleans may also be the strings "true"/"false" (values templated by a matrix generator arrive as
strings). Any other parameter is accepted and echoed back under ``input.*`` like every parameter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.view import NAMESPACE_PARAMETER
from argocd_lifecycle.generators.rollout.errors import RolloutInputError
from argocd_lifecycle.generators.rollout.spec import RolloutSpec, parse_rollout
from argocd_lifecycle.generators.service.errors import InputError
from argocd_lifecycle.kube.names import is_namespace, is_object_name
from argocd_lifecycle.label_selector import LabelSelector, SelectorError, kind_of
from argocd_lifecycle.model import Phase
from argocd_lifecycle.versions import KubeVersion


class PluginInputWire(TypedDict):
    parameters: NotRequired[dict[str, Any]]


class ParamsRequestWire(TypedDict):
    applicationSetName: str
    input: NotRequired[PluginInputWire]


_P = "input.parameters"


@dataclass(frozen=True)
class GeneratorInput:
    selector: LabelSelector = field(default_factory=LabelSelector)
    names: frozenset[str] = frozenset()
    min_version: KubeVersion | None = None
    max_version: KubeVersion | None = None
    phases: frozenset[Phase] = frozenset()
    ready_only: bool = True
    drop_decommissioned: bool = False
    flat_list: bool = False
    allow_mass_drop: bool = False
    #: ``applicationSetNamespace``: "" unless the ApplicationSet says where it lives
    appset_namespace: str = ""
    #: a rollout of a revision in waves (each parameter set then carries ``rollout.*``)
    rollout: RolloutSpec | None = None
    #: the input parameters with every leaf turned into a string, returned under ``input``
    echo: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParamsRequest:
    appset: str
    input: GeneratorInput
    #: canonical JSON of all input parameters: same key, same answer
    answer_key: str


def parse_request(body: bytes) -> ParamsRequest:
    """Parse a getparams.execute body; raises InputError naming the offending field."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"request body: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"request body: expected a JSON object, got {kind_of(data)}")
    appset = data.get("applicationSetName")
    if not isinstance(appset, str):
        raise InputError(f"applicationSetName: expected a string, got {kind_of(appset)}")
    if not is_object_name(appset):  # it becomes a key and a Kubernetes name: nothing else may pass
        raise InputError(f"applicationSetName: {appset[:80]!r} is not an ApplicationSet name (a DNS-1123 subdomain)")
    plugin_input = data.get("input", {})
    if not isinstance(plugin_input, dict):
        raise InputError(f"input: expected an object, got {kind_of(plugin_input)}")
    params = plugin_input.get("parameters")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InputError(f"{_P}: expected an object, got {kind_of(params)}")
    return ParamsRequest(appset=appset, input=parse_parameters(params), answer_key=_canonical(params))


def parse_parameters(params: Mapping[str, Any]) -> GeneratorInput:
    return GeneratorInput(
        selector=_selector(params.get("labelSelector"), f"{_P}.labelSelector"),
        names=frozenset(_strings(params, "names")),
        min_version=_version(params, "minVersion"),
        max_version=_version(params, "maxVersion"),
        phases=frozenset(_phase(p, f"{_P}.phases[{i}]") for i, p in enumerate(_strings(params, "phases"))),
        ready_only=_bool(params, "readyOnly", default=True),
        drop_decommissioned=_bool(params, "dropDecommissioned", default=False),
        flat_list=_bool(params, "flatList", default=False),
        allow_mass_drop=_bool(params, "allowMassDrop", default=False),
        appset_namespace=_namespace(params, NAMESPACE_PARAMETER),
        rollout=_rollout(params.get("rollout")),
        echo={str(k): stringify(v) for k, v in params.items()},
    )


def _selector(data: Any, where: str) -> LabelSelector:
    try:
        return LabelSelector() if data is None else LabelSelector.parse(data, where)
    except SelectorError as exc:
        raise InputError(exc.message) from None


def _rollout(data: Any) -> RolloutSpec | None:
    if data is None:
        return None
    try:
        return parse_rollout(data, f"{_P}.rollout")
    except RolloutInputError as exc:
        raise InputError(exc.message) from None


def stringify(value: Any) -> Any:
    """Every leaf as a string, so goTemplate and fasttemplate templates read the echo alike."""
    if isinstance(value, dict):
        return {str(k): stringify(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stringify(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _bool(params: Mapping[str, Any], name: str, *, default: bool) -> bool:
    value = params.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise InputError(f"{_P}.{name}: expected true or false, got {value!r}")


def _strings(params: Mapping[str, Any], name: str) -> list[str]:
    value = params.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{_P}.{name}: expected a list of strings, got {kind_of(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(f"{_P}.{name}[{i}]: expected a string, got {kind_of(item)}")
    return value


def _version(params: Mapping[str, Any], name: str) -> KubeVersion | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(f'{_P}.{name}: expected a version string like "1.29", got {kind_of(value)}')
    try:
        return KubeVersion.parse(value, where=f"{_P}.{name}")
    except UsageError as exc:
        raise InputError(exc.message) from None


def _namespace(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise InputError(f"{_P}.{name}: expected a namespace name, got {kind_of(value)}")
    if not is_namespace(value):
        raise InputError(f"{_P}.{name}: {value[:80]!r} is not a namespace name (a DNS-1123 label)")
    return value


def _phase(value: str, where: str) -> Phase:
    try:
        return Phase(value)
    except ValueError:
        raise InputError(f"{where}: {value!r} is not a phase (one of {', '.join(Phase)})") from None
