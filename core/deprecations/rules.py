"""The deprecated-API rules as values: a rule per apiVersion + kind and the base that looks them up.

The contract the compiled table (``table.py``), its loader (``knowledge.py``) and every reader share, apart
from the factories, so the table can be built from these types without importing its own loader.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from argocd_lifecycle.errors import ConfigError

#: (major, minor)
Key = tuple[int, int]
BUILTIN = "built-in"


@dataclass(frozen=True)
class Replacement:
    api_version: str
    #: first minor that serves it; None when unknown (treated as always available)
    since: Key | None = None
    #: set when the replacement is a different kind (Endpoints -> EndpointSlice): never converted
    kind: str | None = None
    #: a beta/alpha a cluster serves only when enabled: usable only when KUBE_API_VERSIONS lists it
    default_off: bool = False


@dataclass(frozen=True)
class ApiRule:
    api_version: str
    kind: str
    deprecated_in: Key | None = None
    removed_in: Key | None = None
    replacements: tuple[Replacement, ...] = ()
    #: False for review/subresource/wire types that never appear in manifests
    persisted: bool = True
    note: str = ""
    sources: str = ""
    #: why a same-kind replacement exists but the plugin does not convert to it (a human must migrate);
    #: empty when the plugin converts automatically (users' rules are renames, so always automatic)
    manual: str = ""
    #: "built-in" or the path of the user's file
    origin: str = BUILTIN

    def removed_at(self, version: Key) -> bool:
        return self.removed_in is not None and version >= self.removed_in

    def deprecated_at(self, version: Key) -> bool:
        return self.deprecated_in is not None and version >= self.deprecated_in

    @property
    def newest_replacement(self) -> Replacement | None:
        return self.replacements[-1] if self.replacements else None

    @property
    def converts(self) -> bool:
        """Whether the plugin rewrites objects of this pair by itself (to a same-kind replacement)."""
        return not self.manual and any(r.kind is None for r in self.replacements)


def minor(key: Key | None) -> str:
    return f"{key[0]}.{key[1]}" if key else ""


class KnowledgeBase:
    """Rules by (apiVersion, kind); a rule with kind ``*`` covers every kind of its apiVersion."""

    def __init__(self, rules: Iterable[ApiRule], *, data_version: str = "") -> None:
        self.rules: dict[tuple[str, str], ApiRule] = {}
        self.data_version = data_version
        for rule in rules:
            self.rules[(rule.api_version, rule.kind)] = rule
        self._wildcards = {api: r for (api, kind), r in self.rules.items() if kind == "*"}
        #: every apiVersion with a rule: lets callers skip objects without a dictionary lookup pair
        self.api_versions = frozenset(api for api, _ in self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def lookup(self, api_version: str, kind: str) -> ApiRule | None:
        if api_version not in self.api_versions:
            return None
        return self.rules.get((api_version, kind)) or self._wildcards.get(api_version)

    def extended(self, extra: Iterable[ApiRule]) -> KnowledgeBase:
        """A new base with ``extra`` added; a rule that repeats one already known is refused (as pluto)."""
        rules = dict(self.rules)
        for rule in extra:
            old = rules.get((rule.api_version, rule.kind))
            if old is not None:
                raise ConfigError(f"{rule.origin}: {rule.api_version} {rule.kind} is already defined ({old.origin})")
            rules[(rule.api_version, rule.kind)] = rule
        return KnowledgeBase(rules.values(), data_version=self.data_version)
