"""Attacks through the files themselves: symlink loops and fan-outs, alias bombs, nesting, tags, files that
block or never end, shapes that used to end in a traceback, and ``plugin parameters`` reading outside."""

from __future__ import annotations

import json

from tests.integration.plugin.attacks.harness import Attack, Fifo, Link, Sparse

MARKER = {"app/.argocd-lifecycle.yaml": ""}
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
CHART = {"app/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "app/templates/cm.yaml": CM}
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8)
)
MIB_STRING = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  s: &s " + "x" * (1 << 20) + "\n"
ALIASES_300 = MIB_STRING + "".join(f"  k{i}: *s\n" for i in range(300))
#: twenty folders, each linking twice to the next: no loop, but 2^20 paths
FANOUT = {f"app/n{i}/{side}": Link(f"../n{i + 1}") for i in range(20) for side in ("a", "b")}


def _assert(ok: bool) -> None:
    assert ok


def deep_json(levels: int) -> str:
    return (
        '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "x": ' + "[" * levels + "]" * levels + "}"
    )


CASES = [
    Attack(
        "symlink-loop",
        {**MARKER, "app/cm.yaml": CM, "app/a": Link("."), "app/b": Link(".")},
        refused="a: refused: symlink loop (it leads back to .)",
    ),
    Attack(
        "symlink-fan-out",
        {**MARKER, "app/cm.yaml": CM, **FANOUT, "app/n20/cm.yaml": CM},
        refused="refused: the folder holds more than 10,000 folders",
    ),
    Attack(
        "alias-to-a-1-mib-string-300-times",
        {**MARKER, "app/big.yaml": ALIASES_300},
        refused="big.yaml:",
    ),
    Attack(
        "alias-bomb-in-the-marker-file",
        {"app/.argocd-lifecycle.yaml": BOMB + "parameters: {values: {x: *i}}\n", "app/cm.yaml": CM},
        refused=".argocd-lifecycle.yaml:8:4: refused: expands to more than 64 MiB",
    ),
    Attack(
        "alias-bomb-in-values-for-parameters",
        {**CHART, "app/values.yaml": BOMB},
        command="parameters",
        refused="values.yaml:8:4: refused: expands to more than 64 MiB",
    ),
    Attack(
        "recursive-alias",
        {**MARKER, "app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r}\ndata: &d {x: *d}\n"},
        refused="a.yaml:4:7: refused: an alias refers to a node that contains it",
    ),
    Attack(
        "parameters-prints-a-values-file-outside",
        {**CHART, "app/values.yaml": Link("@OUTSIDE@/values.yaml")},
        command="parameters",
        refused="values.yaml: refused: symlink points outside the application folder",
        secrets=("stolen-outside-value",),
    ),
    Attack(
        "marker-file-linked-outside",
        {"app/.argocd-lifecycle.yaml": Link("@OUTSIDE@/values.yaml"), "app/cm.yaml": CM},
        refused=".argocd-lifecycle.yaml: refused: symlink points outside the application folder",
    ),
    Attack("deeply-nested-json", {**MARKER, "app/deep.json": deep_json(100_000)}, refused="deep.json: refused: JSON"),
    Attack(
        "deeply-nested-yaml",
        {**MARKER, "app/deep.yaml": CM + "data:\n  x: " + "[" * 200 + "]" * 200 + "\n"},
        refused="deep.yaml:5:132: refused: nested deeper than 128 levels",
    ),
    Attack(
        "deeply-nested-parameters",
        {**MARKER, "app/cm.yaml": CM},
        {"ARGOCD_APP_PARAMETERS": "[" * 20_000 + "]" * 20_000},
        refused="ARGOCD_APP_PARAMETERS: refused: JSON nested too deeply",
    ),
    Attack(
        "annotations-as-a-list",
        {**MARKER, "app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: [x, y]}\n"},
        {"KUBE_VERSION": "1.29"},
        refused="a.yaml#0: object has metadata.annotations of type list, not a mapping",
    ),
    Attack(
        "annotations-as-a-string",
        {**MARKER, "app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: oops}\n"},
        {"KUBE_VERSION": "1.29", "ARGOCD_ENV_CLUSTER_PHASE": "Unreachable"},
        refused="a.yaml#0: object has metadata.annotations of type str, not a mapping",
    ),
    Attack(
        "python-tag-runs-a-command",
        {**MARKER, "app/a.yaml": CM + 'data: !!python/object/apply:os.system ["touch @MARKER@"]\n'},
        refused="could not determine a constructor for the tag",
        check=lambda docs: _assert(docs[0]["data"][0].startswith("touch ")),
    ),
    Attack(
        # Python refuses to build an int of more than 4300 digits; Kubernetes reads the text
        "integer-past-the-digit-limit",
        {**MARKER, "app/a.yaml": CM + "spec: {replicas: " + "9" * 5000 + "}\n"},
        refused="a.yaml:",
        check=lambda docs: _assert(docs[0]["spec"] == {"replicas": "9" * 5000}),
    ),
    Attack(
        "date-that-does-not-exist",
        {**MARKER, "app/a.yaml": CM + "data: {when: 2024-02-30}\n"},
        refused="a.yaml:",
        check=lambda docs: _assert(docs[0]["data"] == {"when": "2024-02-30"}),
    ),
    Attack(
        # PodSecurityPolicy is gone in 1.25: the rewrite looks for RBAC rules granting it, whatever their shape
        "rbac-rules-of-the-wrong-shape",
        {
            **MARKER,
            "app/a.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n"
            "rules: 5\n",
        },
        {"KUBE_VERSION": "1.25"},
        check=lambda docs: _assert(docs[0]["rules"] == 5),
    ),
    Attack("manifest-is-a-fifo", {**MARKER, "app/a.yaml": Fifo()}, refused="a.yaml: refused: not a regular file"),
    Attack(
        "manifest-of-200-mib",
        {**MARKER, "app/a.yaml": Sparse(200 << 20)},
        refused="a.yaml: refused: file is 200.0 MiB, over the 10 MiB limit",
    ),
    Attack(
        "output-over-the-cap",
        {
            **MARKER,
            **{
                f"app/cm{i}.yaml": CM.replace("name: cm", f"name: cm{i}") + "data: {x: " + "y" * 9000 + "}\n"
                for i in range(20)
            },
        },
        {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "maxOutputBytes", "string": "100Ki"}])},
        refused="refused: the render's YAML adds up to more than 100 KiB (parameter maxOutputBytes)",
    ),
    Attack(
        "value-file-over-the-size-limit",
        {**CHART, "app/.argocd-lifecycle.yaml": "", "app/big.yaml": Sparse(20 << 20)},
        {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "valueFiles", "array": ["big.yaml"]}])},
        refused="parameter valueFiles: 'big.yaml' is over the 10 MiB file limit",
    ),
]
