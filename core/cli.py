"""The root command group. Subcommands are imported only when invoked, so `plugin generate` stays fast."""

from __future__ import annotations

import importlib
import os
import sys

import click

from argocd_lifecycle import __version__
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.redaction import redact

# command name -> "module:attribute" of a click command or group; imported lazily.
COMMANDS: dict[str, str] = {
    "plugin": "argocd_lifecycle.plugin.cli:plugin",
    "scan": "argocd_lifecycle.plugin.scan_cli:scan",
    "convert": "argocd_lifecycle.plugin.scan_cli:convert",
    "generator": "argocd_lifecycle.generators.cli:generator",
    "preflight": "argocd_lifecycle.generators.preflight.cli:preflight",
    "notifications": "argocd_lifecycle.notifications.catalog.cli:notifications",
    "receiver": "argocd_lifecycle.notifications.receiver.cli:receiver",
    "timeline": "argocd_lifecycle.notifications.timeline.cli:timeline",
    "ensure-secret": "argocd_lifecycle.secret_init:ensure_secret",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("argocd_lifecycle"):
                return None  # a part not built yet: click reports "No such command"
            raise
        cmd: click.Command = getattr(module, attr)
        return cmd


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
