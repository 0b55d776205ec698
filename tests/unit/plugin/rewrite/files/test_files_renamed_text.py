"""``convert`` renames a document identified from its lines without loading it when its rewrite is
renames only (plugin/rewrite/files/text_edit.py ``renamed``). Differential: that path and loading the
document give the same text, messages, counts and errors, on generated documents (layouts, comments,
existing annotations, quoting, hostile keys) and on the real fixture manifests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.convert import registry
from argocd_lifecycle.plugin.rewrite.engine import Rewriter
from argocd_lifecycle.plugin.rewrite.files import text_edit
from argocd_lifecycle.plugin.rewrite.files.convert_files import convert_text
from argocd_lifecycle.plugin.rewrite.files.keeps import KEEPS
from argocd_lifecycle.plugin.rewrite.files.sources import Source, SourceError
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target
from tests.unit.plugin.rewrite.helpers import OWN_FIXTURES, REFERENCE_FIXTURES

SOURCE = Source("app.yaml", None)
KEY = "argocd-lifecycle.io/rewritten-from"


def _run(text: str, version: tuple[int, int], policy: Policy) -> tuple[Any, ...]:
    rw = Rewriter(builtin(), Target.of(version), policy)
    try:
        result = convert_text(SOURCE, text, rw)
    except SourceError as exc:
        return ("error", exc.message, rw.warnings, rw.infos, rw.problems)
    return (result.text, result.changed, rw.warnings, rw.infos, rw.problems, rw.converted, rw.dropped)


def _both(text: str, version: tuple[int, int], policy: Policy, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """The outcome with the text path, asserted equal to the load path's; and how often renamed() edited."""
    calls: list[bool] = []
    real = text_edit.renamed

    def counted(*args: str) -> str | None:
        out = real(*args)
        calls.append(out is not None)
        return out

    with monkeypatch.context() as m:
        m.setattr(text_edit, "renamed", counted)
        fast = _run(text, version, policy)
    with monkeypatch.context() as m:
        m.setattr(text_edit, "renamed", lambda *args: None)
        loaded = _run(text, version, policy)
    assert fast == loaded
    return fast, sum(calls)


