"""The root command group. Each subcommand is imported only when invoked (inside the import fence,
docs/architecture.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import click

from argocd_lifecycle import __version__
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.redaction import redact

# Each command's module is imported only when it is invoked (``argocd-lifecycle plugin parameters``,
# which Argo CD runs for its UI, would import every part otherwise: 0.12 s -> 1.3 s); the imports are
# statements, so the layer test sees every one.


def _plugin() -> click.Command:
    from argocd_lifecycle.plugin.commands.cli import plugin

    return plugin


def _scan() -> click.Command:
    from argocd_lifecycle.plugin.commands.scan import scan

    return scan


def _convert() -> click.Command:
    from argocd_lifecycle.plugin.commands.scan import convert

    return convert


def _generator() -> click.Command:
    from argocd_lifecycle.generators.cli import generator

    return generator


def _preflight() -> click.Command:
    from argocd_lifecycle.generators.preflight.cli import preflight

    return preflight


def _drift() -> click.Command:
    from argocd_lifecycle.generators.drift.cli import drift

    return drift


def _notifications() -> click.Command:
    from argocd_lifecycle.notifications.catalog.cli import notifications

    return notifications


def _receiver() -> click.Command:
    from argocd_lifecycle.notifications.receiver.cli import receiver

    return receiver


def _timeline() -> click.Command:
    from argocd_lifecycle.notifications.timeline.cli import timeline

    return timeline


def _ensure_secret() -> click.Command:
    from argocd_lifecycle.app.secret_init import ensure_secret

    return ensure_secret


#: command name -> what imports its click command or group
COMMANDS: dict[str, Callable[[], click.Command]] = {
    "plugin": _plugin,
    "scan": _scan,
    "convert": _convert,
    "generator": _generator,
    "preflight": _preflight,
    "drift": _drift,
    "notifications": _notifications,
    "receiver": _receiver,
    "timeline": _timeline,
    "ensure-secret": _ensure_secret,
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        load = COMMANDS.get(cmd_name)
        return load() if load is not None else None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="argocd-lifecycle")
def cli() -> None:
    """Make Argo CD aware of the lifecycle of the clusters it deploys to."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: LifecycleError becomes `error: ...` lines on stderr and its exit code."""
    try:
        cli.main(args=argv, prog_name="argocd-lifecycle", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except LifecycleError as exc:
        for line in exc.lines():
            click.echo(f"error: {line}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # a bug, not bad input: one line, no traceback unless asked for
        if os.environ.get("ARGOCD_LIFECYCLE_DEBUG"):
            raise
        click.echo(
            f"error: internal error: {type(exc).__name__}: {redact(str(exc))} "
            "(set ARGOCD_LIFECYCLE_DEBUG=1 for a traceback)",
            err=True,
        )
        sys.exit(1)
