"""Lists read whole: paged from the API through Kube.call, and kubectl -o json files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.kube.lists import ListFileError, items, load_document, pages


class Pager:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if kwargs.get("_continue") is None:
            return {"items": [{"n": 1}, {"n": 2}], "metadata": {"continue": "next"}}
        return {"items": [{"n": 3}], "metadata": {}}


def test_pages_follow_continue_tokens() -> None:
    pager = Pager()
    got = list(pages(pager, "list things", lambda: None, label_selector="a=b"))  # type: ignore[arg-type]
    assert [i["n"] for i in got] == [1, 2, 3]
    assert [c["_continue"] for c in pager.calls] == [None, "next"]
    assert all(c["limit"] == 500 and c["label_selector"] == "a=b" for c in pager.calls)


def test_typed_lists_get_their_kind_back(tmp_path: Path) -> None:
    path = tmp_path / "apps.json"
    listed = [{"metadata": {"name": "a"}}, {"kind": "Application", "metadata": {}}]
    path.write_text(json.dumps({"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationList", "items": listed}))
    found = list(items(load_document(path), str(path)))
    assert found[0][0]["kind"] == "Application" and found[0][0]["apiVersion"] == "argoproj.io/v1alpha1"
    assert found[0][1] == f"{path}: item 0"
    single = list(items({"kind": "Secret", "metadata": {}}, "x"))
    assert single == [({"kind": "Secret", "metadata": {}}, "x")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "expected a JSON object (kubectl get ... -o json), got list"),
        ('{"items": 3}', "items should be a list"),
        ('{"items": [3]}', "item 0: not an object"),
        (b'{"a": "\x80"}', "not UTF-8 text"),
    ],
)
def test_bad_files_are_one_message(tmp_path: Path, text: str | bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ListFileError) as caught:
        list(items(load_document(path), str(path)))
    assert message in caught.value.message and str(path) in caught.value.message


def test_oversized_and_too_deep_files_are_one_message(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text("{}" + " " * 2048)
    with pytest.raises(ListFileError, match="more than the 1024 this reads"):
        load_document(big, max_bytes=1024)
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)
    with pytest.raises(ListFileError, match=r"deep.json: JSON nested too deeply$"):
        load_document(deep)
