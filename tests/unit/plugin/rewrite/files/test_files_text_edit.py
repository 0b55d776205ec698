"""``convert`` writes a rewritten document as its own text with two edits when only its apiVersion and
the rewritten-from annotation change (plugin/rewrite/files/text_edit.py): what it prints always loads as the
rewritten object, and comments and layout of such documents are kept."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.plugin.rewrite.files.convert_files import convert_text
from argocd_lifecycle.plugin.rewrite.files.sources import Source, SourceError
from argocd_lifecycle.yaml import yamlio
from tests.unit.plugin.rewrite.helpers import rewriter
from tests.unit.plugin.rewrite.test_rewrite_properties import legacy, names

SOURCE = Source("app.yaml", None)
CRONJOB = "apiVersion: batch/v1beta1 # old\nkind: CronJob\n{meta}spec:\n  schedule: '0 3 * * *' # nightly\n"


def _convert(text: str) -> str:
    result = convert_text(SOURCE, text, rewriter((1, 30)))
    assert result.changed
    return result.text


def _expected(text: str) -> list[Any]:
    return rewriter((1, 30)).rewrite_all([d for d in yamlio.load_all(text) if d is not None])


def test_a_renamed_object_keeps_its_text_with_two_edits() -> None:
    text = CRONJOB.format(meta="metadata:\n  name: nightly # the job\n")
    assert _convert(text) == (
        "apiVersion: batch/v1 # old\nkind: CronJob\nmetadata:\n  annotations:\n"
        "    argocd-lifecycle.io/rewritten-from: batch/v1beta1\n  name: nightly # the job\n"
        "spec:\n  schedule: '0 3 * * *' # nightly\n"
    )


def test_existing_annotations_and_flow_metadata_get_the_annotation() -> None:
    block = CRONJOB.format(meta="metadata:\n  name: a\n  annotations:\n      # mine\n      team: x\n")
    assert "  annotations:\n      argocd-lifecycle.io/rewritten-from: batch/v1beta1\n      # mine\n" in _convert(block)
    flow = CRONJOB.format(meta="metadata: {name: a, namespace: b} # c\n")
    annotated = "annotations: {argocd-lifecycle.io/rewritten-from: batch/v1beta1}"
    assert f"metadata: {{name: a, namespace: b, {annotated}}} # c\n" in _convert(flow)
    for text in (block, flow):
        assert list(yamlio.load_all(_convert(text))) == _expected(text)


def test_other_changes_are_written_out() -> None:
    ingress = (
        "apiVersion: extensions/v1beta1 # old\nkind: Ingress\nmetadata:\n  name: web\nspec:\n"
        "  backend: {serviceName: web, servicePort: 80}\n"
    )
    again = CRONJOB.format(meta="metadata:\n  name: a\n  annotations:\n    argocd-lifecycle.io/rewritten-from: x\n")
    for text in (ingress, again, CRONJOB.format(meta="metadata:\n  name: a\n  annotations: {team: x}\n")):
        out = _convert(text)
        assert "# old" not in out and list(yamlio.load_all(out)) == _expected(text)


@st.composite
def _styled(draw: st.DrawFn) -> str:
    """Legacy objects written in several styles, with comments and quoting the edits must survive."""
    docs = []
    for drawn in draw(st.lists(legacy, min_size=1, max_size=4)):
        meta = dict(drawn["metadata"])
        if draw(st.booleans()):
            meta["annotations"] = draw(st.dictionaries(names, names, max_size=2))
        if draw(st.booleans()):
            meta["namespace"] = draw(names)
        obj = {**drawn, "metadata": meta}
        flow = draw(st.sampled_from([False, None]))
        indent = draw(st.sampled_from([2, 4]))
        text = yaml.dump(
            obj, Dumper=yaml.CSafeDumper, default_flow_style=flow, sort_keys=draw(st.booleans()), indent=indent
        )
        if draw(st.booleans()):
            text = re.sub(r"^apiVersion: (.*)$", r"apiVersion: '\1' # was", text, count=1, flags=re.M)
        if draw(st.booleans()):
            text = re.sub(r"^metadata:\n", "metadata:\n# a comment\n", text, count=1, flags=re.M)
        docs.append(text)
    return "---\n".join(docs)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_styled())
def test_what_convert_prints_loads_as_the_rewritten_objects(text: str) -> None:
    result = convert_text(SOURCE, text, rewriter((1, 30)))
    expected = [o for o in _expected(text) if o is not None]
    assert [d for d in yamlio.load_all(result.text) if d is not None] == expected


def test_documents_loaded_together_still_fail_on_their_own() -> None:
    """The documents a file needs built are loaded in one pass; when that fails, each is loaded on its
    own, so the error names the document and its line."""
    cronjob = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {{name: a{i}}}\nspec: {spec}\n"
    good = cronjob.format(i=0, spec="{x: 1}")
    two = good + "---\n" + good.replace("a0", "a1")
    assert list(yamlio.load_all(_convert(two))) == _expected(two)
    with pytest.raises(SourceError, match=r"^app.yaml#1:5:10: YAML syntax error: found unhashable key"):
        convert_text(SOURCE, good + "---\n" + cronjob.format(i=1, spec="{? [a] : b}"), rewriter((1, 30)))
