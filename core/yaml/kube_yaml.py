"""Kubernetes' YAML scalar semantics: how sigs.k8s.io/yaml (go-yaml v2 underneath) reads a scalar.

Argo CD, kubectl and the kube-apiserver decode manifests with sigs.k8s.io/yaml, which resolves plain
scalars with go-yaml v2's rules, not PyYAML's YAML 1.1 resolver. The differences change meaning:

- ``y``/``Y``/``n``/``N`` are booleans (PyYAML: strings); ``yes``/``no``/``on``/``off`` are booleans in both;
- no sexagesimal numbers: ``12:30`` is a string (PyYAML: the integer 750);
- ``1e3``, ``08`` and ``1.`` are floats, ``0o14``, ``0X1F`` and ``0B1`` integers (PyYAML: strings);
- integers beyond 64 bits are floats when written in decimal, strings otherwise (PyYAML: big integers);
- timestamps stay strings, exactly as written (PyYAML: datetimes); ``=`` is a string (PyYAML: an error).

``resolve_plain`` gives the tag and the Python value of a plain scalar, ``resolve_tagged`` of a scalar
with an explicit standard tag. Go's int, int64 and uint64 come out as ``int``, float64 as ``float``.
The mixins at the end put these rules into core/yamlio's PyYAML loader and dumper. Tests check loading
and dumping against the real decoder (the ``yamlcheck`` harness in tools/go).
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any, ClassVar

from yaml.constructor import ConstructorError
from yaml.nodes import ScalarNode, SequenceNode

TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (TAG + t for t in ("str", "int", "float", "bool", "null"))
TIMESTAMP, BINARY, MERGE = TAG + "timestamp", TAG + "binary", TAG + "merge"

#: go-yaml's lookup table (resolve.go): the only words that are not strings
WORDS: dict[str, tuple[str, Any]] = {
    **{w: (BOOL, True) for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{w: (BOOL, False) for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
    **{w: (NULL, None) for w in ("", "~", "null", "Null", "NULL")},
    **{w: (FLOAT, math.nan) for w in (".nan", ".NaN", ".NAN")},
    **{w: (FLOAT, math.inf) for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: (FLOAT, -math.inf) for w in ("-.inf", "-.Inf", "-.INF")},
}
#: first characters for which go-yaml looks further than "a string" (its resolveTable)
_WORD_START = frozenset("yYnNtTfFoO~")
_NUMBER_START = frozenset("+-0123456789")
#: go-yaml's yamlStyleFloat, checked before strconv.ParseFloat
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
#: strconv.ParseFloat's decimal form for text starting with "." (underscores between digits allowed)
_DOT_FLOAT = re.compile(r"\.[0-9_]+(?:[eE][-+]?[0-9_]+)?")
_BAD_UNDERSCORE = re.compile(r"(?<![0-9])_|_(?![0-9])")
_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789")}
_DIGITS[16] = frozenset("0123456789abcdefABCDEF")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
#: 64 binary digits and a prefix: no longer text is a 64-bit integer in any base
_MAX_DIGITS = 66
_STRING: tuple[str, Any] = (STR, None)  # marker: the value is the text itself


def _unsigned(body: str) -> int | None:
    """strconv.ParseUint(body, 0, 64) without the range check (underscores are already gone)."""
    if not body or len(body) > _MAX_DIGITS:
        return None  # past 64 bits in any base (and no quadratic int() on a long digit string)
    base = 10
    if body[0] == "0":
        prefix = body[1:2].lower()
        if len(body) >= 3 and prefix in ("b", "o", "x"):
            base, body = {"b": 2, "o": 8, "x": 16}[prefix], body[2:]
        else:
            base, body = 8, body[1:]
    if not all(c in _DIGITS[base] for c in body):
        return None
    return int(body, base) if body else 0


def _go_int(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64), then ParseUint: None when neither accepts it."""
    sign = plain[0] if plain[0] in "+-" else ""
    n = _unsigned(plain[len(sign) :])
    if n is None:
        return None
    if sign == "-":
        return -n if -n >= _INT64_MIN else None
    if n <= _INT64_MAX:
        return n
    return n if not sign and n <= _UINT64_MAX else None  # ParseUint takes no sign


def _go_float(text: str) -> float | None:
    """yamlStyleFloat and strconv.ParseFloat: out of range is an error (a string), not infinity."""
    if len(text) > _MAX_FLOAT_TEXT or _FLOAT.fullmatch(text) is None:
        return _long_float(text)
    value = float(text)
    return value if math.isfinite(value) else None


#: float() is linear, but keep the common path short; longer candidates are checked on their exponent
_MAX_FLOAT_TEXT = 400


def _long_float(text: str) -> float | None:
    if len(text) <= _MAX_FLOAT_TEXT or _FLOAT.fullmatch(text) is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _resolve(value: str) -> tuple[str, Any]:
    if not value:
        return NULL, None
    first = value[0]
    if first in _WORD_START:
        return WORDS.get(value, _STRING)
    if first == ".":
        word = WORDS.get(value)
        if word is not None:
            return word
        # strconv.ParseFloat(value): an underscore must sit between two digits
        if _DOT_FLOAT.fullmatch(value) is None or _BAD_UNDERSCORE.search(value) is not None:
            return _STRING
        number = float(value.replace("_", ""))
        return (FLOAT, number) if math.isfinite(number) else _STRING
    if first not in _NUMBER_START:
        return _STRING
    word = WORDS.get(value)
    if word is not None:
        return word
    # a timestamp (four digits and a dash first) decodes into the string as written: nothing to do
    plain = value.replace("_", "")
    if plain:
        integer = _go_int(plain)
        if integer is not None:
            return INT, integer
        decimal = _go_float(plain)
        if decimal is not None:
            return FLOAT, decimal
    return _STRING


