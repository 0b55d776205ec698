"""Build the notifications catalog from its Jinja2 sources, the package data next to this module.

One source per trigger (``triggers/<name>.yaml.j2``) and one per template
(``templates/<name>.yaml.j2``); shared pieces live once in ``_expr.j2`` (expr snippets),
``_template.yaml.j2`` (the layout of every template, webhook body included) and ``_severity.j2``.
The sources use ``<< >>``, ``<% %>`` and ``<# #>`` so that the Go template (``{{ }}``) and expr
(``{# ... }`` closures) text they produce passes through untouched.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import yaml

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.notifications.catalog.literal_yaml import dump_literal
from argocd_lifecycle.notifications.catalog.prune import prune

NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")  # no dots: subscription keys split on "."
NOTIFIED_ANNOTATION = "notified.notifications.argoproj.io"
TRIGGER_DOC_KEYS = ("severity", "summary", "fires", "timestamps", "once", "limits")
CONDITION_KEYS = {"description", "when", "oncePer", "send"}
# services.Notification keys every catalog template must carry
TEMPLATE_KEYS = ("message", "email", "slack", "teams", "webhook")


class CatalogError(ConfigError):
    """A catalog source or setting is wrong; the message names the file or the setting."""


@dataclass(frozen=True)
class CatalogSettings:
    """Build-time settings of the catalog (thresholds in minutes)."""

    out_of_sync_minutes: int = 20
    degraded_minutes: int = 10
    #: a self-heal older than this is history, not news (no notification storm on controller start)
    fresh_minutes: int = 15
    #: name of the webhook service: `service.webhook.<name>` and the key under the template's `webhook:`
    webhook_service: str = "argocd-lifecycle"

    def __post_init__(self) -> None:
        for name in ("out_of_sync_minutes", "degraded_minutes", "fresh_minutes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_080:
                raise CatalogError(f"{name.replace('_', '-')}: expected whole minutes from 1 to 10080, got {value!r}")
        if not NAME.match(self.webhook_service):
            raise CatalogError(
                f"webhook-service: {self.webhook_service!r} is not a lower-case name without dots "
                "(Argo CD splits subscription keys on '.')"
            )


@dataclass(frozen=True)
class Trigger:
    name: str
    severity: str
    summary: str
    fires: str
    timestamps: str
    once: str
    limits: str
    #: the conditions exactly as they go into `trigger.<name>`
    conditions: tuple[Mapping[str, Any], ...]

    @property
    def templates(self) -> tuple[str, ...]:
        return tuple(name for condition in self.conditions for name in condition["send"])


@dataclass(frozen=True)
class Template:
    name: str
    trigger: str
    #: the YAML text that goes into `template.<name>`
    text: str
    fields: Mapping[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Catalog:
    settings: CatalogSettings
    severities: Mapping[str, str]  # severity -> colour
    triggers: tuple[Trigger, ...]
    templates: tuple[Template, ...]
    #: YAML of `service.webhook.<webhook_service>` for the receiver, shown commented out
    webhook_service_example: str

    def data(self) -> dict[str, str]:
        """The `argocd-notifications-cm` keys of the catalog: `trigger.*` then `template.*`, sorted."""
        out = {f"trigger.{t.name}": dump_literal([dict(c) for c in t.conditions]) for t in self.triggers}
        out.update({f"template.{t.name}": t.text for t in self.templates})
        return out


def source_dir() -> Path:
    """The folder holding the Jinja2 sources (installed as this package's data)."""
    return Path(str(importlib.resources.files("argocd_lifecycle.notifications.catalog")))


def environment(root: Path) -> jinja2.Environment:
    # YAML and Go-template text, not HTML: escaping would corrupt it
    return jinja2.Environment(  # noqa: S701
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        block_start_string="<%",
        block_end_string="%>",
        variable_start_string="<<",
        variable_end_string=">>",
        comment_start_string="<#",
        comment_end_string="#>",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _sources(root: Path, kind: str) -> list[str]:
    names = sorted(p.name.removesuffix(".yaml.j2") for p in (root / kind).glob("*.yaml.j2"))
    for name in names:
        if not NAME.match(name):
            raise CatalogError(f"{kind}/{name}.yaml.j2: name must be lower-case letters, digits and '-' (no dots)")
    return names


def _render(env: jinja2.Environment, path: str, context: dict[str, Any]) -> tuple[str, Any]:
    try:
        text = env.get_template(path).render(**context)
    except jinja2.TemplateError as exc:
        where = path
        if isinstance(exc, jinja2.TemplateSyntaxError):
            where = f"{exc.name or path}:{exc.lineno}" + (f" (included from {path})" if exc.name != path else "")
        raise CatalogError(f"{where}: {exc}") from exc
    try:
        return text, yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: rendered text is not YAML: {exc}") from exc


def _trigger(name: str, doc: Any, severities: Mapping[str, str]) -> Trigger:
    where = f"triggers/{name}.yaml.j2"
    if not isinstance(doc, dict) or set(doc) != {*TRIGGER_DOC_KEYS, "conditions"}:
        keys = sorted(doc) if isinstance(doc, dict) else type(doc).__name__
        raise CatalogError(f"{where}: expected keys {[*TRIGGER_DOC_KEYS, 'conditions']}, got {keys}")
    if doc["severity"] not in severities:
        raise CatalogError(f"{where}: severity {doc['severity']!r} is not one of {sorted(severities)}")
    conditions = doc["conditions"]
    if not isinstance(conditions, list) or not conditions:
        raise CatalogError(f"{where}: conditions must be a non-empty list")
    for i, condition in enumerate(conditions):
        if not isinstance(condition, dict) or not {"when", "send"} <= set(condition) <= CONDITION_KEYS:
            raise CatalogError(f"{where}: condition {i} needs when and send (and only {sorted(CONDITION_KEYS)})")
        if not all(isinstance(condition[k], str) for k in condition.keys() - {"send"}):
            raise CatalogError(f"{where}: condition {i}: when, oncePer and description must be strings")
    return Trigger(name=name, conditions=tuple(conditions), **{k: str(doc[k]).strip() for k in TRIGGER_DOC_KEYS})


def _check_template(name: str, doc: Any, settings: CatalogSettings) -> None:
    where = f"templates/{name}.yaml.j2"
    if not isinstance(doc, dict) or tuple(doc) != TEMPLATE_KEYS:
        raise CatalogError(f"{where}: expected keys {list(TEMPLATE_KEYS)}")
    body = (doc["webhook"] or {}).get(settings.webhook_service, {}).get("body")
    if not doc["email"].get("subject") or not doc["slack"].get("groupingKey") or not body:
        need = f"email.subject, slack.groupingKey and webhook.{settings.webhook_service}.body"
        raise CatalogError(f"{where}: needs {need}")


def build(settings: CatalogSettings | None = None, root: Path | None = None) -> Catalog:
    """Render every source with ``settings``; raises CatalogError naming the file on any problem."""
    settings = settings or CatalogSettings()
    root = root or source_dir()
    env = environment(root)
    severities: dict[str, str] = dict(env.get_template("_severity.j2").module.colours)  # type: ignore[attr-defined]
    keys = {
        "cluster_phase": Annotation.CLUSTER_PHASE,
        "cluster_phase_since": Annotation.CLUSTER_PHASE_SINCE,
        "cluster_upgrade_blockers": Annotation.CLUSTER_UPGRADE_BLOCKERS,
        "cluster_upgrade_blocked": Annotation.CLUSTER_UPGRADE_BLOCKED,
        "cluster_upgrade_blocked_since": Annotation.CLUSTER_UPGRADE_BLOCKED_SINCE,
        "drift_since": Annotation.DRIFT_SINCE,
        "drift_deadline": Annotation.DRIFT_DEADLINE,
        "drift_attribution": Annotation.DRIFT_ATTRIBUTION,
        "notified": NOTIFIED_ANNOTATION,
    }
    # globals reach imported macro files too
    env.globals.update(settings=settings, keys=keys, webhook_service=settings.webhook_service)
    base: dict[str, Any] = {}

    triggers = []
    for name in _sources(root, "triggers"):
        _, doc = _render(env, f"triggers/{name}.yaml.j2", {**base, "trigger": name})
        triggers.append(_trigger(name, doc, severities))
    sender = {tmpl: t for t in triggers for tmpl in t.templates}

    templates = []
    template_names = _sources(root, "templates")
    for name in template_names:
        owner = sender.get(name)
        if owner is None:
            raise CatalogError(f"templates/{name}.yaml.j2: no trigger sends it")
        if sum(name in t.templates for t in triggers) > 1:
            raise CatalogError(
                f"templates/{name}.yaml.j2: sent by more than one trigger (it takes the sender's severity)"
            )
        context = {**base, "trigger": owner.name, "severity": owner.severity}
        _, doc = _render(env, f"templates/{name}.yaml.j2", context)
        _check_template(name, doc, settings)
        fields = prune(doc)
        templates.append(Template(name=name, trigger=owner.name, text=dump_literal(fields), fields=fields))
    missing = sorted(set(sender) - set(template_names))
    if missing:
        raise CatalogError(f"triggers send templates that have no source: {', '.join(missing)}")
    service_text, service = _render(env, "_webhook_service.yaml.j2", base)
    if not isinstance(service, dict) or "url" not in service:
        raise CatalogError("_webhook_service.yaml.j2: expected webhook service options with a url")
    return Catalog(
        settings=settings,
        severities=severities,
        triggers=tuple(triggers),
        templates=tuple(templates),
        webhook_service_example=service_text.strip() + "\n",
    )
