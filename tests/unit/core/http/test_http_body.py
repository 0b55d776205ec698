"""Request bodies are read up to a limit and never held beyond it, whatever Content-Length claims."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from argocd_lifecycle.http.body import BodyTooLarge, read_limited


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def _never_read() -> AsyncIterator[bytes]:
    raise AssertionError("the body was read although Content-Length already refused it")
    yield b""  # pragma: no cover - makes this an async generator


def test_the_whole_body_up_to_the_limit() -> None:
    body = asyncio.run(read_limited({"content-length": "6"}, _chunks(b"abc", b"def"), limit=6))
    assert body == b"abcdef"


def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    with pytest.raises(BodyTooLarge) as info:
        asyncio.run(read_limited({"content-length": "1048577"}, _never_read(), limit=1048576))
    assert info.value.limit == 1048576
    assert info.value.message == "request body: larger than the limit of 1048576 bytes"


def test_a_stream_that_lies_about_its_length_is_cut_off() -> None:
    with pytest.raises(BodyTooLarge):
        asyncio.run(read_limited({"content-length": "3"}, _chunks(b"abc", b"d"), limit=3))


def test_a_chunked_body_without_length_is_limited_too() -> None:
    with pytest.raises(BodyTooLarge):
        asyncio.run(read_limited({}, _chunks(b"x" * 10, b"y"), limit=10))
    assert asyncio.run(read_limited({"content-length": "junk"}, _chunks(b"ok"), limit=10)) == b"ok"
