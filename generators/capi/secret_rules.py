"""What the chart's admission policy refuses in a CAPI cluster Secret's data, as regexes over its base64.

In a ValidatingAdmissionPolicy a Secret's ``data`` values are the base64 text (the object reaches CEL as
JSON; ``string(object.data.config)`` is still base64), and Kubernetes' CEL has no base64 decoder. So the
policy asks "does the *decoded* value hold X?" with regular expressions over the base64 text: base64
turns each 3 bytes into 4 characters, so a byte at offset 0, 1 or 2 of its group fixes known bits of one
or two known characters of that group, and a run of bytes at one of the three offsets is a fixed run of
character classes. Searched group-aligned (``^(?:.{4})*`` first), such a pattern matches exactly when
the decoded text holds the run at that offset; the three offsets together, anywhere. A byte is given as
the bits it must have (mask, value), so "either case of a letter" (only bit 0x20 free) and "any byte >=
0x80" (only bit 0x80 set) are exact too. ``.`` stands for any base64 character: the API server hands
CEL canonical base64, where ``=`` only pads the last group, and every character a pattern places
carries bits of a byte it names, so ``.`` never meets padding there.

What is refused (the policy's reasons, ``refusal`` for the generator's own check before it writes):

- ``config`` holding a backslash or a byte >= 0x80, or, in any letter case, ``execproviderconfig``,
  ``awsauthconfig``, ``proxyurl``, ``username`` or ``password``. Go's encoding/json matches a key to a
  field case-insensitively, folding Unicode (U+017F is an ``s``, U+212A a ``k``) after decoding
  ``\\uXXXX`` escapes; with neither a backslash nor a non-ASCII byte left, a key that Argo CD would read
  as one of those fields holds the field's name in some ASCII case, and that is refused wherever it is.
- ``server`` holding ``%`` (Go unescapes it in a host), ``@`` (credentials), a backslash or a byte >=
  0x80, or naming the in-cluster API server: ``http(s)://kubernetes``, ``kubernetes.default`` or
  ``kubernetes.default.svc`` (a trailing dot too), then the end, ``:``, ``/``, ``?`` or ``#``; or
  ``kubernetes.default.svc.`` and anything (any case). Argo CD answers
  ``https://kubernetes.default.svc`` without a token with its own account.
- either longer than its ``MAX_BYTES``, which also bounds what the patterns cost.

Cost: the API server prices ``s.matches(re)`` at ``ceil(0.1 * (1 + len(s))) * ceil(0.25 * len(re))``
and stops one expression at 1,000,000 (the refusal is then a cost error, not a reason), one policy at
10,000,000. So each key's alternatives are cut into patterns that cost at most ``EXPRESSION_COST``
over a value at its size cap, one validation each; all of them together cost about 3 million.

The patterns are written to ``charts/argocd-lifecycle/files/capi-secret-rules.json`` by
``python -m argocd_lifecycle.generators.capi.secret_rules`` (a test fails when that file drifts).
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TypedDict

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ANY = "."  # any base64 character (see above)
Byte = tuple[int, int]  # (mask, value): the bits a byte must have

CONFIG_WORDS = ("execproviderconfig", "awsauthconfig", "proxyurl", "username", "password")
_SCHEMES = ("http://", "https://")
_HOSTS = ("kubernetes", "kubernetes.default", "kubernetes.default.svc")
_AFTER_HOST = (":", "/", "?", "#")
#: the largest decoded value each key may hold (a CAPI kubeconfig's config is a few KiB; servers.py
#: refuses a server past 2048 first). Multiples of 3, so that the policy's bound on the base64 length
#: is exactly this many bytes.
MAX_BYTES = {"config": 63 * 1024, "server": 3 * 1024}
#: what one expression may cost (the API server's limit is 1,000,000: a fifth is left spare)
EXPRESSION_COST = 800_000


def exact(char: str) -> Byte:
    return 0xFF, ord(char)


def either_case(char: str) -> Byte:
    """A letter in either case (they differ in bit 0x20 only); any other character as it is."""
    return (0xDF, ord(char) & 0xDF) if char.isascii() and char.isalpha() else exact(char)


def word(text: str) -> tuple[Byte, ...]:
    return tuple(either_case(c) for c in text)


HIGH: Byte = (0x80, 0x80)  # any byte >= 0x80


def _class(mask: int, value: int) -> str:
    """The base64 characters whose 6 bits agree with ``value`` where ``mask`` is set, as a class."""
    chars = [ALPHABET[v] for v in range(64) if v & mask == value & mask]
    if len(chars) == 64:
        return _ANY
    runs = [[chars[0]]]
    for ch in chars[1:]:  # ranges where the alphabet and ASCII both run on (A-Z, a-z, 0-9)
        if ch.isalnum() and runs[-1][-1].isalnum() and ord(ch) == ord(runs[-1][-1]) + 1:
            runs[-1].append(ch)
        else:
            runs.append([ch])
    body = "".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else "".join(r) for r in runs)
    return body if len(chars) == 1 and chars[0].isalnum() else f"[{body}]"


def _chars(run: Sequence[Byte], offset: int, *, pad: bool = False) -> str:
    """The character classes of ``run`` placed at byte ``offset`` (0-2) of a group, from the group's
    first character on; with ``pad``, the run ends the text (canonical padding: zero bits, then '=')."""
    bits: list[tuple[int, int]] = [(0, 0)] * (8 * offset)  # (must, value) per bit, most significant first
    for mask, value in run:
        bits += [((mask >> i) & 1, (value >> i) & 1) for i in range(7, -1, -1)]
    if pad:
        bits += [(1, 0)] * (-len(bits) % 6)
    else:
        bits += [(0, 0)] * (-len(bits) % 6)
    out = []
    for start in range(0, len(bits), 6):
        chunk = bits[start : start + 6]
        mask = sum(m << (5 - i) for i, (m, _) in enumerate(chunk))
        value = sum(v << (5 - i) for i, (_, v) in enumerate(chunk))
        out.append(_class(mask, value))
    text = "".join(out)
    if pad:
        text += "=" * (-(len(run) + offset) % 3)
    return text


def matches_cost(text_chars: int, pattern_chars: int) -> int:
    """What the API server's CEL charges for ``text.matches(pattern)``."""
    return math.ceil(0.1 * (1 + text_chars)) * math.ceil(0.25 * pattern_chars)


