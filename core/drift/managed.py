"""``metadata.managedFields`` read into values: which manager owns which field paths, how and when.

Each entry names its manager, its operation (``Apply`` for server-side apply, ``Update`` for every other
write: ``kubectl edit``, ``patch``, ``scale``, a controller's update), the ``time`` it last changed what it
owns, the subresource it wrote through (``scale``, ``status``; empty for the object itself) and its
fieldsV1 tree. An object written before field management, or read without it, has no entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argocd_lifecycle.drift.fields import FieldsError, Path, paths
from argocd_lifecycle.times import parse_rfc3339_datetime

#: the API server keeps one entry per manager and operation; a few dozen is already unusual
MAX_ENTRIES = 64
#: a manager's name (the API server allows 128 characters)
MAX_MANAGER = 128


@dataclass(frozen=True)
class Managed:
    """One managedFields entry."""

    manager: str
    operation: str
    subresource: str
    #: None when the entry carries no (readable) time
    time: datetime | None
    paths: tuple[Path, ...]


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldsError(f"{where}: {key} is not a string")
    if len(value) > MAX_MANAGER or not all(c.isprintable() for c in value):
        raise FieldsError(f"{where}: {key} is longer than {MAX_MANAGER} characters or not printable")
    return value


def _time(entry: Mapping[str, Any]) -> datetime | None:
    raw = entry.get("time")
    if not isinstance(raw, str) or len(raw) > 64:
        return None
    try:
        return parse_rfc3339_datetime(raw)
    except ValueError:
        return None


def read_managed(obj: Mapping[str, Any]) -> tuple[Managed, ...]:
    """The entries of ``obj``'s managedFields (none when it has none); ``FieldsError`` when unreadable."""
    meta = obj.get("metadata")
    entries = meta.get("managedFields") if isinstance(meta, Mapping) else None
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise FieldsError("managedFields is not a list")
    if len(entries) > MAX_ENTRIES:
        raise FieldsError(f"managedFields: more than {MAX_ENTRIES} entries")
    found: list[Managed] = []
    for index, entry in enumerate(entries):
        where = f"managedFields[{index}]"
        if not isinstance(entry, Mapping):
            raise FieldsError(f"{where}: not an object")
        fields_type = entry.get("fieldsType", "FieldsV1")
        if fields_type != "FieldsV1":
            raise FieldsError(f"{where}: fieldsType is not FieldsV1")
        try:
            owned = paths(entry.get("fieldsV1") or {})
        except FieldsError as exc:
            raise FieldsError(f"{where}: {exc.message}") from exc
        found.append(
            Managed(
                manager=_text(entry, "manager", where),
                operation=_text(entry, "operation", where),
                subresource=_text(entry, "subresource", where),
                time=_time(entry),
                paths=owned,
            )
        )
    return tuple(found)
