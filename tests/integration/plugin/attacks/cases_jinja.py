"""Attacks through Jinja2 templates: values that would add keys, lines or objects, sandbox escapes, and
work without bound (repetition, ranges, padding, doubling, recursion, loops that never end)."""

from __future__ import annotations

from typing import Any

from tests.integration.plugin.attacks.harness import Attack

MARKER = {"app/.argocd-lifecycle.yaml": ""}
EVIL = "edge-1\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: injected}\nstringData: {x: y}"


def template(body: str, data: str = "x: z") -> dict[str, Any]:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" + "".join(
        f"  {line}\n" for line in data.splitlines()
    )
    return {**MARKER, "app/cm.yaml.j2": text + body}


def only_data(expected: dict[str, Any]) -> Any:
    def check(docs: list[dict[str, Any]]) -> None:
        assert [d["kind"] for d in docs] == ["ConfigMap"], docs
        assert docs[0]["data"] == expected

    return check


CASES = [
    Attack(
        "jinja-value-adds-an-object",
        template("", "cluster: {{ cluster.name }}"),
        {"ARGOCD_ENV_CLUSTER_NAME": EVIL},
        check=only_data({"cluster": EVIL}),
    ),
    Attack(
        "jinja-value-closes-the-quotes",
        template("", "quoted: \"{{ env.X }}\"\nsingle: '{{ env.X }}'"),
        {"ARGOCD_ENV_X": 'a", "evil": "1\' x'},
        check=only_data({"quoted": 'a", "evil": "1\' x', "single": 'a", "evil": "1\' x'}),
    ),
    Attack(
        "jinja-value-adds-a-flow-item",
        template("", "list: [{{ env.X }}, b]"),
        {"ARGOCD_ENV_X": "a, evil]\nextra: [1"},
        check=only_data({"list": ["a, evil]\nextra: [1", "b"]}),
    ),
    Attack(
        "jinja-value-as-a-key",
        template("", "{{ env.K }}: v"),
        {"ARGOCD_ENV_K": "a: b\nevil"},
        check=only_data({"a: b\nevil": "v"}),
    ),
    Attack(
        "jinja-filtered-and-joined-values-stay-scalars",
        template(
            "",
            'r: {{ env.X | replace("a", "A") }}\nj: {{ "pre-" ~ env.X }}\nf: {{ "%s-post" | format(env.X) }}\n'
            'p: {{ "pre-" + env.X }}\nt: "{{ env.X | tojson }}"\nl: {{ env.X | lower | indent(2) }}',
        ),
        {"ARGOCD_ENV_X": "a\nkind: Secret"},
        check=only_data(
            {
                "r": "A\nkind: Secret",
                "j": "pre-a\nkind: Secret",
                "f": "a\nkind: Secret-post",
                "p": "pre-a\nkind: Secret",
                "t": '"a\\nkind: Secret"',
                "l": "a\n  kind: secret",
            }
        ),
    ),
    Attack(
        "jinja-value-through-a-macro",
        template("{% macro item(v) %}  m: {{ v }}\n{% endmacro %}{{ item(env.X) }}"),
        {"ARGOCD_ENV_X": "1\n  evil: 2"},
        check=only_data({"x": "z", "m": "1\n  evil: 2"}),
    ),
    Attack(
        "jinja-values-print-typed-like-yaml",
        template("", "num: {{ env.N }}\nbool: {{ env.B }}\nstr: '{{ env.N }}'"),
        {"ARGOCD_ENV_N": "3", "ARGOCD_ENV_B": "true"},
        check=only_data({"num": 3, "bool": True, "str": "3"}),
    ),
    Attack(
        "jinja-sandbox-escape-runs-a-command",
        template("", "x: {{ cycler.__init__.__globals__.os.system('touch @MARKER@') }}"),
        refused="cm.yaml.j2: Jinja2",
    ),
    Attack(
        "jinja-sandbox-escape-through-a-format-string",
        template("", "x: {{ '{0.__class__.__mro__[1].__subclasses__}'.format('') }}"),
        refused="cm.yaml.j2: Jinja2 sandbox refused",
    ),
    Attack("jinja-string-repetition", template("", "x: {{ 'x' * 3000000000 }}"), refused="sandbox refused: repeating"),
    Attack("jinja-list-repetition", template("", "x: {{ ([1] * 1000000000) | length }}"), refused="sandbox refused"),
    Attack(
        "jinja-nested-ranges",
        template("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"),
        refused="range() makes more than 1,000,000 items over the render",
    ),
    Attack("jinja-padding", template("", "x: {{ 'x' | center(3000000000) }}"), refused="sandbox refused: center()"),
    Attack(
        "jinja-format-width",
        template("", "x: {{ '%3000000000s' | format('x') }}"),
        refused="sandbox refused: format: a field width",
    ),
    Attack(
        "jinja-format-method-width",
        template("", "x: {{ '{:>3000000000}'.format('x') }}"),
        refused="sandbox refused: str.format(): a field width",
    ),
    Attack(
        "jinja-format-method-keeps-a-scalar",
        template("", "x: {{ '{}-post'.format(env.X) }}"),
        {"ARGOCD_ENV_X": "a\nevil: 1"},
        check=only_data({"x": "a\nevil: 1-post"}),
    ),
    Attack(
        "jinja-method-padding",
        template("", "x: {{ 'x'.ljust(3000000000) }}"),
        refused="sandbox refused: ljust(): a size",
    ),
    Attack(
        "jinja-doubling-in-a-namespace",
        template("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
        refused="sandbox refused: the ~ operator makes a string over 2 MiB",
    ),
    Attack(
        "jinja-replace-amplifies",
        template("", "x: {{ ('x' * 1000000) | replace('x', 'y' * 1000000) | length }}"),
        refused="sandbox refused: replace would make a string over 2 MiB",
    ),
    Attack(
        "jinja-power",
        template("", "x: {{ 2 ** 1000000 }}"),
        refused="sandbox refused: a power over 100,000 bits",
    ),
    Attack(
        "jinja-endless-recursion",
        template("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"),
        refused="cm.yaml.j2: Jinja2",
    ),
    Attack(
        "jinja-loop-without-end",
        template("{% set s = 'x' * 100000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}"),
        refused="Jinja2 render stopped: the templates took more than 10s",
    ),
    Attack(
        "jinja-reserved-characters",
        template("", "x: \ue000\ue010\ue001"),
        refused="refused: the template holds characters U+E000..U+E01F",
    ),
    Attack(
        "jinja-error-quotes-a-secret-variable",
        template("", "x: {{ cluster[env.DB_PASS] }}"),
        {"ARGOCD_ENV_DB_PASS": "hunter2-env-s3cret"},
        refused="cm.yaml.j2: Jinja2 error: 'dict object' has no attribute '***'",
        secrets=("hunter2-env-s3cret",),
    ),
]
