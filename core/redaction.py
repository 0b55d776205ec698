"""Masking of values that look like credentials, before any text reaches a log, stderr or an error.

Kept apart from logging so the plugin's hot path can use it without importing ``logging``.
"""

from __future__ import annotations

import re

_SECRETISH = re.compile(
    r"(?i)(bearer\s+|token[\"']?\s*[:=]\s*[\"']?|password[\"']?\s*[:=]\s*[\"']?|secret[\"']?\s*[:=]\s*[\"']?)"
    r"([^\s\"',}]+)"
)


def redact(text: str) -> str:
    """Mask values that look like credentials (``Bearer x``, ``token: x``, ``password=x``)."""
    return _SECRETISH.sub(lambda m: m.group(1) + "***", text)
