"""JSON request bodies with a nesting limit, checked before anything is parsed.

``json.loads`` recurses once per nesting level: a body of ten thousand ``[`` raises RecursionError (a
500 where a 400 belongs), and a few hundred levels reach code that walks the result recursively. The
check runs at C speed (regular expressions and byte translation, no Python loop per byte): a 1 MiB
body nested as deep as allowed is checked in about 20 ms, a typical request in under a microsecond.
"""

from __future__ import annotations

import json
import re
from typing import Any

from argocd_lifecycle.http.errors import HttpError

MAX_DEPTH = 32

# a JSON string, escapes included (possessive, so a long string is one linear scan)
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
# braces become brackets: only the nesting matters here, mismatched pairs are json.loads' to report
_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")


def _within(limit: int) -> re.Pattern[bytes]:
    """A pattern matching bracket text nested at most ``limit`` deep (a regular language for a fixed
    limit; possessive quantifiers keep the match linear)."""
    pattern = rb"[^\[\]]*+"
    for _ in range(limit):
        pattern = rb"(?:[^\[\]]++|\[" + pattern + rb"\])*+"
    return re.compile(pattern)


_PATTERNS: dict[int, re.Pattern[bytes]] = {}


def too_deep(raw: bytes, max_depth: int = MAX_DEPTH) -> bool:
    """True when the JSON text in ``raw`` nests objects and arrays deeper than ``max_depth``."""
    if raw.count(b"[") + raw.count(b"{") <= max_depth:  # cannot nest deeper than it has openers
        return False
    pattern = _PATTERNS.get(max_depth)
    if pattern is None:
        pattern = _PATTERNS[max_depth] = _within(max_depth)
    return pattern.fullmatch(_STRING.sub(b"", raw).translate(_AS_BRACKETS)) is None


def check_depth(raw: bytes, max_depth: int = MAX_DEPTH) -> None:
    """HttpError 400 when the body nests deeper than ``max_depth``."""
    if too_deep(raw, max_depth):
        raise HttpError(400, "too_deep", f"request body: JSON nested deeper than {max_depth} levels")


def parse_json(raw: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of a request body; HttpError 400 naming the problem (line and column) otherwise."""
    check_depth(raw, max_depth)
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise HttpError(400, "bad_json", f"request body: not valid JSON ({exc})") from None
    except RecursionError:  # malformed text can slip past the check (an unterminated string)
        raise HttpError(400, "too_deep", f"request body: JSON nested deeper than {max_depth} levels") from None
