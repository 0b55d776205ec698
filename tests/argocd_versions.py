"""The Argo CD releases the tests run against: the table of tools/go/argocd/versions.txt, which
tools/build.sh builds (the upstream binary and our two harnesses per release, linked as
``<tool>-<minor>`` in the tools folder)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "tools" / "go" / "argocd" / "versions.txt"
#: names a minor of the table (or a release of it) for the end-to-end platform; default: the newest
E2E_ENV = "ARGOCD_LIFECYCLE_E2E_ARGOCD"
_MINOR = re.compile(r"v(\d+)\.(\d+)")
_RELEASE = re.compile(r"v(\d+)\.(\d+)\.(\d+)")


class UnknownRelease(ValueError):
    """A minor or release that the table does not list."""


@dataclass(frozen=True)
class ArgocdRelease:
    minor: str  # v3.6
    release: str  # v3.6.1
    module: str  # tools/go/<module>/go.mod
    toolchain: str  # "local" or the go toolchain tools/build.sh runs for it
    tags: tuple[str, ...]  # the harnesses' build tags

    def tool(self, name: str) -> str:
        """The tools-folder name of ``argocd``, ``argocd-notify-eval`` or ``appset-eval`` for this release."""
        return f"{name}-{self.minor}"

    def at_least(self, minor: str) -> bool:
        return minor_key(self.minor) >= minor_key(minor)

    @property
    def go_mod(self) -> Path:
        return REPO / "tools" / "go" / self.module / "go.mod"


def minor_key(minor: str) -> tuple[int, int]:
    match = _MINOR.fullmatch(minor)
    if not match:
        raise UnknownRelease(f"{minor!r} is not an Argo CD minor such as v3.6")
    return int(match[1]), int(match[2])


def parse(text: str) -> tuple[ArgocdRelease, ...]:
    releases = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 5:
            raise ValueError(f"{TABLE}:{number}: expected minor, release, module, toolchain, tags: {line!r}")
        minor, release, module, toolchain, tags = fields
        if not _RELEASE.fullmatch(release) or not release.startswith(minor + "."):
            raise ValueError(f"{TABLE}:{number}: release {release!r} is not of minor {minor!r}")
        minor_key(minor)
        releases.append(ArgocdRelease(minor, release, module, toolchain, () if tags == "-" else tuple(tags.split(","))))
    return tuple(releases)


RELEASES = parse(TABLE.read_text(encoding="utf-8"))
OLDEST, NEWEST = RELEASES[0], RELEASES[-1]


def select(name: str | None) -> ArgocdRelease:
    """The release a minor (``v3.2``) or a release (``v3.2.11``) names; ``None`` or empty: the newest."""
    if not name:
        return NEWEST
    for release in RELEASES:
        if name in (release.minor, release.release):
            return release
    known = ", ".join(r.minor for r in RELEASES)
    raise UnknownRelease(f"{E2E_ENV}={name!r}: tools/build.sh builds Argo CD {known} (a minor or its release)")
