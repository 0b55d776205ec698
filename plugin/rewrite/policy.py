"""What the rewrite may do with an object: the removed-API policy and the opt-in conversions."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from argocd_lifecycle.errors import UsageError


class OnRemoved(Enum):
    """Objects whose API was removed without a replacement the target serves."""

    FAIL = "fail"
    DROP = "drop"
    KEEP = "keep"

    @classmethod
    def parse(cls, value: str, *, where: str = "--on-removed") -> OnRemoved:
        try:
            return cls(value.strip().lower())
        except ValueError as exc:
            raise UsageError(f"{where}: expected fail, drop or keep, got {value!r}") from exc


@dataclass(frozen=True)
class Policy:
    on_removed: OnRemoved = OnRemoved.FAIL
    #: opt-in: autoscaling/v1 HPAs (alpha annotations included) -> autoscaling/v2
    upgrade_hpa_v1: bool = False
