"""Field-level conversions of smaller kinds: PodDisruptionBudget, EndpointSlice, flow control,
CertificateSigningRequest, RBAC v1alpha1 subjects, Event."""

from __future__ import annotations

from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, converter, rename
from argocd_lifecycle.plugin.rewrite.objects import drop, items, mapping, rename_key, with_spec
from argocd_lifecycle.plugin.stream.manifest import Obj

FC = "flowcontrol.apiserver.k8s.io/"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
RBAC = "rbac.authorization.k8s.io"
RBAC_KINDS = ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]


@converter("policy/v1beta1", ["PodDisruptionBudget"], "policy/v1")
def pdb(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    if spec.get("selector") != {}:
        return obj
    # v1beta1: {} selects no pods; v1: {} selects every pod of the namespace
    notes.warn(
        "empty spec.selector removed to keep its v1beta1 meaning (selects no pods): "
        "the PDB protects nothing, consider deleting it"
    )
    return with_spec(obj, drop(spec, "selector"))


def _endpoint(endpoint: object, dropped: set[str]) -> object:
    if not isinstance(endpoint, dict) or not isinstance(endpoint.get("topology"), dict):
        return endpoint
    topology = dict(endpoint["topology"])
    out = drop(endpoint, "topology")
    if ZONE in topology:
        zone = topology.pop(ZONE)
        out.setdefault("zone", zone)
    if HOSTNAME in topology:
        host = topology.pop(HOSTNAME)
        if out.get("nodeName") is None:
            out["nodeName"] = host
        elif out["nodeName"] != host:
            dropped.add(f"{HOSTNAME}={host} (nodeName is {out['nodeName']})")
    dropped.update(topology)  # v1 keeps the rest only as read-only deprecatedTopology
    return out


@converter("discovery.k8s.io/v1beta1", ["EndpointSlice"], "discovery.k8s.io/v1")
def endpoint_slice(obj: Obj, notes: Notes) -> Obj:
    if "endpoints" not in obj:
        return obj
    dropped: set[str] = set()
    endpoints = [_endpoint(e, dropped) for e in items(obj["endpoints"])]
    if dropped:
        notes.warn(f"endpoints[].topology keys dropped (clients cannot write them in v1): {', '.join(sorted(dropped))}")
    return {**obj, "endpoints": endpoints}


converter("discovery.k8s.io/v1alpha1", ["EndpointSlice"], "discovery.k8s.io/v1beta1")(rename)


def _limited(obj: Obj) -> Obj:
    return mapping(mapping(obj.get("spec")).get("limited"))


def _with_limited(obj: Obj, limited: Obj) -> Obj:
    return with_spec(obj, {**mapping(obj.get("spec")), "limited": limited})


@converter(FC + "v1beta2", ["PriorityLevelConfiguration"], FC + "v1beta3")
def priority_level_to_v1beta3(obj: Obj, notes: Notes) -> Obj:
    limited = _limited(obj)
    if "assuredConcurrencyShares" not in limited:
        return obj
    return _with_limited(obj, rename_key(limited, "assuredConcurrencyShares", "nominalConcurrencyShares"))


@converter(FC + "v1beta3", ["PriorityLevelConfiguration"], FC + "v1")
def priority_level_to_v1(obj: Obj, notes: Notes) -> Obj:
    limited = _limited(obj)
    if limited.get("nominalConcurrencyShares") != 0:
        return obj
    # v1beta3 defaulted an explicit 0 to 30; v1 keeps 0 (a level that admits nothing)
    notes.warn("spec.limited.nominalConcurrencyShares 0 meant the default 30 before v1: written as 30")
    return _with_limited(obj, {**limited, "nominalConcurrencyShares": 30})


converter(FC + "v1alpha1", ["FlowSchema", "PriorityLevelConfiguration"], FC + "v1beta1")(rename)
converter(FC + "v1beta1", ["FlowSchema", "PriorityLevelConfiguration"], FC + "v1beta2")(rename)
converter(FC + "v1beta2", ["FlowSchema"], FC + "v1beta3")(rename)
converter(FC + "v1beta3", ["FlowSchema"], FC + "v1")(rename)

LEGACY_SIGNER = "kubernetes.io/legacy-unknown"


@converter("certificates.k8s.io/v1beta1", ["CertificateSigningRequest"], "certificates.k8s.io/v1")
def csr(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    signer = spec.get("signerName")
    if not signer or signer == LEGACY_SIGNER:
        raise ConversionError(
            f"spec.signerName is {signer or 'unset'}, which certificates.k8s.io/v1 refuses: set the signer "
            "(e.g. kubernetes.io/kube-apiserver-client or kubernetes.io/kubelet-serving)"
        )
    if spec.get("usages"):
        return obj
    notes.warn("spec.usages pinned to the v1beta1 default [digital signature, key encipherment]")
    return with_spec(obj, {**spec, "usages": ["digital signature", "key encipherment"]})


def _subject(subject: object) -> object:
    if not isinstance(subject, dict) or "apiVersion" not in subject:
        return subject
    group = "" if subject.get("kind") == "ServiceAccount" else RBAC
    out = drop(subject, "apiVersion")
    out.setdefault("apiGroup", group)
    return out


@converter(RBAC + "/v1alpha1", RBAC_KINDS, RBAC + "/v1")
def rbac_from_v1alpha1(obj: Obj, notes: Notes) -> Obj:
    if "subjects" not in obj:
        return obj
    return {**obj, "subjects": [_subject(s) for s in items(obj["subjects"])]}


converter(RBAC + "/v1beta1", RBAC_KINDS, RBAC + "/v1")(rename)


@converter("events.k8s.io/v1beta1", ["Event"], "events.k8s.io/v1")
def event(obj: Obj, notes: Notes) -> Obj:
    if obj.get("type") not in (None, "Normal", "Warning"):
        notes.warn(f"type {obj.get('type')!r} is refused by v1 (Normal or Warning only)")
    missing = [k for k in ("action", "reason", "reportingController", "reportingInstance") if not obj.get(k)]
    if missing:
        notes.warn(f"v1 requires {', '.join(missing)} when an Event is created")
    return obj
