"""Printed values stay scalars: each ``{{ ... }}`` prints a placeholder, the YAML structure is read from
the template's own text, and only then each placeholder becomes its value's text.

A value (from the environment, the cluster, the Application, the parameters) therefore can never create
a key, a line or an object, whatever it contains. In a plain scalar the substituted text is typed the
way YAML types a plain scalar (``3`` is a number, ``true`` a boolean, as if written there); in a quoted
or block scalar it stays text. Placeholders are private-use characters a template may not contain.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.stream.parse import Budget, load_documents
from argocd_lifecycle.yaml import yamlio

START, END = "\ue000", "\ue001"
_DIGIT0 = 0xE010
#: a placeholder: START, the slot number in hex written with U+E010..U+E01F, END
PLACEHOLDER = re.compile("\ue000([\ue010-\ue01f]+)\ue001")
#: characters reserved for placeholders: a template holding one is refused
RESERVED = re.compile("[\ue000-\ue01f]")
_STR = "tag:yaml.org,2002:str"
_NOT_IMPLICIT = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")


class Slots:
    """The values printed by one template, in order; ``put`` returns the placeholder for one."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def put(self, value: Any) -> Markup:
        index = len(self.values)
        self.values.append(value)
        digits = "".join(chr(_DIGIT0 + int(c, 16)) for c in format(index, "x"))
        return Markup(START + digits + END)  # noqa: S704 - our own placeholder, no user text

    def text(self, index: int) -> str:
        value = self.values[index]
        if isinstance(value, dict | list | tuple | set | frozenset):
            raise RenderError(
                f"printed a {type(value).__name__}: a value prints as one scalar; print its items one by one, "
                "or use |tojson (a string) or |tojson|safe (raw JSON, see docs/security.md)"
            )
        return str(value)

    def substitute(self, text: str) -> str:
        return PLACEHOLDER.sub(lambda m: self.text(int("".join(f"{ord(c) - _DIGIT0:x}" for c in m.group(1)), 16)), text)


class TemplateLoader(yamlio.BoundedLoader):
    """Reads a rendered template: placeholders are replaced in the node graph, before objects are built."""

    slots: Slots = Slots()
    source: str = ""

    def prepare(self, node: Node) -> Node:
        stack: list[Node] = [node]
        seen: set[int] = set()
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if START in current.tag or END in current.tag:
                raise RenderError(f"{self.source}: a value was printed inside a YAML tag")
            if isinstance(current, ScalarNode):
                if RESERVED.search(current.value):
                    self._substitute(current)
            elif isinstance(current, MappingNode):
                stack.extend(part for pair in current.value for part in pair)
            elif isinstance(current, SequenceNode):
                stack.extend(current.value)
        return node

    def _substitute(self, node: ScalarNode) -> None:
        if RESERVED.search(PLACEHOLDER.sub("", node.value)):
            raise RenderError(f"{self.source}: a printed value was cut apart by a filter, or printed with |safe")
        try:
            value = self.slots.substitute(node.value)
        except RenderError as exc:
            raise RenderError(f"{self.source}:{node.start_mark.line + 1}: {exc.message}") from exc
        tagged = node.start_mark is not None and self._text_at(node.start_mark.index) == "!"
        if not node.style and not tagged:  # plain (libyaml says '', PyYAML None)
            tag = self.resolve(ScalarNode, value, (True, False))
            node.tag = _STR if tag in _NOT_IMPLICIT else tag
        node.value = value

    def _text_at(self, index: int) -> str:
        buffer: str = getattr(self, "_text", "")
        return buffer[index] if 0 <= index < len(buffer) else ""


def load_rendered(text: str, source: str, slots: Slots, limits: yamlio.Limits, budget: Budget | None) -> list[Any]:
    """The documents of a rendered template, placeholders replaced by their values."""
    loader = type("BoundTemplateLoader", (TemplateLoader,), {"slots": slots, "source": source, "_text": text})
    return load_documents(text, source, limits=limits, loader=loader, budget=budget)
