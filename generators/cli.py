"""``argocd-lifecycle generator serve``: inventory, prober, lifecycle and the HTTP service in one process.

Settings are read once here, into dataclasses; everything then runs on one asyncio loop (uvicorn
serves the ASGI app on the same loop), with the blocking Kubernetes watch and Lease in threads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from argocd_lifecycle import logs
from argocd_lifecycle.generators.capi.settings import CapiSettings, capi_options
from argocd_lifecycle.generators.fleet.exec_credentials import ExecSettings
from argocd_lifecycle.generators.fleet.in_cluster import InCluster
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleSettings
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.generators.fleet.prober import ProberSettings
from argocd_lifecycle.generators.runner import run
from argocd_lifecycle.generators.service.settings import ServiceSettings, service_options
from argocd_lifecycle.generators.settings import (
    PAGE_BYTES,
    ServeSettings,
    format_size,
    parse_listen,
    parse_percent,
    parse_size,
    receiver_secret,
)
from argocd_lifecycle.http import server
from argocd_lifecycle.http.server import limits_from_options, server_options
from argocd_lifecycle.options import Option, Options
from argocd_lifecycle.times import format_duration, parse_duration

log = logging.getLogger(__name__)


class Duration(click.ParamType):  # type: ignore[type-arg]
    """``10s``, ``500ms``, ``2m``, ``14d`` -> seconds."""

    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        try:
            seconds = parse_duration(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if seconds <= 0:
            self.fail(f"{value!r} must be longer than zero", param, ctx)
        return seconds


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(0)


@click.group()
def generator() -> None:
    """The fleet: cluster inventory, prober, lifecycle and the ApplicationSet plugin generator."""


_PATH = click.Path(path_type=Path, dir_okay=False)
_DURATION = Duration()
_DEFAULT_LIFECYCLE, _DEFAULT_PROBING, _DEFAULT_EXEC = LifecycleSettings(), ProberSettings(), ExecSettings()
#: ``generator serve``'s own flags, each declared once; defaults are the settings values' own
SERVE_OPTIONS = Options(
    Option(
        "--clusters-from",
        type=click.Path(path_type=Path, exists=True),
        help="Read cluster Secret manifests from this file or folder instead of Kubernetes (re-read on change).",
    ),
    Option(
        "--state-file",
        type=_PATH,
        help="With --clusters-from: where phases and the mass-drop guard's memory survive restarts "
        "(default: .<name>.lifecycle-state.json beside it).",
    ),
    Option("--kubeconfig", type=_PATH, help="Kubeconfig (default: in-cluster, else ~/.kube/config)."),
    Option("--context", help="Kubeconfig context."),
    Option("--namespace", default="argocd", envvar="ARGOCD_LIFECYCLE_NAMESPACE", help="Argo CD namespace."),
    Option(
        "--application-namespace",
        name="application_namespaces",
        multiple=True,
        metavar="NAMESPACE",
        help="Also watch the ApplicationSets and Applications of this namespace (repeat; '*': every "
        "namespace), as Argo CD's application.namespaces and applicationsetcontroller.namespaces say.",
    ),
    Option(
        "--listen",
        multiple=True,
        default=("127.0.0.1:8080",),
        help="HOST:PORT of the HTTP service, repeatable (loopback unless told; the chart adds the pod's IP).",
    ),
    Option(
        "--probe-interval",
        type=_DURATION,
        default=_DEFAULT_PROBING.interval,
        shown=format_duration,
        help="Time between two probes.",
    ),
    Option(
        "--probe-timeout",
        type=_DURATION,
        default=_DEFAULT_PROBING.timeout,
        shown=format_duration,
        help="Timeout of each probe request.",
    ),
    Option("--probe-concurrency", type=int, low=1, high=1024, default=_DEFAULT_PROBING.concurrency),
    Option(
        "--probe-deadline",
        type=_DURATION,
        default=_DEFAULT_PROBING.deadline,
        shown=format_duration,
        help="Time one whole probe may take in its concurrency slot; past it the probe is a timeout.",
    ),
    Option(
        "--probe-page-bytes",
        default=_DEFAULT_PROBING.page_bytes,
        shown=format_size,
        help="Byte cap of one node-list page (/version and /readyz: 64Ki); past it the nodes are unknown.",
    ),
    Option(
        "--probe-node-interval",
        type=_DURATION,
        default=_DEFAULT_PROBING.node_interval,
        shown=format_duration,
        help="Time between two reads of a cluster's node facts (0s: every probe); each probe while an upgrade rolls.",
    ),
    Option(
        "--probe-max-nodes",
        type=int,
        low=1,
        high=100_000,
        default=_DEFAULT_PROBING.max_nodes,
        help="Nodes one probe reads at most (and twice their pages); past it the nodes are unknown.",
    ),
    Option(
        "--exec-allow",
        name="exec_allowed",
        multiple=True,
        default=_DEFAULT_EXEC.allowed,
        metavar="NAME",
        help="An exec credential plugin a cluster Secret may name (repeat; default argocd-k8s-auth).",
    ),
    Option(
        "--exec-plugin-dir",
        name="exec_plugin_dirs",
        multiple=True,
        default=_DEFAULT_EXEC.plugin_dirs,
        metavar="DIR",
        help="A folder allowed plugins are run from, in order (repeat).",
    ),
    Option(
        "--exec-pass-env",
        multiple=True,
        default=_DEFAULT_EXEC.pass_env,
        metavar="PREFIX",
        help="Environment variables starting with this reach exec plugins (repeat; cloud credentials).",
    ),
    Option(
        "--exec-timeout",
        type=_DURATION,
        default=_DEFAULT_EXEC.timeout,
        shown=format_duration,
        help="Time one run of an exec credential plugin may take.",
    ),
    Option(
        "--ready-after", type=int, low=1, high=100, default=_DEFAULT_LIFECYCLE.ready_after, help="Good probes to pass."
    ),
    Option(
        "--unreachable-after", type=int, low=1, high=100, default=_DEFAULT_LIFECYCLE.unreachable_after, help="Failures."
    ),
    Option(
        "--min-nodes-ready",
        default=f"{_DEFAULT_LIFECYCLE.min_nodes_ready * 100:g}",
        help="Percent of Ready nodes for healthy.",
    ),
    Option(
        "--certificate-warning",
        type=_DURATION,
        default=_DEFAULT_LIFECYCLE.certificate_warning.total_seconds(),
        shown=format_duration,
        help="Warn before expiry.",
    ),
    Option("--leader-election/--no-leader-election", default=True, help="Lease election."),
    Option(
        "--in-cluster/--no-in-cluster",
        default=False,
        help="List Argo CD's implicit in-cluster entry while no Secret names it, unless argocd-cm turns it off.",
    ),
    Option("--identity", default="", help="Lease holder identity (default: hostname + random suffix)."),
    Option("--receiver-url", default="", help="POST lifecycle events here (receiver /v1/events/lifecycle)."),
    Option("--receiver-secret-file", type=_PATH, help="The receiver's lifecycle secret (signs events)."),
    Option(
        "--receiver-external-secret-file",
        type=_PATH,
        help="The receiver's external secret: signs held answers for /v1/events/external (else not posted).",
    ),
    Option("--plugin-configmap", default="", help="Refresh only ApplicationSets using this plugin ConfigMap."),
    Option("--log-level", default="INFO", type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"])),
)


@generator.command()
@SERVE_OPTIONS.decorate
@service_options
@capi_options
@server_options
def serve(**opts: Any) -> None:
    """Watch cluster Secrets, probe every cluster, run the lifecycle and serve the plugin generator."""
    (host, port), *more_listen = (parse_listen(text) for text in opts["listen"])
    if opts["state_file"] is not None and opts["clusters_from"] is None:
        raise click.UsageError("--state-file needs --clusters-from (in Kubernetes the state lives in the cluster)")
    settings = ServeSettings(
        clusters_from=opts["clusters_from"],
        state_file=opts["state_file"],
        kubeconfig=str(opts["kubeconfig"]) if opts["kubeconfig"] else None,  # the client wants a str
        context=opts["context"],
        namespace=opts["namespace"],
        host=host,
        port=port,
        more_listen=tuple(more_listen),
        lifecycle=LifecycleSettings(
            ready_after=opts["ready_after"],
            unreachable_after=opts["unreachable_after"],
            min_nodes_ready=parse_percent(opts["min_nodes_ready"], where="--min-nodes-ready"),
            certificate_warning=timedelta(seconds=opts["certificate_warning"]),
        ),
        probing=ProberSettings(
            interval=opts["probe_interval"],
            timeout=opts["probe_timeout"],
            concurrency=opts["probe_concurrency"],
            deadline=opts["probe_deadline"],
            page_bytes=parse_size(
                opts["probe_page_bytes"], where="--probe-page-bytes", low=PAGE_BYTES[0], high=PAGE_BYTES[1]
            ),
            max_nodes=opts["probe_max_nodes"],
            node_interval=opts["probe_node_interval"],
            exec=ExecSettings(
                allowed=tuple(opts["exec_allowed"]),
                plugin_dirs=tuple(opts["exec_plugin_dirs"]),
                timeout=opts["exec_timeout"],
                pass_env=tuple(opts["exec_pass_env"]),
            ),
            in_cluster=InCluster.from_environ(os.environ),
        ),
        leader_election=opts["leader_election"] and opts["clusters_from"] is None,
        in_cluster=opts["in_cluster"] and opts["clusters_from"] is None,
        identity=opts["identity"] or f"{socket.gethostname()}-{uuid.uuid4().hex[:8]}",
        receiver_url=opts["receiver_url"],
        receiver_secret=receiver_secret(opts["receiver_secret_file"], opts["receiver_url"]),
        receiver_external_secret=receiver_secret(
            opts["receiver_external_secret_file"], opts["receiver_url"], "--receiver-external-secret-file"
        ),
        plugin_configmap=opts["plugin_configmap"],
        log_level=opts["log_level"],
        limits=limits_from_options(
            idle_timeout=opts["idle_timeout"],
            header_timeout=opts["header_timeout"],
            body_timeout=opts["body_timeout"],
            max_connections=opts["max_connections"],
        ),
        watched=Namespaces.parse(opts["namespace"], opts["application_namespaces"]),
        capi=CapiSettings.from_options(
            capi=opts["capi"],
            namespaces=opts["capi_namespaces"],
            copy_labels=opts["capi_copy_labels"],
            kubernetes=opts["clusters_from"] is None,
            allow_servers=opts["capi_allow_servers"],
            deny_servers=opts["capi_deny_servers"],
            environ=os.environ,
        ),
    )
    service = ServiceSettings.from_options(
        token_file=opts["token_file"],
        insecure_no_auth=opts["insecure_no_auth"],
        max_staleness=opts["max_staleness"],
        max_drop_percent=opts["max_drop_percent"],
        drop_settle=opts["drop_settle"],
        policy_file=opts["policy_file"],
    )
    logs.setup(settings.log_level)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per probe request is noise

    # uvicorn handles SIGTERM itself, then re-raises it once the server has stopped: that re-raise
    # lands here and ends the process with status 0, as a requested shutdown should
    signal.signal(signal.SIGTERM, _terminated)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(run(settings, service))
    log.info("stopped (pid %d)", os.getpid())
