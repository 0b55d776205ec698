"""What must never be printed: the texts a render masks in every line it writes to stderr.

Collected before anything can print: from the environment and the parameters when the settings are
read, from Secrets as each source is parsed, from helm's and kustomize's own inputs when they fail
(their Secrets, parsed or not, and a chart's value files), and from the rendered Secrets. Each secret
is masked in the forms a tool may print it: as given, base64-encoded or decoded, JSON-escaped, without
YAML's alias, anchor or tag mark, and line by line.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import yaml

from argocd_lifecycle.yaml import yamlio

#: shorter texts are not masked: they would blank out line numbers and short words everywhere
MIN_SECRET = 4
#: ARGOCD_ENV_* values the plugin reads and prints by design (object names, versions): not secret
HARMLESS_ENV = frozenset({"CLUSTER_NAME", "CLUSTER_PHASE", "CLUSTER_UPGRADE_TO", "KUBE_VERSION"})
#: other variables whose name says they hold a credential
SENSITIVE_NAME = re.compile(r"(?i)token|passw|secret|credential|private|apikey|api_key|auth")
_NOT_SECRET = frozenset({"true", "false", "null", "none", "yes", "no"})


#: a document that says it is a Secret, in block or flow style (a ConfigMap quoting such a line counts
#: too: the safe side)
_SECRET_KIND = re.compile(r"""(?:^|[\s{,])["']?kind["']?[ \t]*:[ \t]*["']?Secret["']?[ \t]*(?:$|[,}#])""", re.M)
_DOCUMENT_START = re.compile(r"^---(?=[ \t]|$)", re.M)
#: ``key: value`` at the start of a line (after list dashes): the key is structure, the value may be secret
_ENTRY = re.compile(r"""^[ \t]*(?:-[ \t]+)*(?:(?:"[^"]*"|'[^']*'|[^\s"'#][^:#]*?)[ \t]*:(?:[ \t]+|$))?(?P<value>.*)$""")
_WORD = re.compile(r"[^\s,{}\[\]]+")
#: the words of a Secret's own shape, never masked (they would blank out every message about it)
_SHAPE = frozenset(
    {"apiVersion", "kind", "Secret", "v1", "metadata", "name", "namespace", "labels", "annotations", "data"}
    | {"stringData", "type", "Opaque", "immutable"}
)


def forms(value: str) -> set[str]:
    """The texts ``value`` may appear as in a tool's message."""
    out: set[str] = set()
    # a value written as `*x`, `&x` or `!x` is an alias, anchor or tag to YAML, quoted without its mark
    for text in (value, value.strip(), json.dumps(value)[1:-1], value.strip().lstrip("*&!")):
        out.add(text)
    if "\n" in value:
        out.update(line.strip() for line in value.splitlines())
    return {t for t in out if len(t) >= MIN_SECRET and t.lower() not in _NOT_SECRET}


def from_environ(environ: Mapping[str, str]) -> set[str]:
    """Every ARGOCD_ENV_* value except the harmless ones, every variable named like a credential, and
    the credentials of a repository URL (``https://user:token@host/...``)."""
    out: set[str] = set()
    for key, value in environ.items():
        if key.startswith("ARGOCD_ENV_"):
            if key[len("ARGOCD_ENV_") :] not in HARMLESS_ENV:
                out |= forms(value)
        elif SENSITIVE_NAME.search(key):
            out |= forms(value)
    try:
        netloc = urlsplit(environ.get("ARGOCD_APP_SOURCE_REPO_URL", "")).netloc
    except ValueError:
        netloc = ""
    if "@" in netloc:
        userinfo = netloc.rsplit("@", 1)[0]
        out |= forms(userinfo) | {f for part in userinfo.split(":") for f in forms(part)}
    return out


def strings(tree: Any) -> set[str]:
    """The forms of every string scalar in a tree of maps and lists (keys are structure, not masked)."""
    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out |= forms(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def from_values(values: Iterable[tuple[str, Any]]) -> set[str]:
    """Every ``values`` entry, nested ones too: a chart may turn any of them into a Secret."""
    return strings([value for _, value in values])


def _documents(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each document of a YAML stream, cut at ``---`` lines without parsing."""
    out: list[tuple[int, str]] = []
    start, line = 0, 0
    for match in _DOCUMENT_START.finditer(text):
        out.append((line, text[start : match.start()]))
        line += text.count("\n", start, match.start())
        start = match.start()
    out.append((line, text[start:]))
    return out


def secret_document_at(text: str, line: int) -> bool:
    """Whether 0-based ``line`` of a YAML stream lies in a document that says ``kind: Secret``."""
    for first, doc in reversed(_documents(text)):
        if first <= line:
            return _SECRET_KIND.search(doc) is not None
    return False  # pragma: no cover - the first document starts at line 0


def written_values(text: str) -> set[str]:
    """Every value written on the lines of a YAML text that cannot be parsed, whole and word by word,
    without quotes and YAML's marks: what a parser's message may quote from it. Template actions
    (``{{ ... }}``) are text of the chart, not values."""
    out: set[str] = set()
    for line in text.splitlines():
        match = _ENTRY.match(line)
        value = match.group("value").strip() if match else line.strip()
        if not value or value.startswith(("#", "---", "|", ">")) or "{{" in value:
            continue
        whole = () if value.startswith(("{", "[")) else (value,)  # a flow collection: its words below
        for word in (*whole, *(w for w in _WORD.findall(value) if not w.endswith(":"))):
            bare = word.strip("'\"").lstrip("*&!")
            if bare not in _SHAPE:
                out |= forms(bare)
    return out


def from_yaml_text(text: str, limits: yamlio.Limits) -> set[str]:
    """The values of the Secrets in a YAML text a tool reads: of each Secret when the text parses, else
    every value written in the documents that say they are Secrets (a broken document cannot be read,
    and the tool's message about it may quote any of it)."""
    if _SECRET_KIND.search(text) is None:
        return set()
    try:
        return from_documents(yamlio.load_all(text, limits))
    except (yaml.YAMLError, ValueError, OverflowError):
        return {f for _, doc in _documents(text) if _SECRET_KIND.search(doc) for f in written_values(doc)}


def from_values_text(text: str, limits: yamlio.Limits) -> set[str]:
    """Every string of a chart's values file (a template may put any of them into a Secret, and helm's
    messages quote values), or every value written in it when it does not parse."""
    try:
        return strings(list(yamlio.load_all(text, limits)))
    except (yaml.YAMLError, ValueError, OverflowError):
        return written_values(text)


def _decoded(text: str) -> str | None:
    try:
        return base64.b64decode("".join(text.split()), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def from_secret(obj: Mapping[str, Any]) -> set[str]:
    """The values of one Secret object: ``data`` as stored and decoded, ``stringData`` as given and
    encoded (a tool may print either)."""
    out: set[str] = set()
    for key, encoded in (("data", True), ("stringData", False)):
        values = obj.get(key)
        if not isinstance(values, dict):
            continue
        for value in values.values():
            if value is None or isinstance(value, dict | list):
                continue
            text = str(value)
            out |= forms(text)
            other = _decoded(text) if encoded else base64.b64encode(text.encode()).decode()
            if other is not None:
                out |= forms(other)
    return out


def is_secret(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == "Secret" and obj.get("apiVersion") == "v1"


def from_documents(docs: Iterable[Any]) -> set[str]:
    """Values of the Secrets among ``docs`` (``List`` items included)."""
    out: set[str] = set()
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("items"), list):
            out |= from_documents(doc["items"])
        elif is_secret(doc):
            out |= from_secret(doc)
    return out


class Masker:
    """A growing set of secrets and one compiled pattern for them (longest first)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set(secrets)
        self._pattern: re.Pattern[str] | None = None

    def add(self, secrets: Iterable[str]) -> None:
        before = len(self._secrets)
        self._secrets.update(secrets)
        if len(self._secrets) != before:
            self._pattern = None

    def __contains__(self, text: object) -> bool:
        return text in self._secrets

    def __len__(self) -> int:
        return len(self._secrets)

    def __repr__(self) -> str:
        return f"Masker({len(self._secrets)} secrets)"

    def mask(self, text: str) -> str:
        if not self._secrets:
            return text
        if self._pattern is None:
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))
        return self._pattern.sub("***", text)