RENAMES = [
    ("batch/v1beta1", "CronJob"),
    ("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
    ("scheduling.k8s.io/v1beta1", "PriorityClass"),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema"),  # three renames in a chain
    ("rbac.authorization.k8s.io/v1beta1", "ClusterRole"),  # its rules are looked at once PSP is gone
    ("storage.k8s.io/v1beta1", "StorageClass"),
    # renames unless the text holds what their converter changes
    ("policy/v1beta1", "PodDisruptionBudget"),  # an empty selector
    ("autoscaling/v2beta1", "HorizontalPodAutoscaler"),  # metrics
    ("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration"),  # the concurrency shares
    ("rbac.authorization.k8s.io/v1alpha1", "RoleBinding"),  # subjects
    ("discovery.k8s.io/v1beta1", "EndpointSlice"),  # endpoints
    ("admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration"),  # webhooks
    ("apps/v1beta2", "Deployment"),  # a spec.selector shown by the text
    ("extensions/v1beta1", "ReplicaSet"),  # likewise
    ("apps/v1", "Deployment"),  # nothing to do
]
METADATA = [
    "metadata:\n  name: a\n",
    "metadata:\n  name: a # c\n  namespace: 'ns'\n",
    "metadata:\n# a comment\n    name: a\n    labels: {x: y}\n",
    "metadata:\n  name: a\n  annotations:\n    team: x\n",
    "metadata:\n  name: a\n  annotations:\n      # mine\n      team: x\n",
    "metadata:\n  name: a\n  annotations:\n",
    "metadata:\n  name: a\n  annotations: {team: x}\n",
    "metadata:\n  generateName: a-\n  annotations:\n    'argocd-lifecycle.io/rewritten-from': x\n",
    f"metadata:\n  name: a\n  annotations:\n    {KEY}: batch/v1alpha1\n",
    'metadata:\n  name: a\n  annotations:\n    team: x\n    "argocd-lifecycle.io\\x2Frewritten-from": x\n',
    'metadata:\n  name: a\n  annotations:\n    team: x\n    "argocd-lifecycle.io/rewritten-\\\n    from": x\n',
    "metadata:\n  name: a\n  annotations:\n    team: x\n    ? argocd-lifecycle.io/rewritten-from\n    : x\n",
    "metadata: {name: a, namespace: b} # c\n",
    "metadata: {}\n",
    "metadata:\n",
    "metadata: ~\n",
    "metadata: x\n",
    "",
]
SPECS = [
    "spec:\n  schedule: '0 3 * * *' # nightly\n",
    "spec: {x: [1, 2], y: {z: w}}\n",
    "spec:\n  command: [sh, -c, 'echo \"a\\b\"']\n",
    "spec:\n  url: http://x/?q=1\n",
    "spec: {? [a] : b}\n",
    "spec:\n  [a, b]: c\n",
    "spec: {[a]}\n",
    "spec: {x: 1, {y: 2}: 3}\n",
    "spec: {x: 1,\n  [y]: 2}\n",
    "spec:\n  <<: {x: 1}\n",
    "spec:\n  <<: 1\n",
    "spec:\n  ? x\n  : y\n",
    "spec:\n  n: 123456789012345678901234567890\n",
    "rules:\n- resources: [podsecuritypolicies]\n  verbs: [use]\n",
    "spec:\n  selector: {}\n  minAvailable: 1\n",
    "spec: {selector: { # none\n  }, maxReplicas: 2}\n",
    "spec:\n  selector: {matchLabels: {app: a}}\n  metrics: [{type: Pods, pods: {metricName: q}}]\n",
    "spec:\n  limited: {assuredConcurrencyShares: 5}\n",
    "spec:\n  limited:\n    nominalConcurrencyShares: 0\n",
    "subjects:\n- {kind: User, name: u, apiVersion: rbac.authorization.k8s.io/v1alpha1}\n",
    "endpoints:\n- addresses: [10.0.0.1]\n  topology: {kubernetes.io/hostname: h}\n",
    "webhooks:\n- name: a\n- name: a\n",
    "webhooks:\n- {name: w, clientConfig: {url: 'https://x'}}\n",
    "data: {note: metrics and subjects, webhooks: '{}'}\n",
    "spec:\n  replicas: 2\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata: {labels: {app: a}}\n",
    "spec:\n  selector: {matchLabels: {app: a}} # c\n  template: {metadata: {labels: {app: a}}}\n",
    "spec:\n  template:\n    metadata:\n      labels: {app: a}\n",
    "spec:\n  selector: ~\n  template:\n    metadata:\n      labels: {app: a}\n",
    "spec:\n  selector:\n  template: {metadata: {labels: {app: a}}}\n",
    "spec:\n  selector: {app: a}\n  selector : null\n  template: {metadata: {labels: {app: a}}}\n",
    "spec:\n  note: 'x\n  selector: {app: a}'\n  template: {metadata: {labels: {app: a}}}\n",
    "spec:\n  note: |\n    selector: x\n  template: {metadata: {labels: {b: c}}}\n",
    "spec:\n    selector: {app: a}\n    # a comment\n    template: {}\n",
    "spec:\n  selector:\n  - a\n",
    "",
]
APIS = ["{api}", "'{api}'", '"{api}"', "{api} # old", "  {api}"]


@st.composite
def documents(draw: st.DrawFn) -> str:
    docs = []
    for _ in range(draw(st.integers(1, 4))):
        api, kind = draw(st.sampled_from(RENAMES))
        head = f"apiVersion: {draw(st.sampled_from(APIS)).format(api=api)}\nkind: {kind}\n"
        parts = [head, draw(st.sampled_from(METADATA)), draw(st.sampled_from(SPECS))]
        if draw(st.booleans()):
            parts = [parts[0], parts[2], parts[1]]
        docs.append("".join(parts))
    return draw(st.sampled_from(["---\n", "--- # next\n", "\n---\n"])).join(docs)


policies = st.builds(Policy, st.sampled_from(list(OnRemoved)))
versions = st.tuples(st.just(1), st.integers(18, 37))


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=documents(), version=versions, policy=policies)
def test_renaming_the_text_equals_loading_the_document(
    text: str, version: tuple[int, int], policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    _both(text, version, policy, monkeypatch)


@pytest.mark.parametrize(
    "path",
    sorted([*OWN_FIXTURES.glob("*.in.yaml"), *REFERENCE_FIXTURES.glob("*.in.yaml")]),
    ids=lambda p: p.name,
)
def test_real_manifests_convert_alike_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text(encoding="utf-8")
    for version in ((1, 16), (1, 22), (1, 25), (1, 29), (1, 33)):
        for on_removed in OnRemoved:
            _both(text, version, Policy(on_removed), monkeypatch)


def test_renames_skip_the_loader_and_keep_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "apiVersion: 'batch/v1beta1' # old\nkind: CronJob\nmetadata: {name: a} # c\nspec: {x: 1}\n---\n"
        "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  namespace: ns\n"
        "  annotations:\n    team: x\nspec: {maxReplicas: 2}\n"
    )
    out, edited = _both(text, (1, 30), Policy(), monkeypatch)
    assert edited == 2
    assert out[0] == (
        "apiVersion: batch/v1 # old\nkind: CronJob\n"
        f"metadata: {{name: a, annotations: {{{KEY}: batch/v1beta1}}}} # c\nspec: {{x: 1}}\n---\n"
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n  namespace: ns\n"
        f"  annotations:\n    {KEY}: autoscaling/v2beta2\n    team: x\nspec: {{maxReplicas: 2}}\n"
    )
    assert out[3] == [
        "CronJob/a (app.yaml#0): rewritten from batch/v1beta1 to batch/v1 for Kubernetes 1.30",
        "HorizontalPodAutoscaler/ns/h (app.yaml#1): rewritten from autoscaling/v2beta2 to autoscaling/v2 "
        "for Kubernetes 1.30",
    ]


