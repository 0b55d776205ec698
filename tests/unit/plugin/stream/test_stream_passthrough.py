"""Reading a stream without rebuilding it (plugin/stream/documents.py, plugin/stream/passthrough.py): identities from
libyaml's events, the document text kept, objects built only when asked for, and exactly the objects a
full load gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.stream.documents import index_documents
from argocd_lifecycle.plugin.stream.parse import load_documents, to_manifests
from argocd_lifecycle.plugin.stream.passthrough import read_stream, secret_objects
from argocd_lifecycle.yaml import yamlio

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\ndata: {{a: '1'}}\n"


def test_documents_keep_their_text_and_are_built_only_when_asked() -> None:
    stream = "# Source: a.yaml\n" + CM.format(name="a") + "---\n# c\n---\n" + CM.format(name="b") + "...\n"
    manifests = read_stream(stream, "helm template")
    assert [(m.kind, m.name, m.namespace, m.index) for m in manifests] == [
        ("ConfigMap", "a", "shop", 0),
        ("ConfigMap", "b", "shop", 1),
    ]
    assert manifests[0].text == "# Source: a.yaml\n" + CM.format(name="a")
    assert manifests[1].text == CM.format(name="b")
    assert all(m.built is None for m in manifests)  # identity came from the events alone
    assert manifests[1].obj == yamlio.load(CM.format(name="b"))


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: a}\nx: *m\n", "an alias"),
        ("apiVersion: v1\nkind: !!str ConfigMap\nmetadata: {name: a}\n", "a tag"),
        ("<<: {kind: Secret}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", "a merge key"),
        ("apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n", "a key twice"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 0x1F}\n", "a name that is a number"),
        ("apiVersion: v1\nkind: ConfigMapList\nitems: []\n", "maybe a List"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: [x]}\n", "labels not a mapping"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nx: " + "[" * 70 + "]" * 70 + "\n", "deep"),
    ],
)
def test_what_the_events_cannot_settle_is_loaded(doc: str, why: str) -> None:
    (info,) = index_documents(doc)
    assert not info.exact, why


def test_globs_and_shell_lines_do_not_make_the_stream_load_whole() -> None:
    role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n- verbs: ['*']\n"
    job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {command: [sh, -c, 'a && b']}\n"
    manifests = read_stream(role + "---\n" + job, "t")
    assert [m.built for m in manifests] == [None, None]  # identified without building (no alias possible)
    assert [m.text for m in manifests] == [role, job]


def test_secrets_and_lists_are_loaded_at_once() -> None:
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: hunter22}\n"
    listed = "apiVersion: v1\nkind: List\nitems:\n- " + CM.format(name="x").replace("\n", "\n  ").rstrip() + "\n"
    manifests = read_stream(secret + "---\n" + listed, "t")
    assert [m.kind for m in manifests] == ["Secret", "ConfigMap"]
    assert secret_objects(manifests) == [yamlio.load(secret)]
    assert manifests[0].text == secret and manifests[1].text is None  # a List's items are written anew


def test_a_document_that_fails_to_load_is_placed_in_the_whole_stream() -> None:
    stream = CM.format(name="a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nx: !!int abc\n"
    with pytest.raises(RenderError, match=r"^t:11:4: YAML syntax error: .*cannot decode str `abc` as a !!int"):
        read_stream(stream, "t")
    with pytest.raises(RenderError, match=r"^t:2:1: YAML syntax error: .*did not find expected key"):
        read_stream("a: 1\n- b\n", "t")


def test_objects_that_are_not_kubernetes_objects_are_named() -> None:
    with pytest.raises(RenderError, match=r"^t#1: object lacks metadata.name"):
        read_stream(CM.format(name="a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "t")


names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
scalars = st.one_of(names, st.sampled_from(["y", "1e3", "12:30", "~", "'q'", '"d"', "0o1", "x: y"]))
entries = st.lists(st.tuples(st.sampled_from(["apiVersion", "kind", "data", "items", "spec", "<<"]), scalars))


@st.composite
def streams(draw: st.DrawFn) -> str:
    docs = []
    for _ in range(draw(st.integers(1, 4))):
        head = draw(st.sampled_from(["apiVersion: v1\nkind: ConfigMap\n", "kind: Secret\napiVersion: v1\n", ""]))
        meta = draw(st.sampled_from(["metadata: {name: %s}\n", "metadata:\n  name: %s\n  namespace: n\n", ""]))
        body = "".join(f"{k}: {v}\n" for k, v in draw(entries) if k != "<<" or v.isalpha())
        alias = draw(st.sampled_from(["", "anchor: &a {x: 1}\nuse: *a\n"]))
        docs.append(head + (meta % draw(names) if meta else "") + body + alias)
    return draw(st.sampled_from(["---\n", "\n---\n", "--- \n"])).join(docs)


def _load_all(stream: str) -> list[Any] | str:
    try:
        return [m.obj for m in to_manifests(load_documents(stream, "t"), "t")]
    except RenderError as exc:
        return exc.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_the_same_objects_as_a_full_load(stream: str) -> None:
    expected = _load_all(stream)
    try:
        manifests = read_stream(stream, "t")
    except RenderError as exc:
        assert isinstance(expected, str), exc.message
        return
    assert [m.obj for m in manifests] == expected
    for m in manifests:
        if m.text is not None:
            assert yamlio.load(m.text) == m.obj and m.text in stream


def test_the_transforms_build_only_the_objects_they_may_change(tmp_path: Path) -> None:
    from argocd_lifecycle.plugin.diagnostics import Diagnostics
    from argocd_lifecycle.plugin.transforms.plan import run
    from tests.unit.plugin.transforms.helpers import planned

    deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"
    other = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: db}\nspec: {replicas: 1}\n"
    hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"
    hpa += "spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3}\n"
    ingress = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: shop}\nspec: {}\n"
    stream = "---\n".join([CM.format(name="a"), deploy, other, hpa, ingress])
    manifests = read_stream(stream, "t")
    out = run(planned(tmp_path, KUBE_VERSION="1.29"), manifests, Diagnostics())
    configmap, web, db, scaler, rewritten = out
    assert configmap.built is None and db.built is None  # decided on their identity alone
    assert configmap is manifests[0] and db is manifests[2] and scaler is manifests[3]  # kept as they were
    assert web.text is None and "replicas" not in web.obj["spec"]  # changed: written anew
    assert rewritten.text is None and rewritten.api_version == "networking.k8s.io/v1"
