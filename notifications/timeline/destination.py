"""Open a client for an application's destination cluster from its Argo CD cluster Secret."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from argocd_lifecycle.cluster_secrets import SecretWire, parse_secret
from argocd_lifecycle.kube.client import Kube, KubeSettings, connect_cluster
from argocd_lifecycle.notifications.timeline.live import DestinationConnector
from argocd_lifecycle.notifications.timeline.model import TimelineInputError


def connector(settings: KubeSettings) -> DestinationConnector:
    def connect(secret: Mapping[str, Any]) -> Kube:
        cluster = parse_secret(cast(SecretWire, secret))
        creds = cluster.credentials
        if creds.unsupported:
            raise TimelineInputError(
                f"--include-resources: Secret {cluster.namespace}/{cluster.secret_name}: {creds.unsupported}"
            )
        return connect_cluster(
            cluster.server,
            bearer_token=creds.bearer_token,
            username=creds.username,
            password=creds.password,
            ca_pem=creds.ca_pem,
            cert_pem=creds.cert_pem,
            key_pem=creds.key_pem,
            insecure=creds.insecure,
            server_name=creds.server_name,
            settings=settings,
        )

    return connect
