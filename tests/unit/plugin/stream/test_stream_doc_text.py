"""Documents identified from their lines (plugin/stream/doc_text.py) against libyaml's event walk: the fast path
may decline a document (it is then walked), but what it answers must be what the walk answers, on every
stream: spans, lines, identities, exactness, and the same syntax errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.plugin.stream import doc_text
from argocd_lifecycle.plugin.stream.documents import MAX_EXACT_DEPTH, index_documents, walk_documents


def _outcome(index: Any, text: str) -> Any:
    try:
        return [dataclasses.replace(d, from_lines=False) for d in index(text)]
    except yaml.YAMLError as exc:
        return ("error", type(exc).__name__, str(exc))


def _agree(text: str) -> None:
    assert _outcome(index_documents, text) == _outcome(walk_documents, text)


def _accepted(text: str) -> list[bool]:
    """Per document: whether the lines settled it (True) or it was walked (False)."""
    found = doc_text.index_text(text, MAX_EXACT_DEPTH)
    assert found is not None, "the whole stream was declined"
    return [fields is not None for *_, fields in found]


HELM = (
    "---\n# Source: chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
    "  labels:\n    app.kubernetes.io/name: web\n  annotations: {a: b}\ndata:\n  key: value\n"
    "---\n# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
    "  name: 'web'\n  namespace: \"shop\" # comment\nspec:\n  replicas: 2\n  template:\n    spec:\n"
    '      containers:\n        - name: web\n          image: nginx:1.27\n          args: ["*"]\n'
)
KUSTOMIZE = (
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  labels:\n    app: x\n"
    "  name: system:reader\nrules:\n- apiGroups:\n  - '*'\n  resources:\n  - pods\n  verbs:\n  - get\n"
    "---\napiVersion: v1\ndata:\n  script: |\n    kind: Fake\n    name: fake\nkind: ConfigMap\nmetadata:\n"
    "  generateName: cfg-\n  namespace: bench\n"
)


def test_rendered_output_is_settled_by_its_lines_and_agrees_with_the_walk() -> None:
    for stream in (HELM, KUSTOMIZE):
        assert _accepted(stream) == [True, True]
        _agree(stream)
    found = index_documents(HELM)
    assert [(d.kind, d.name, d.namespace, d.exact) for d in found] == [
        ("ConfigMap", "cfg", None, True),
        ("Deployment", "web", "shop", True),
    ]
    assert found[1].text(HELM).startswith("\n# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\n")


@pytest.mark.parametrize(
    "doc",
    [
        # lines that look like keys but are inside a multi-line scalar or flow collection
        'apiVersion: v1\ndata: "one\nkind: Fake"\nmetadata:\n  name: a\n',
        "apiVersion: v1\ndata: 'one\nkind: Fake'\nkind: Real\nmetadata:\n  name: a\n",
        "apiVersion: v1\nkind: X\ndata: [a,\nmetadata: b]\n",
        'apiVersion: v1\nkind: X\nmetadata:\n  annotations: {a: "b,\n  name: fake"}\n',
        'apiVersion: v1\nkind: X\nmetadata:\n  annotations:\n    a: "x\n  name: fake"\n  namespace: n\n',
        # values the lines cannot settle
        "apiVersion: v1\nkind: Deploy\n  ment\nmetadata:\n  name: a\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: a\n    b\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: >-\n    folded\n",
        "apiVersion: v1\nkind: 1e3\nmetadata:\n  name: a\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  labels: nope\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  labels:\n  - a\n",
        "apiVersion: v1\nkind: X\nmetadata: {name: a, labels: {x: y}}\n",
        "apiVersion: v1\nkind: X\nmetadata: {name: a,\n  namespace: b}\n",
        "apiVersion: v1\nkind: X\nkind: Y\nmetadata:\n  name: a\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: a\nx: &a 1\ny: *a\n",
        "apiVersion: v1\nkind: !!str X\nmetadata:\n  name: a\n",
        '"kind": X\napiVersion: v1\nmetadata:\n  name: a\n',
        "apiVersion: v1\nkind: List\nitems: []\n",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: a\nx: " + "[" * 70 + "]" * 70 + "\n",
    ],
)
def test_what_the_lines_cannot_settle_is_walked(doc: str) -> None:
    stream = HELM + "---\n" + doc
    assert _accepted(stream) == [True, True, False]
    _agree(stream)


@pytest.mark.parametrize(
    "stream",
    [
        "\ufeffapiVersion: v1\nkind: X\nmetadata:\n  name: a\n---\nkind: Y\n",
        "apiVersion: v1\r\nkind: X\r\nmetadata:\r\n  name: a\r\n",
        "%YAML 1.1\n---\napiVersion: v1\nkind: X\n",
        "a: 1\n...\nb: 2\n",  # content after an end marker: a syntax error
        'a: "x\n---\ny"\n',  # a marker inside a quoted scalar: a syntax error
    ],
)
def test_streams_declined_whole_agree_with_the_walk(stream: str) -> None:
    assert doc_text.index_text(stream, MAX_EXACT_DEPTH) is None
    _agree(stream)


def test_a_leading_bom_is_not_part_of_the_first_document() -> None:
    stream = "\ufeffapiVersion: v1\nkind: X\nmetadata:\n  name: a\n---\nkind: Y\n"
    first, second = walk_documents(stream)
    assert first.text(stream) == "apiVersion: v1\nkind: X\nmetadata:\n  name: a\n"
    assert second.text(stream) == "\nkind: Y\n"


# --- generated streams: the fast path against the walk --------------------------------------------

_VALUES = [
    "v1", "apps/v1", "'v1'", '"v1"', "v1 # c", "~", "system:x", "a-b.c", "''", '""', "'it''s'", '"a b"', "1", "y",
    "on", "~", "null", "1e3", "12:30",
    "0o14", "v1#c", "&a v1", "*a", "!!str v1", "[v1]", "{a: b}", "v1\n  more", "|\n  lit", ">-\n  fold",
    "", " # only a comment", "a: b", "é", '"\\x41"', "v1\n\n  more", "v1\n  # c\nz: 1", "x:",
    "\n- a", "\n  - a", "\n  a: b", "\n# c\n  v1", "~x", "v1 ", "'a'b", "'a' #c", "'a'#c", '"a" # c',
]  # fmt: skip
_META = [
    "metadata:\n  name: {v}\n  namespace: {v}\n",
    "metadata: {{name: {v}, namespace: ns}}\n",
    "metadata:\n  generateName: {v}\n",
    "metadata:\n    name: {v}\n    labels:\n      a: b\n",
    "metadata:\n  labels:\n    a: b\n  annotations: {{x: y}}\n  name: {v}\n",
    "metadata:\n  labels: {v}\n  name: a\n",
    "metadata:\n  annotations:\n  name: {v}\n",
    "metadata:\n  labels:\n  - a\n",
    "metadata:\n  labels:\n    - a\n",
    "metadata:\n  - name: a\n",
    "metadata: {{name: {v}}}\n",
    "metadata: {{name: {v}}} # c\n",
    "metadata: {{}}\n",
    "metadata: {{name: 'a,b', uid: x, name: y}}\n",
    "metadata: {{name: a, labels: {{}}}}\n",
    "metadata: {{name: a,\n  namespace: {v}}}\n",
    "metadata: {{name: a}}\n  namespace: {v}\n",
    "metadata: {{name: {v}, namespace: a:b}}\n",
    "metadata:\n",
    "metadata: # c\n  name: {v}\n",
    "metadata:\n  name: a\n  name: {v}\n",
    'metadata:\n  "name": {v}\n',
    "metadata:\n  name: a\n   uid: b\n",
    "metadata:\n   uid: b\n  name: a\n",
    "metadata:\n  # c\n  name: {v}\n\n# col 0\n  namespace: n\n",
    'metadata:\n  annotations:\n    a: "x\n  name: fake"\n',
    "metadata:\n  annotations: {{a: 'x,\n  name: fake'}}\n",
    "metadata:\n  annotations:\n    a: |\n      name: fake\n  name: {v}\n",
    'metadata:\n  name: {v}\n  finalizers: [a]\n  labels:\n    "quoted": x\n',
    "metadata:\n\tname: a\n",
    "metadata:\n  name: a\n\t\n",
    "metadata: &m\n  name: a\n",
]
_BODY = [
    "spec: {{a: 1}}\n", "data:\n  k: v\n", "rules:\n- a: '*'\n  b: [x]\n",
    "data:\n  script: |\n    kind: Fake\n    ---\n", "data: |\n  name: x\n",
    'data: "multi\nkind: fake"\n', "data: 'multi\nmetadata: fake'\n", "data: [a,\nkind: fake]\n",
    "data: {{a: b,\nkind: fake}}\n", "x: &a 1\ny: *a\n", "<<: {{a: b}}\n", "items: []\n", "items: x\n",
    "spec: !!map {{}}\n",
    "? complex\n: v\n", '"quoted": v\n', "'kind': v\n", "x: a\n  b\n", "k:v\n", "spec:\n- a\n- b\n", "x: '*'\n",
    "x: a && b\n", 'x: "---"\n', "x: |\n  ---\n", "x: 😀\n", "x: [[[[[[[[[[1]]]]]]]]]]\n", "x:\ttab\n",
    "x: y\n\t- z\n", "# comment\n", "\n", "  # indented comment\n", "x: " + "[" * 40 + "]" * 40 + "\n",
    "".join("  " * i + f"k{i}:\n" for i in range(34)) + "  " * 34 + "leaf: 1\n",
    "".join("  " * i + "- \n" for i in range(20)), "spec:\n  " + "- " * 30 + "x\n",
    "x: 1 # {v}\n", "x: {v}\n",
]  # fmt: skip
_ROOTS = [
    "- a\n- b\n", "plain scalar\n", "'quoted'\n", "{{a: 1}}\n", "[1]\n", "~\n", "!!map {{}}\n", "|\n  text\n",
    "  indented: root\n  more: x\n", "# only a comment\n", "", "&x a: 1\n", "a: 1\n- b\n", "*x\n",
]  # fmt: skip
_SEPARATORS = [
    "---\n",
    "--- \n",
    "---\t# c\n",
    "--- # c\n",
    "...\n---\n",
    "\n---\n",
    "--- |\n  x\n---\n",
    "---\n...\n---\n",
]


def _mostly_simple(items: list[str], simple: int) -> st.SearchStrategy[str]:
    """Half of the draws from the first ``simple`` items (documents the lines settle), half from all."""
    return st.one_of(st.sampled_from(items[:simple]), st.sampled_from(items))


@st.composite
def _documents(draw: st.DrawFn) -> str:
    value = _mostly_simple(_VALUES, 8)
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(_ROOTS))
    lines = []
    if draw(st.integers(0, 4)):
        lines.append(f"apiVersion: {draw(value)}\n")
    if draw(st.integers(0, 4)):
        lines.append(f"kind: {draw(value)}\n")
    if draw(st.integers(0, 4)):
        lines.append(draw(_mostly_simple(_META, 5)).format(v=draw(value)))
    lines += [draw(_mostly_simple(_BODY, 3)).format(v=draw(value)) for _ in range(draw(st.integers(0, 3)))]
    lines = draw(st.permutations(lines))
    lead = draw(st.sampled_from(["", "# Source: x.yaml\n", "\n"]))
    return lead + "".join(lines)


@st.composite
def _streams(draw: st.DrawFn) -> str:
    docs = draw(st.lists(_documents(), min_size=1, max_size=4))
    out = draw(st.sampled_from(["", "---\n", "# head\n"])) + docs[0]
    for doc in docs[1:]:
        out += draw(_mostly_simple(_SEPARATORS, 1)) + doc
    out += draw(st.sampled_from(["", "...\n", "---\n", "# tail", "\n\n"]))
    if draw(st.integers(0, 39)) == 0:
        out = out.replace("\n", "\r\n")
    if draw(st.integers(0, 39)) == 0:
        out = "\ufeff" + out
    return out.rstrip("\n") if draw(st.integers(0, 9)) == 0 else out


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_streams())
@example("apiVersion: v1\nkind: X\n---\n---\napiVersion: v1\n")
@example("  a: 1\n---\nkind: X\n")
@example("# c\n---\napiVersion: v1\nkind: X\nmetadata:\n  name: a\n...\n# after\n---\nkind: Y\n")
def test_the_lines_agree_with_the_walk(stream: str) -> None:
    _agree(stream)
    if _has_alias(stream):
        assert doc_text.may_hold_aliases(stream)


def _has_alias(stream: str) -> bool:
    try:
        return any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(stream, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return False


@pytest.mark.parametrize(
    ("stream", "aliases"),
    [
        ("a: *b\n", True),
        ("a: [x, *b]\n", True),
        ("a: {b:*c}\n", True),
        ("- a\n-\t*b\n", True),
        ("a: 1\n---\n\ufeff*x\n", True),
        ("verbs: ['*']\nhost: \"*.example.test\"\ncron: '*/5 * * * *'\nrun: a && b\nglob: a*b\n", False),
    ],
)
def test_what_may_be_an_alias(stream: str, aliases: bool) -> None:
    assert doc_text.may_hold_aliases(stream) is aliases
    assert _has_alias(stream) <= aliases


def test_the_generated_streams_exercise_the_fast_path() -> None:
    """Most simple documents are settled by their lines (else the property above proves little)."""
    accepted = []
    for v in ("v1", "'v1'", '"v1"', "v1 # c", "~", ""):
        for meta in _META[:5]:
            stream = f"apiVersion: {v}\nkind: X\n" + meta.format(v="a") + "spec: {a: 1}\n"
            accepted += _accepted(stream)
            _agree(stream)
    assert all(accepted)
