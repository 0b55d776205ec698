"""Base64 of hostile text, decoded strictly: every malformed input is one error, ``binascii.Error``.

``base64.b64decode(text, validate=True)`` answers a ``str`` holding a non-ASCII character with a bare
``ValueError``, which slipped past every ``except binascii.Error`` and let one Secret stop a whole
listing. Every decoder of base64 from a Secret, a kubeconfig or a cluster ``config`` uses this one.
"""

from __future__ import annotations

import base64
import binascii


def decode(text: str) -> bytes:
    """The bytes of ``text``; ``binascii.Error`` (a ``ValueError``) for anything but base64."""
    if not isinstance(text, str) or not text.isascii():
        raise binascii.Error("not base64: holds a character that is not ASCII")
    return base64.b64decode(text, validate=True)