_cache: dict[str, tuple[str, Any]] = {}
#: past this many entries the memo starts over (it only saves time on the repetitive values of manifests)
_CACHE_MAX = 100_000


def resolve_plain(value: str) -> tuple[str, Any]:
    """(tag, value) of a plain (unquoted, untagged) scalar as Kubernetes reads it."""
    found = _cache.get(value)
    if found is None:
        if len(_cache) > _CACHE_MAX:
            _cache.clear()
        tag, result = _resolve(value)
        found = _cache[value] = (tag, value if result is None and tag == STR else result)
    return found


def plain_tag(value: str) -> str:
    return resolve_plain(value)[0]


def is_plain_string(value: str) -> bool:
    """Whether ``value``, written unquoted, reads back as this very string."""
    return resolve_plain(value)[0] == STR


class TagMismatch(ValueError):
    """An explicitly tagged scalar the decoder refuses (``!!int abc``)."""


def resolve_tagged(tag: str, value: str) -> Any:
    """The value of a scalar with an explicit standard tag, as go-yaml decodes it into ``interface{}``:
    ``!!str`` and ``!!timestamp`` keep the text, ``!!float`` widens an integer, a mismatch is refused."""
    if tag in (STR, TIMESTAMP):
        return value
    found, result = resolve_plain(value) if value else (NULL, None)
    if found == tag:
        return result
    if tag == FLOAT and found == INT and isinstance(result, int):
        return float(result)
    short = tag.removeprefix(TAG)
    raise TagMismatch(f"cannot decode {found.removeprefix(TAG)} `{value}` as a !!{short}")


# --- PyYAML glue: the resolver, constructors and quoting core/yamlio's loader and dumper use ---------


class LoadResolver:
    """Resolver mixin for a PyYAML loader: plain scalars get the tag Kubernetes' decoder gives them.
    A plain ``<<`` is a merge key for go-yaml as for PyYAML (as a value it decodes as the string)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return STR
            if value == "<<":
                return MERGE
            found = _cache.get(value)  # resolve_plain's memo read in place: this runs for every plain scalar
            return found[0] if found is not None else plain_tag(value)
        return super().resolve(kind, value, implicit)  # type: ignore[misc]


class DumpResolver:
    """Resolver mixin for a PyYAML dumper: a string is written plain only when both Kubernetes' decoder
    and a YAML 1.1 reader (PyYAML, humans) read it back as that string; otherwise the emitter quotes it."""

    _plain: ClassVar[dict[str, str]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not ScalarNode or not implicit[0]:
            return super().resolve(kind, value, implicit)  # type: ignore[misc]
        tag = self._plain.get(value)
        if tag is None:
            if len(self._plain) > _CACHE_MAX:
                self._plain.clear()
            tag = plain_tag(value)
            if tag == STR:
                tag = super().resolve(kind, value, implicit)  # type: ignore[misc]
            self._plain[value] = tag
        return tag


def _mark_error(node: Any, message: str) -> ConstructorError:
    return ConstructorError(None, None, message, node.start_mark)


def _tagged(tag: str) -> Any:
    def construct(loader: Any, node: Any) -> Any:
        try:
            return resolve_tagged(tag, loader.construct_scalar(node))
        except TagMismatch as exc:
            raise _mark_error(node, str(exc)) from exc

    return construct


def _binary(loader: Any, node: Any) -> str:
    """go-yaml decodes ``!!binary`` into the string of its bytes (JSON then carries it as text)."""
    try:
        data = base64.b64decode(loader.construct_scalar(node).encode("ascii"), validate=False)
    except (ValueError, UnicodeEncodeError) as exc:
        raise _mark_error(node, "!!binary value contains invalid base64 data") from exc
    return data.decode("utf-8", "replace")


def _untagged(loader: Any, node: Any) -> Any:
    """``!!set``, ``!!omap`` and ``!!pairs`` change nothing for go-yaml: the node decodes as the plain
    mapping or sequence it is (PyYAML would build a set or tuples)."""
    if isinstance(node, ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


def install_constructors(loader: Any) -> None:
    """Register Kubernetes' scalar semantics on a PyYAML loader class (its own constructor table)."""
    for tag in (INT, FLOAT, BOOL, NULL):
        loader.add_constructor(tag, _tagged(tag))
    loader.add_constructor(TIMESTAMP, lambda lo, node: lo.construct_scalar(node))
    loader.add_constructor(BINARY, _binary)
    for name in ("set", "omap", "pairs"):
        loader.add_constructor(TAG + name, _untagged)
    # other tags (``!Ref``, ``!!python/...``) stay refused, as by PyYAML's safe loader: go-yaml would read
    # them as plain values, but no Kubernetes manifest has them, and an error is safer than a guess