@pytest.mark.parametrize(
    "spec",
    ["{? [a] : b}", "{[a]}", "{x: 1, {y: 2}: 3}", "{<<: 1}", "{x: '\\'}", f"{{'{KEY}': 1}}"],
)
def test_what_the_text_cannot_settle_is_loaded(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys the loader refuses, merge keys, escapes and the annotation key anywhere: load, as before."""
    text = f"apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: a\nspec: {spec}\n"
    assert not text_edit.loads_plainly(text) or text_edit.renamed(text, "batch/v1beta1", "batch/v1") is None
    assert _both(text, (1, 30), Policy(), monkeypatch)[1] == 0


def test_an_unhashable_key_still_fails_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: a\nspec: {x: 1,\n  [y]: 2}\n"
    out, _ = _both(text, (1, 30), Policy(), monkeypatch)
    assert out[0] == "error" and "found unhashable key" in out[1]


def test_the_size_limit_still_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    from argocd_lifecycle.yaml import yamlio

    monkeypatch.setattr(yamlio, "DEFAULT_LIMITS", yamlio.Limits(max_expanded_bytes=100))
    text = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: a\nspec:\n  x: " + "y" * 200 + "\n"
    assert not text_edit.loads_plainly(text)


def test_a_converter_that_changes_nothing_the_text_holds_is_a_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PodDisruptionBudget changes only when its selector is empty (``{}``, the one way to write an
    empty mapping without a tag); any other is renamed as text."""
    pdb = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {{name: p}}\nspec: {spec}\n"
    kept = pdb.format(spec="{minAvailable: 1, selector: {matchLabels: {app: a}}}")
    out, edited = _both(kept, (1, 25), Policy(), monkeypatch)
    assert edited == 1 and out[0].startswith("apiVersion: policy/v1\n") and "{app: a}" in out[0]
    for empty in ("{selector: {}}", "{selector: { }}", "{selector: {  # none\n  }}"):
        out, edited = _both(pdb.format(spec=empty), (1, 25), Policy(), monkeypatch)
        assert edited == 0 and "selector" not in out[0] and "empty spec.selector removed" in out[2][0]


@pytest.mark.parametrize(
    ("api", "kind", "version", "changed"),
    [
        ("autoscaling/v2beta1", "HorizontalPodAutoscaler", (1, 26), "spec: {metrics: [{type: Pods, pods: {}}]}"),
        ("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration", (1, 29), "spec:\n  limited:\n"
         "    assuredConcurrencyShares: 5\n"),
        ("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration", (1, 30), "spec:\n  limited:\n"
         "    nominalConcurrencyShares: 0\n"),
        ("rbac.authorization.k8s.io/v1alpha1", "RoleBinding", (1, 22), "subjects: [{kind: User, apiVersion: x}]"),
        ("discovery.k8s.io/v1beta1", "EndpointSlice", (1, 25), "endpoints:\n- topology: {kubernetes.io/hostname: h}\n"),
        ("admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration", (1, 22), "webhooks: [{name: w}]"),
    ],
)  # fmt: skip
def test_each_converter_that_may_keep_is_loaded_when_the_text_holds_its_field(
    api: str, kind: str, version: tuple[int, int], changed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: a\n"
    _out, edited = _both(head + "spec: {x: 1}\n", version, Policy(), monkeypatch)
    assert edited == 1
    out, edited = _both(head + changed.rstrip("\n") + "\n", version, Policy(), monkeypatch)
    assert edited == 0 and out[0] != "error" and out[5] == 1


@pytest.mark.parametrize(
    "spec",
    [
        "spec: " + "[" * 200 + "]" * 200,
        "spec:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 200)) + " " * 200 + "x: 1",
        "spec:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 9)),
    ],
    ids=["deep-flow", "deep-block", "alias-bomb"],
)
def test_a_rename_is_no_way_around_the_loader_limits(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nesting past the loader's depth limit and alias bombs are refused, as when the document is loaded."""
    text = f"apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: a\n{spec}\n"
    out, edited = _both(text, (1, 30), Policy(), monkeypatch)
    assert edited == 0 and out[0] == "error" and ": refused: " in out[1]


@pytest.mark.parametrize(
    ("spec", "edited"),
    [
        ("spec:\n  replicas: 1\n  selector:\n    matchLabels: {app: a}\n  template: {}\n", 1),
        ("spec:\n  selector: {matchLabels: {app: a}}\n", 1),
        ("spec:\n  template:\n    metadata:\n      labels: {app: a}\n", 0),  # a selector to write
        ("spec:\n  selector: null\n  template:\n    metadata:\n      labels: {app: a}\n", 0),
        ("spec:\n  selector: {app: a}\n  selector:\n  template: {metadata: {labels: {app: a}}}\n", 0),
        ('spec:\n  x: "a\n  selector: {app: a}"\n  template: {metadata: {labels: {app: a}}}\n', 0),
        ("spec:\n  template:\n    selector: {app: a}\n    metadata: {labels: {app: a}}\n", 0),
        ("spec: {selector: {matchLabels: {app: a}}}\n", 0),  # flow: not read
    ],
)
def test_a_beta_workload_is_renamed_as_text_when_it_shows_its_selector(
    spec: str, edited: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = f"apiVersion: apps/v1beta2\nkind: Deployment\nmetadata:\n  name: a\n{spec}"
    out, count = _both(text, (1, 16), Policy(), monkeypatch)
    assert count == edited and out[0].startswith("apiVersion: apps/v1\n") and out[5] == 1


def test_the_keeps_table_names_only_registered_converters() -> None:
    # one table of the text predicates (plugin/rewrite/files/keeps.py): an entry for a step that is not
    # registered, or for a plain rename (which keeps every document), would be a predicate nobody runs
    registry.load()
    converting = {key for key, step in registry.STEPS.items() if step.fn is not registry.rename}
    assert set(KEEPS) <= converting
    assert all(registry.STEPS[key].keeps_text is KEEPS[key] for key in KEEPS)
