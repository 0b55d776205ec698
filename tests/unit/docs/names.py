"""The names the docs may use, read from the code: CLI commands and their options, annotation keys,
catalog triggers, generator and plugin parameters, Makefile targets."""

from __future__ import annotations

import functools
import re
import typing
from typing import Any

import click

from argocd_lifecycle.app.cli import cli
from argocd_lifecycle.generators.service.params import ClusterParams
from argocd_lifecycle.notifications.catalog.build import build
from argocd_lifecycle.plugin.parameters import SPECS
from tests.unit.docs.blocks import REPO

SOURCES = ("core", "plugin", "generators", "notifications")


@functools.cache
def commands() -> dict[tuple[str, ...], click.Command]:
    """Every command of `argocd-lifecycle` by its path (`("generator", "serve")`)."""
    out: dict[tuple[str, ...], click.Command] = {}

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        out[path] = command
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, (*path, name))

    walk(cli, ())
    return out


def options(command: click.Command) -> set[str]:
    names = {"-h", "--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names |= set(param.opts) | set(param.secondary_opts)
    return names


@functools.cache
def all_options() -> frozenset[str]:
    return frozenset(name for command in commands().values() for name in options(command))


@functools.cache
def annotation_keys() -> frozenset[str]:
    """`argocd-lifecycle.io/<key>` keys the code writes or reads (written as PREFIX + "key" or in full)."""
    keys: set[str] = set()
    for folder in SOURCES:
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            keys |= set(re.findall(r'PREFIX \+ "([a-z0-9-]+)"', text))
            keys |= set(re.findall(r"argocd-lifecycle\.io/([a-z0-9-]+)", text))
    return frozenset(keys)


@functools.cache
def triggers() -> frozenset[str]:
    return frozenset(t.name for t in build().triggers)


def _keys(hint: Any, prefix: str) -> set[str]:
    if isinstance(hint, type) and typing.is_typeddict(hint):
        out: set[str] = set()
        for key, sub in typing.get_type_hints(hint).items():
            out |= {f"{prefix}{key}"} | _keys(
                typing.get_args(sub)[0] if typing.get_args(sub) else sub, f"{prefix}{key}."
            )
        return out
    return set()


@functools.cache
def generator_parameters() -> frozenset[str]:
    """The keys of one parameter set (nested as in goTemplate mode, `input` echoed back)."""
    return frozenset(_keys(ClusterParams, "") | {"input"})


def plugin_parameters() -> frozenset[str]:
    return frozenset(s.name for s in SPECS)


@functools.cache
def make_targets() -> frozenset[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return frozenset(re.findall(r"^([a-z][a-z0-9-]*):", text, flags=re.M))
