"""Properties (hypothesis): converting twice equals converting once; served objects pass through
byte-identical; the event-based document index agrees with a full parse."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.engine import Rewriter
from argocd_lifecycle.plugin.rewrite.files.convert_files import convert_text
from argocd_lifecycle.plugin.rewrite.files.sources import Source
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target, served
from argocd_lifecycle.plugin.stream.documents import index_documents
from argocd_lifecycle.yaml import yamlio
from tests.unit.plugin.rewrite.helpers import rewriter

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
label_maps = st.dictionaries(names, names, min_size=1, max_size=3)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=12), names)
data = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(names, inner, max_size=3)),
    max_leaves=12,
)
versions = st.tuples(st.just(1), st.integers(16, 37))


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    api = draw(st.sampled_from(["extensions/v1beta1", "apps/v1beta1", "apps/v1beta2"]))
    kinds = {
        "extensions/v1beta1": ["Deployment", "DaemonSet", "ReplicaSet"],
        "apps/v1beta1": ["Deployment", "StatefulSet"],
        "apps/v1beta2": ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"],
    }
    labels = draw(label_maps)
    spec: dict[str, Any] = {
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": draw(names)}]}}
    }
    if draw(st.booleans()):
        spec["selector"] = {"matchLabels": labels}
    if draw(st.booleans()):
        spec["strategy"] = draw(
            st.sampled_from([{"type": "Recreate"}, {"type": "RollingUpdate"}, {"rollingUpdate": {"maxSurge": 2}}])
        )
    if draw(st.booleans()):
        spec["rollbackTo"] = {"revision": draw(st.integers(1, 9))}
    return {
        "apiVersion": api,
        "kind": draw(st.sampled_from(kinds[api])),
        "metadata": {"name": draw(names)},
        "spec": spec,
    }


@st.composite
def ingresses(draw: st.DrawFn) -> dict[str, Any]:
    def backend() -> dict[str, Any]:
        return {
            "serviceName": draw(names),
            "servicePort": draw(st.one_of(st.integers(1, 65535), names, st.from_regex(r"[0-9]{1,4}", fullmatch=True))),
        }

    paths = [
        {"path": "/" + draw(names), "backend": backend()} | draw(st.sampled_from([{}, {"pathType": "Prefix"}]))
        for _ in range(draw(st.integers(0, 3)))
    ]
    spec: dict[str, Any] = {"rules": [{"host": draw(names) + ".example.test", "http": {"paths": paths}}]}
    if draw(st.booleans()):
        spec["backend"] = backend()
    api = draw(st.sampled_from(["extensions/v1beta1", "networking.k8s.io/v1beta1"]))
    return {"apiVersion": api, "kind": "Ingress", "metadata": {"name": draw(names)}, "spec": spec}


@st.composite
def hpas(draw: st.DrawFn) -> dict[str, Any]:
    metric = st.sampled_from(
        [
            {"type": "Resource", "resource": {"name": "cpu", "targetAverageUtilization": 50}},
            {"type": "Pods", "pods": {"metricName": "q", "targetAverageValue": "3"}},
            {"type": "External", "external": {"metricName": "e", "targetValue": "1"}},
        ]
    )
    return {
        "apiVersion": "autoscaling/v2beta1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": draw(names)},
        "spec": {"maxReplicas": draw(st.integers(1, 9)), "metrics": draw(st.lists(metric, max_size=3))},
    }


@st.composite
def simple(draw: st.DrawFn) -> dict[str, Any]:
    api, kind = draw(
        st.sampled_from(
            [
                ("batch/v1beta1", "CronJob"),
                ("policy/v1beta1", "PodDisruptionBudget"),
                ("rbac.authorization.k8s.io/v1beta1", "ClusterRole"),
                ("flowcontrol.apiserver.k8s.io/v1beta1", "PriorityLevelConfiguration"),
                ("storage.k8s.io/v1beta1", "StorageClass"),
                ("policy/v1beta1", "PodSecurityPolicy"),
                ("v1", "ConfigMap"),
                ("apps/v1", "Deployment"),
            ]
        )
    )
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": draw(names), "labels": draw(label_maps)},
        "spec": draw(data),
    }


legacy = st.one_of(workloads(), ingresses(), hpas(), simple())


@SETTINGS
@given(objs=st.lists(legacy, min_size=1, max_size=6), version=versions, upgrade=st.booleans())
def test_converting_twice_equals_converting_once(
    objs: list[dict[str, Any]], version: tuple[int, int], upgrade: bool
) -> None:
    target = Target.of(version, upgrade_to=(1, version[1] + 1) if upgrade else None)

    def run(items: list[Any]) -> list[Any]:
        return Rewriter(builtin(), target, Policy(OnRemoved.DROP)).rewrite_all(items)

    once = run(objs)
    twice = run([o for o in once if o is not None])
    assert twice == [o for o in once if o is not None]
    assert yamlio.dump_all(twice) == yamlio.dump_all([o for o in once if o is not None])


def _served_only(objs: list[dict[str, Any]], version: tuple[int, int]) -> list[dict[str, Any]]:
    target = Target.of(version)
    return [o for o in objs if served(builtin(), target, o["apiVersion"], o["kind"])]


@SETTINGS
@given(objs=st.lists(legacy, min_size=1, max_size=6), version=versions)
def test_objects_on_served_versions_pass_through_byte_identical(
    objs: list[dict[str, Any]], version: tuple[int, int]
) -> None:
    kept = _served_only(objs, version)
    rw = rewriter(version)
    assert all(a is b for a, b in zip(rw.rewrite_all(kept), kept, strict=True))
    # and through `convert` on text: the stream comes back byte for byte
    text = yamlio.dump_all(kept) if kept else ""
    result = convert_text(Source("stream.yaml", None), text, rewriter(version))
    assert result.text == text and not result.changed


@SETTINGS
@given(objs=st.lists(st.one_of(legacy, data), max_size=6), flow=st.booleans())
def test_document_index_agrees_with_a_full_parse(objs: list[Any], flow: bool) -> None:
    import yaml

    text = yaml.dump_all(objs, Dumper=yaml.CSafeDumper, default_flow_style=flow, explicit_start=True)
    docs = [d for d in yamlio.load_all(text) if d is not None]
    index = index_documents(text)
    assert len(index) == len(docs)
    for info, doc in zip(index, docs, strict=True):
        assert yamlio.load(info.text(text)) == doc
        assert info.mapping == isinstance(doc, dict)
        if isinstance(doc, dict) and info.exact:
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            expect = [doc.get("apiVersion"), doc.get("kind"), meta.get("name"), meta.get("namespace")]
            got = [info.api_version, info.kind, info.name, info.namespace]
            # the index reports scalars as text; the parse may turn them into numbers or booleans
            assert got == [None if v is None else (v if isinstance(v, str) else got[i]) for i, v in enumerate(expect)]
