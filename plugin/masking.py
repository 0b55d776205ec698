"""What must never be printed: the texts a render masks in every line it writes to stderr.

Collected before anything can print: from the environment and the parameters when the settings are
read, from Secrets as each source is parsed, from helm's and kustomize's own inputs when they fail,
and from the rendered Secrets. Each secret is masked in the forms a tool may print it: as given,
base64-encoded or decoded, JSON-escaped, and line by line.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: a render is a cold start
if TYPE_CHECKING:
    from typing import Any

#: shorter texts are not masked: they would blank out line numbers and short words everywhere
MIN_SECRET = 4
#: ARGOCD_ENV_* values the plugin reads and prints by design (object names, versions): not secret
HARMLESS_ENV = frozenset({"CLUSTER_NAME", "CLUSTER_PHASE", "CLUSTER_UPGRADE_TO", "KUBE_VERSION"})
#: other variables whose name says they hold a credential
SENSITIVE_NAME = re.compile(r"(?i)token|passw|secret|credential|private|apikey|api_key|auth")
_NOT_SECRET = frozenset({"true", "false", "null", "none", "yes", "no"})


def forms(value: str) -> set[str]:
    """The texts ``value`` may appear as in a tool's message."""
    out: set[str] = set()
    for text in (value, value.strip(), json.dumps(value)[1:-1]):
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


def from_values(values: Iterable[tuple[str, Any]]) -> set[str]:
    """Every ``values`` entry: a chart may turn any of them into a Secret."""
    out: set[str] = set()
    for _, value in values:
        if isinstance(value, str):
            out |= forms(value)
    return out


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
