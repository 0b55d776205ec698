"""Kubernetes object names as the API server checks them, for names that arrive from hostile input."""

from __future__ import annotations

import re

# RFC 1123 label: what a namespace name must be (apimachinery's IsDNS1123Label)
_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


def is_namespace(text: str) -> bool:
    """Whether ``text`` is a namespace name (a DNS-1123 label: at most 63 of ``[-a-z0-9]``, alphanumeric
    at both ends); ``fullmatch``, so a trailing newline is no name either."""
    return _LABEL.fullmatch(text) is not None


# RFC 1123 subdomain: what most object names must be (apimachinery's IsDNS1123Subdomain)
SUBDOMAIN_PATTERN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_SUBDOMAIN = re.compile(SUBDOMAIN_PATTERN)


def is_object_name(text: str) -> bool:
    """Whether ``text`` is a DNS-1123 subdomain (at most 253 characters), as an ApplicationSet's name is."""
    return len(text) <= 253 and _SUBDOMAIN.fullmatch(text) is not None