def pattern_chars(text_chars: int) -> int:
    """The longest pattern that, over text of ``text_chars``, costs at most ``EXPRESSION_COST``."""
    return 4 * (EXPRESSION_COST // math.ceil(0.1 * (1 + text_chars)))


def _cut(head: str, alternatives: Sequence[str], limit: int, tail: str = "") -> list[str]:
    """``head(?:a|b|...)tail`` as few patterns as hold at most ``limit`` characters each (any matching
    is the whole matching)."""
    patterns: list[list[str]] = [[]]
    for alt in alternatives:
        if patterns[-1] and len(head) + len(tail) + 4 + len("|".join([*patterns[-1], alt])) > limit:
            patterns.append([])
        patterns[-1].append(alt)
    return [f"{head}(?:{'|'.join(p)}){tail}" for p in patterns]


def anywhere(runs: Iterable[Sequence[Byte]], limit: int) -> list[str]:
    """Patterns one of which matches base64 text whose decoded text holds any of ``runs`` anywhere."""
    return _cut(f"^(?:{_ANY}{{4}})*", [_chars(run, offset) for run in runs for offset in range(3)], limit)


def starting(runs: Iterable[Sequence[Byte]], limit: int) -> list[str]:
    """Patterns one of which matches base64 text whose decoded text starts with any of ``runs``."""
    return _cut("^", [_chars(run, 0) for run in runs], limit)


def being(runs: Iterable[Sequence[Byte]], limit: int) -> list[str]:
    """Patterns one of which matches base64 text whose decoded text is one of ``runs`` (canonical
    base64)."""
    return _cut("^", [_chars(run, 0, pad=True) for run in runs], limit, "$")


def _in_cluster() -> tuple[list[tuple[Byte, ...]], list[tuple[Byte, ...]]]:
    """The in-cluster API server's spellings: prefixes (followed by ':', '/', '?' or '#', or the .svc.
    domain) and whole values."""
    hosts = [h + dot for h in _HOSTS for dot in ("", ".")]
    prefixes = [word(s + h + end) for s in _SCHEMES for h in hosts for end in _AFTER_HOST]
    prefixes += [word(s + "kubernetes.default.svc.") for s in _SCHEMES]
    return prefixes, [word(s + h) for s in _SCHEMES for h in hosts]


def encoded_length(size: int) -> int:
    """The length of ``size`` bytes in padded base64."""
    return 4 * -(-size // 3)


class Rule(TypedDict):
    """One data key's rule as the chart reads it: its base64 may be at most ``maxLength`` characters
    (``maxBytes`` decoded) and must match none of ``patterns``."""

    maxBytes: int
    maxLength: int
    patterns: list[str]


@cache
def rules() -> dict[str, Rule]:
    """Data key -> its rule."""
    prefixes, whole = _in_cluster()
    config, server = (pattern_chars(encoded_length(MAX_BYTES[key])) for key in ("config", "server"))
    refused = {
        "config": anywhere([(exact("\\"),), (HIGH,), *(word(w) for w in CONFIG_WORDS)], config),
        "server": [
            *anywhere([(exact("%"),), (exact("@"),), (exact("\\"),), (HIGH,)], server),
            *starting(prefixes, server),
            *being(whole, server),
        ],
    }
    return {
        key: {"maxBytes": MAX_BYTES[key], "maxLength": encoded_length(MAX_BYTES[key]), "patterns": refused[key]}
        for key in refused
    }


#: why each data key is refused (the policy's messages name the same)
REASONS = {
    "config": "the config holds exec, AWS, proxy or basic-auth settings, a backslash or a non-ASCII byte",
    "server": "the server is the in-cluster API server, or holds '%', '@', a backslash or a non-ASCII byte",
}


def refusal(data: Mapping[str, str]) -> str | None:
    """Why the chart's policy would refuse these data values (plain text), or None."""
    for key, rule in rules().items():
        raw = data.get(key, "").encode()
        if len(raw) > MAX_BYTES[key]:
            return f"the {key} is larger than {MAX_BYTES[key]} bytes"
        encoded = base64.b64encode(raw).decode("ascii")
        if any(re.search(pattern, encoded) for pattern in rule["patterns"]):
            return REASONS[key]
    return None


def main() -> None:
    print(json.dumps(rules(), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
