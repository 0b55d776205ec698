"""The "Open" links of a notification, built from the receiver's own ``argocdUrl``, never a sender's body.

A body's URL (the catalog's former ``argocdUrl``, an external event's ``url``) would let whoever sends
it put any address behind the button of a message that looks like ours. Here the base is the
configured Argo CD UI and each path segment a name checked as Kubernetes checks it, then
percent-encoded, so a name cannot leave the page it names (``..``, ``/``, ``?``, ``#``): an
Application's page ``/applications/<namespace>/<name>``, a cluster's ``/settings/clusters/<server>``
(its URL encoded whole, as Argo CD's UI does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class Links:
    #: the Argo CD UI's base URL, checked by the config; "" = no links
    base: str = ""

    def application(self, namespace: str, app: str) -> str:
        if not self.base or not (_DNS_SUBDOMAIN.match(app) and len(app) <= 253):
            return ""
        if not namespace:
            return f"{self.base}/applications/{quote(app, safe='')}"
        if not _DNS_LABEL.match(namespace):
            return ""
        return f"{self.base}/applications/{quote(namespace, safe='')}/{quote(app, safe='')}"

    def cluster(self, server: str) -> str:
        if not self.base or not server.startswith(("https://", "http://")):
            return ""
        return f"{self.base}/settings/clusters/{quote(server, safe='')}"
