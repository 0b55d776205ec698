"""Kubernetes versions as Argo CD hands them to us (``1.29``, ``1.29.3``, ``v1.29.3``, ``1.29+``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from argocd_lifecycle.errors import UsageError

_VERSION = re.compile(r"^v?(\d+)\.(\d+)\+?(?:\.(\d+))?(?:[-+].*)?$")


@dataclass(frozen=True, order=True)
class KubeVersion:
    major: int
    minor: int
    patch: int | None = None

    @classmethod
    def parse(cls, text: str, *, where: str = "version") -> KubeVersion:
        m = _VERSION.match(text.strip())
        if not m:
            raise UsageError(f"{where}: {text!r} is not a Kubernetes version (expected 1.29 or 1.29.3)")
        patch = int(m.group(3)) if m.group(3) is not None else None
        return cls(int(m.group(1)), int(m.group(2)), patch)

    @property
    def minor_version(self) -> str:
        """``1.29``: the form used in annotations and the deprecation table."""
        return f"{self.major}.{self.minor}"

    @property
    def semver(self) -> str:
        """``1.29.0``: full semver as ``helm --kube-version`` wants it."""
        return f"{self.major}.{self.minor}.{self.patch or 0}"

    @property
    def key(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def __str__(self) -> str:
        return self.semver if self.patch is not None else self.minor_version
