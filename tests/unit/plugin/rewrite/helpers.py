"""Helpers for the rewrite tests: build objects, run one conversion, compare like the fixtures README says."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.engine import DROPPED, Rewriter
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.validate import validate_objects
from argocd_lifecycle.yaml import yamlio
from tests.conftest import REPO

OWN_FIXTURES = REPO / "tests" / "fixtures" / "deprecations"
#: the project's original deprecation fixture set (its README says what each pair exercises)
REFERENCE_FIXTURES = OWN_FIXTURES / "reference-set"
_OUT = re.compile(r"^(?P<name>.+)\.out\.(?P<major>\d+)\.(?P<minor>\d+)\.yaml$")
#: a pod template with one label, for workloads
TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def obj(api: str, kind: str, name: str = "x", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "ns"}, **fields}


def valid(o: Any, version: tuple[int, int]) -> None:
    """``o`` passes strict validation at ``version``."""
    report = validate_objects([("obj", o)], version)
    assert report.checked == 1 and report.problems == []


def rewriter(version: tuple[int, int], **policy: Any) -> Rewriter:
    return Rewriter(builtin(), Target.of(version), Policy(**policy))


def convert(obj: dict[str, Any], version: tuple[int, int], **policy: Any) -> tuple[Any, Rewriter]:
    """Rewrite one object; asserts the input was not mutated."""
    before = copy.deepcopy(obj)
    rw = rewriter(version, **policy)
    out = rw.rewrite(obj)
    assert obj == before, "a converter mutated its input"
    return out, rw


def without_own_annotations(obj: Any) -> Any:
    """The fixtures README: ignore keys under argocd-lifecycle.io/ when comparing."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return obj
    meta = dict(obj["metadata"])
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if not k.startswith("argocd-lifecycle.io/")}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return {**obj, "metadata": meta}


def fixture_pairs(folder: Path) -> list[tuple[str, Path, Path, tuple[int, int]]]:
    out = []
    for path in sorted(folder.glob("*.out.*.yaml")):
        m = _OUT.match(path.name)
        assert m, path
        source = folder / f"{m['name']}.in.yaml"
        out.append((m["name"], source, path, (int(m["major"]), int(m["minor"]))))
    return out


def load_docs(path: Path) -> list[Any]:
    return [d for d in yamlio.load_all(path.read_text(encoding="utf-8")) if d is not None]


def run_fixture(source: Path, version: tuple[int, int], *, opt_in: bool = False) -> tuple[list[Any], Rewriter]:
    rw = Rewriter(builtin(), Target.of(version), Policy(OnRemoved.DROP, upgrade_hpa_v1=opt_in))
    docs = load_docs(source)
    out = [o for o in rw.rewrite_all(docs, [f"{source.name}#{i}" for i in range(len(docs))]) if o is not DROPPED]
    return out, rw
