"""What an exception nobody expected may say where it is caught and carried on from: its type and the
line that raised it, never its message, which may quote the hostile input that caused it (a Secret's
value, a kubeconfig's)."""

from __future__ import annotations

import os
import traceback


def describe(exc: BaseException) -> str:
    """``TypeError at cluster_secrets.py:123``: enough to find the bug, nothing of the input."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    return f"{type(exc).__name__} at {os.path.basename(last.filename)}:{last.lineno}"
