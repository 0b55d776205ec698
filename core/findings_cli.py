"""Click pieces of the verbs whose exit codes report findings (``scan``, ``preflight``).

Those verbs exit 2 for "deprecated APIs found", which is click's exit code for a usage error, so their
usage errors exit 1 instead (``FindingsCommand``). Their Kubernetes release options take what Argo CD
passes (``1.29``, ``v1.29.3``, ``1.29+``) and hand the command ``(major, minor)`` (``kube_version``).
"""

from __future__ import annotations

from typing import Any

import click

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.versions import KubeVersion

#: a bad flag is an error like any other: 2 and 3 are findings
USAGE_EXIT = 1


class FindingsUsageError(click.UsageError):
    exit_code = USAGE_EXIT


class FindingsCommand(click.Command):
    """Usage errors exit 1 here: 2 means "deprecated APIs found"."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as exc:
            raise FindingsUsageError(exc.format_message(), exc.ctx) from exc


def kube_version(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    """Option callback: a Kubernetes version as ``(major, minor)``, None when the option is not given."""
    if value is None:
        return None
    try:
        return KubeVersion.parse(value).key
    except LifecycleError as exc:
        raise click.BadParameter(exc.message.split(": ", 1)[-1]) from exc
