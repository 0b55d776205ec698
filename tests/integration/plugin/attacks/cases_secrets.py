"""Attacks on the masks: a Secret's value quoted in a later error (masks are collected as each source is
read, not after a render succeeds), in its stored (base64) and decoded forms, and credentials from the
environment."""

from __future__ import annotations

import base64

from tests.integration.plugin.attacks.harness import Attack

MARKER = {"app/.argocd-lifecycle.yaml": ""}
SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"


def failing_template(quoted: str) -> str:
    # a missing key is quoted in Jinja's message: the template names the secret's text itself
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {{x: '{{{{ cluster[\"{quoted}\"] }}}}'}}\n"


CASES = [
    Attack(
        "secret-in-an-earlier-file-quoted-by-a-later-error",
        {
            **MARKER,
            "app/a.yaml": SECRET + "stringData: {pw: collected-early-s3cret}\n",
            "app/b.yaml.j2": failing_template("collected-early-s3cret"),
        },
        refused="b.yaml.j2: Jinja2 error",
        secrets=("collected-early-s3cret",),
    ),
    Attack(
        "secret-data-quoted-decoded",
        {
            **MARKER,
            "app/a.yaml": SECRET + f"data: {{pw: {base64.b64encode(b'decoded-data-s3cret').decode()}}}\n",
            "app/b.yaml.j2": failing_template("decoded-data-s3cret"),
        },
        refused="b.yaml.j2: Jinja2 error",
        secrets=("decoded-data-s3cret",),
    ),
    Attack(
        "secret-in-a-list-quoted-by-a-later-error",
        {
            **MARKER,
            "app/a.yaml": "apiVersion: v1\nkind: List\nitems:\n- "
            + SECRET.replace("\n", "\n  ")
            + "stringData: {pw: listed-s3cret-value}\n",
            "app/b.yaml.j2": failing_template("listed-s3cret-value"),
        },
        refused="b.yaml.j2: Jinja2 error",
        secrets=("listed-s3cret-value",),
    ),
    Attack(
        "token-variable-quoted-by-an-error",
        {**MARKER, "app/a.yaml.j2": failing_template("tok-from-the-environment")},
        {"ARGOCD_AUTH_TOKEN": "tok-from-the-environment"},
        refused="a.yaml.j2: Jinja2 error",
        secrets=("tok-from-the-environment",),
    ),
    Attack(
        # the parser quotes a tag by its name: in a Secret, the Secret's own text, never read to be masked
        "yaml-error-quotes-a-secret-tag",
        {
            **MARKER,
            "app/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
            + SECRET
            + "stringData:\n  pw: !tagged-s3cret-value x\n",
        },
        refused="a.yaml:9:7: YAML syntax error: could not determine a constructor for the tag '***'",
        secrets=("tagged-s3cret-value",),
    ),
    Attack(
        "yaml-error-quotes-a-secret-tag-in-flow-style",
        {
            **MARKER,
            "app/a.yaml": "{apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {pw: !flow-tag-s3cret x}}\n",
        },
        refused="YAML syntax error",
        secrets=("flow-tag-s3cret",),
    ),
]
