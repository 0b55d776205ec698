"""What the plugin-generator service's OpenAPI document says: its schemas and one operation per endpoint.
The document itself (``/openapi.json``) is generated from the endpoint table (``GeneratorService.endpoints``
in app.py) by ``core/http/openapi.py``, which adds the refusals every service shares (401/403 for the
bearer role, 400/408/413 for a body) and the error schema."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle import __version__
from argocd_lifecycle.generators.rollout.machine import ClusterRollout
from argocd_lifecycle.generators.rollout.state import Status
from argocd_lifecycle.generators.service.fleet_page import MAX_ROLLOUTS, UNKNOWN
from argocd_lifecycle.http.endpoints import ServiceInfo
from argocd_lifecycle.kube.names import SUBDOMAIN_PATTERN
from argocd_lifecycle.model import Phase

_STRING = {"type": "string"}
# null and "" mean "not set" (an empty YAML value, or a value templated to nothing by a matrix parent)
_FLAG = {"oneOf": [{"type": "boolean", "nullable": True}, {"type": "string", "enum": ["true", "false", ""]}]}
_VERSION = {"type": "string", "nullable": True, "pattern": r"^(v?[0-9]+\.[0-9]+\+?(\.[0-9]+)?([-+][-+.a-zA-Z0-9]*)?)?$"}
_PHASE = {"type": "string", "enum": [p.value for p in Phase]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _strings(**extra: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": _STRING, **extra}


def _object(required: list[str], properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties, **extra}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERROR = {"$ref": "#/components/responses/Error"}

_SCHEMAS: dict[str, Any] = {
    "LabelSelector": {
        "type": "object",
        "nullable": True,
        "additionalProperties": False,
        "properties": {
            "matchLabels": _strings(nullable=True),
            "matchExpressions": {
                "type": "array",
                "nullable": True,
                "items": {
                    "oneOf": [
                        _object(
                            ["key", "operator", "values"],
                            {
                                "key": {"type": "string", "minLength": 1},
                                "operator": {"type": "string", "enum": ["In", "NotIn"]},
                                "values": {"type": "array", "items": _STRING, "minItems": 1},
                            },
                            additionalProperties=False,
                        ),
                        _object(
                            ["key", "operator"],
                            {
                                "key": {"type": "string", "minLength": 1},
                                "operator": {"type": "string", "enum": ["Exists", "DoesNotExist"]},
                                "values": {"type": "array", "items": _STRING, "maxItems": 0, "nullable": True},
                            },
                            additionalProperties=False,
                        ),
                    ]
                },
            },
        },
    },
    "InputParameters": {
        "type": "object",
        "description": (
            "Filters and options; any other parameter is echoed back under `input`. `rollout` (an object: "
            "revision, waves, bakeTime, maxUnavailable, windows, rollback) rolls a revision out in waves and adds "
            "`rollout.revision`, `rollout.wave` and `rollout.state` to every set (docs/guide/rollouts.md)."
        ),
        "nullable": True,
        "additionalProperties": True,
        "properties": {
            "labelSelector": _ref("LabelSelector"),
            "names": {"type": "array", "items": _STRING, "nullable": True},
            "minVersion": _VERSION,
            "maxVersion": _VERSION,
            "phases": {"type": "array", "items": _PHASE, "nullable": True},
            "readyOnly": _FLAG,
            "dropDecommissioned": _FLAG,
            "flatList": _FLAG,
            "allowMassDrop": _FLAG,
        },
    },
    "ParamsRequest": _object(
        ["applicationSetName"],
        {
            # an ApplicationSet's name (a DNS-1123 subdomain), as the service checks it
            "applicationSetName": {
                "type": "string",
                "minLength": 1,
                "maxLength": 253,
                "pattern": f"^{SUBDOMAIN_PATTERN}$",
            },
            "input": {"type": "object", "properties": {"parameters": _ref("InputParameters")}},
        },
    ),
    "ClusterParams": _object(
        ["name", "nameNormalized", "server", "project", "metadata", "lifecycle", "kubernetes"],
        {
            "name": _STRING,
            "nameNormalized": _STRING,
            "server": _STRING,
            "project": _STRING,
            "metadata": {"type": "object", "properties": {"labels": _strings(), "annotations": _strings()}},
            "lifecycle": _strings(
                required=["phase", "phaseSince", "ready", "nodesKnown", "syncEnabled", "prune", "selfHeal"]
            ),
            "kubernetes": _strings(
                required=[
                    "version",
                    "gitVersion",
                    "major",
                    "minor",
                    "upgradeTo",
                    "upgradeBlockers",
                    "upgradeClear",
                    "upgradeBlocked",
                    "upgradeBlockedSince",
                ]
            ),
            "input": {"type": "object"},
        },
    ),
    "ParamsResponse": _object(
        ["output"],
        {
            "output": _object(
                ["parameters"],
                {
                    "parameters": {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                _ref("ClusterParams"),
                                _object(["clusters"], {"clusters": {"type": "array", "items": _ref("ClusterParams")}}),
                            ]
                        },
                    }
                },
            )
        },
    ),
    "ClusterRow": _object(
        [
            "name",
            "server",
            "phase",
            "phaseSince",
            "message",
            "kubernetesVersion",
            "nodes",
            "nodesReady",
            "certificateExpiresAt",
            "upgradeTo",
            "upgradeBlockers",
            "upgradeBlocked",
        ],
        {
            "name": _STRING,
            "server": _STRING,
            "phase": _PHASE,
            "phaseSince": {"type": "string", "format": "date-time", "nullable": True},
            "message": _STRING,
            "kubernetesVersion": _STRING,
            "nodes": {"type": "integer", "minimum": 0},
            "nodesReady": {"type": "integer", "minimum": 0},
            "certificateExpiresAt": {"type": "string", "format": "date-time", "nullable": True},
            "upgradeTo": _STRING,
            "upgradeBlockers": {"type": "integer", "minimum": 0, "nullable": True},
            "upgradeBlocked": _STRING,
        },
    ),
    "FleetDocument": _object(
        ["synced", "staleSeconds", "clusters"],
        {
            "synced": {"type": "boolean"},
            "staleSeconds": {"type": "number", "minimum": 0},
            "clusters": {"type": "array", "items": _ref("ClusterRow")},
        },
    ),
    "RolloutRow": _object(
        [
            "applicationSet",
            "status",
            "revision",
            "previous",
            "wave",
            "waveName",
            "waves",
            "since",
            "reason",
            "refused",
            "given",
            "clustersAtRevision",
            "clusters",
            "clusterStates",
            "plannedAt",
            "unreadable",
        ],
        {
            "applicationSet": _STRING,
            "status": {"type": "string", "enum": [*(s.value for s in Status), UNKNOWN]},
            "revision": _STRING,
            "previous": _STRING,
            "wave": {"type": "integer", "minimum": 0, "nullable": True},
            "waveName": _STRING,
            "waves": {"type": "integer", "minimum": 1, "nullable": True},
            "since": {"type": "string", "format": "date-time", "nullable": True},
            "reason": _STRING,
            "refused": _STRING,
            "given": {"type": "integer", "minimum": 0, "nullable": True},
            "clustersAtRevision": {"type": "integer", "minimum": 0, "nullable": True},
            "clusters": {"type": "integer", "minimum": 0, "nullable": True},
            "clusterStates": {
                "type": "object",
                "description": "clusters per rollout.state (" + ", ".join(s.value for s in ClusterRollout) + ")",
                "properties": {s.value: {"type": "integer", "minimum": 1} for s in ClusterRollout},
                "additionalProperties": False,
            },
            "plannedAt": {"type": "string", "format": "date-time", "nullable": True},
            "unreadable": _STRING,
        },
        description="One ApplicationSet's rollout: the state its annotation keeps, and what this replica's "
        "last plan of it saw (waves, clusters; null when it has not planned it since it started)",
    ),
    "RolloutsDocument": _object(
        ["rollouts", "more"],
        {
            "rollouts": {"type": "array", "maxItems": MAX_ROLLOUTS, "items": _ref("RolloutRow")},
            "more": {"type": "integer", "minimum": 0},
        },
    ),
    "Health": _object(
        ["status", "synced"], {"status": {"type": "string", "enum": ["ok"]}, "synced": {"type": "boolean"}}
    ),
    "Ready": _object(["status"], {"status": {"type": "string", "enum": ["ready"]}}),
}


INFO = ServiceInfo(
    title="argocd-lifecycle plugin generator",
    version=__version__,
    description="Argo CD ApplicationSet plugin generator serving the cluster fleet with its lifecycle.",
    components={"schemas": _SCHEMAS},
)

OPERATIONS: dict[str, dict[str, Any]] = {
    "execute": {
        "operationId": "getParams",
        "summary": "Parameter sets for an ApplicationSet (Argo CD plugin generator protocol)",
        "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("ParamsRequest")}}},
        "responses": {
            "200": _json(_ref("ParamsResponse"), "one parameter set per admitted cluster"),
            "503": _ERROR,
        },
    },
    "clusters": {
        "operationId": "listClusters",
        "summary": "Every known cluster with its phase (the fleet page's data)",
        "responses": {"200": _json(_ref("FleetDocument"), "the fleet")},
    },
    "rollouts": {
        "operationId": "listRollouts",
        "summary": "Each ApplicationSet's rollout, by name, from what the generator holds (the fleet page's rollouts)",
        "responses": {"200": _json(_ref("RolloutsDocument"), "the rollouts (empty without Kubernetes)")},
    },
    "healthz": {
        "operationId": "health",
        "summary": "Liveness",
        "responses": {"200": _json(_ref("Health"), "the process serves")},
    },
    "readyz": {
        "operationId": "ready",
        "summary": "Readiness: every watch listed, none broken for longer than --max-staleness",
        "responses": {"200": _json(_ref("Ready"), "this replica's view is whole"), "503": _ERROR},
    },
    "metrics": {
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "responses": {"200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": _STRING}}}},
    },
    "fleet_page": {
        "operationId": "fleetPage",
        "summary": "The fleet page (server-rendered HTML)",
        "responses": {"200": {"description": "the page", "content": {"text/html": {"schema": _STRING}}}},
    },
}
