"""`argocd-lifecycle ensure-secret`: create a Secret of random values once, never change a value.

The chart runs it in a pre-install/pre-upgrade hook Job, so tokens are generated inside the cluster
and never appear in rendered manifests: `helm template` (and so Argo CD) renders the same bytes every
time, and a re-render cannot rotate a token. Keys that are missing or empty are added; labels and
annotations asked for are set; every other byte of an existing Secret is left alone. Values are never
printed, logged or put into errors.
"""

from __future__ import annotations

import base64
import re
import secrets
import string
from dataclasses import dataclass, field
from typing import Any

import click

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.kube.client import Kube, KubeConflict, KubeNotFound, KubeSettings, connect

ALPHABET = string.ascii_letters + string.digits  # safe in a header, a file and a `$secret:key` reference
MIN_LENGTH, MAX_LENGTH, DEFAULT_LENGTH = 32, 4096, 48
ATTEMPTS = 3  # another Job (or a person) racing us: read again and retry

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DATA_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_QUALIFIED = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?$"
)
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?)?$")


@dataclass(frozen=True)
class SecretSpec:
    namespace: str
    name: str
    keys: dict[str, int]  # data key -> length of its random value
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)


def _check(ok: bool, option: str, text: str, expected: str) -> None:
    if not ok:
        raise UsageError(f"{option} {text!r}: expected {expected}")


def parse_key(text: str) -> tuple[str, int]:
    name, sep, length = text.partition(":")
    _check(bool(_DATA_KEY.match(name)) and len(name) <= 253, "--key", text, "NAME[:LENGTH], NAME of [-._a-zA-Z0-9]")
    if not sep:
        return name, DEFAULT_LENGTH
    ok = length.isdigit() and MIN_LENGTH <= int(length) <= MAX_LENGTH
    _check(ok, "--key", text, f"a LENGTH from {MIN_LENGTH} to {MAX_LENGTH}")
    return name, int(length)


def parse_pair(text: str, option: str, *, label: bool) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    _check(
        bool(sep) and len(key) <= 316 and bool(_QUALIFIED.match(key)), option, text, "KEY=VALUE, KEY a qualified name"
    )
    if label:
        _check(len(value) <= 63 and bool(_LABEL_VALUE.match(value)), option, text, "a label value (63 characters)")
    return key, value


def _random(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("ascii")).decode("ascii")


def _completed(spec: SecretSpec, live: dict[str, Any]) -> tuple[list[str], bool, dict[str, Any]]:
    """(keys added, labels/annotations changed, the object to write back) for an existing Secret."""
    body = {k: v for k, v in live.items() if k != "status"}
    data = dict(body.get("data") or {})
    keys = [k for k in spec.keys if not data.get(k)]
    data.update({k: _b64(_random(spec.keys[k])) for k in keys})
    meta = dict(body.get("metadata") or {})
    changed = False
    for part, wanted in (("labels", spec.labels), ("annotations", spec.annotations)):
        have = dict(meta.get(part) or {})
        if any(have.get(k) != v for k, v in wanted.items()):
            changed = True
            meta[part] = {**have, **wanted}
    body.update(data=data, metadata=meta)
    return keys, changed, body


def ensure(kube: Kube, spec: SecretSpec) -> str:
    """Create or complete the Secret; one line saying what was done (never a value)."""
    where = f"Secret {spec.namespace}/{spec.name}"
    core = kube.core
    for _ in range(ATTEMPTS):
        try:
            live = kube.call(f"read {where}", core.read_namespaced_secret, spec.name, spec.namespace)
        except KubeNotFound:
            body = {
                "apiVersion": "v1",
                "kind": "Secret",
                "type": "Opaque",
                "metadata": {
                    "name": spec.name,
                    "namespace": spec.namespace,
                    "labels": spec.labels,
                    "annotations": spec.annotations,
                },
                "data": {k: _b64(_random(n)) for k, n in spec.keys.items()},
            }
            try:
                kube.call(f"create {where}", core.create_namespaced_secret, spec.namespace, body)
            except KubeConflict:
                continue  # created meanwhile: complete that one
            return f"created {where} with keys {', '.join(spec.keys)}"
        keys, changed, body = _completed(spec, live)
        if not keys and not changed:
            return f"kept {where}: keys {', '.join(spec.keys)} already set"
        try:  # a full update carrying the resourceVersion we read: a concurrent writer makes it a 409
            kube.call(f"complete {where}", core.replace_namespaced_secret, spec.name, spec.namespace, body)
        except KubeConflict:
            continue
        done = [f"added keys {', '.join(keys)}"] if keys else []
        if changed:
            done.append("set its labels and annotations")
        return f"kept {where}: {' and '.join(done)}"
    raise KubeConflict(f"{where} kept changing while being completed ({ATTEMPTS} attempts)", status=409)


@click.command("ensure-secret")
@click.argument("name")
@click.option("-n", "--namespace", required=True, help="Namespace of the Secret.")
@click.option("--key", "keys", multiple=True, required=True, metavar="NAME[:LENGTH]",
              help=f"A data key holding a random alphanumeric value (default length {DEFAULT_LENGTH}).")  # fmt: skip
@click.option("--label", "labels", multiple=True, metavar="KEY=VALUE", help="A label the Secret must carry.")
@click.option("--annotation", "annotations", multiple=True, metavar="KEY=VALUE", help="An annotation it must carry.")
@click.option("--kubeconfig", default=None, help="Kubeconfig file (default: in-cluster, then ~/.kube/config).")
@click.option("--context", default=None, help="Kubeconfig context.")
def ensure_secret(
    *,
    name: str,
    namespace: str,
    keys: tuple[str, ...],
    labels: tuple[str, ...],
    annotations: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
) -> None:
    """Create Secret NAME with random values for each --key, once; complete it when keys are missing.

    Existing values are never changed or printed. Exit 0 when the Secret holds every key afterwards.
    """
    _check(len(name) <= 253 and bool(_DNS_SUBDOMAIN.match(name)), "NAME", name, "a DNS subdomain name")
    _check(len(namespace) <= 63 and bool(_DNS_LABEL.match(namespace)), "--namespace", namespace, "a DNS label")
    spec = SecretSpec(
        namespace=namespace,
        name=name,
        keys=dict(parse_key(k) for k in keys),
        labels=dict(parse_pair(p, "--label", label=True) for p in labels),
        annotations=dict(parse_pair(p, "--annotation", label=False) for p in annotations),
    )
    click.echo(ensure(connect(KubeSettings(kubeconfig, context)), spec))
