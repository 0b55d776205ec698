"""Reading a request body with a size limit, without ever holding more than the limit in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from argocd_lifecycle.errors import LifecycleError


class BodyTooLarge(LifecycleError):
    """The body (declared or streamed) is larger than the limit; services answer 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body: larger than the limit of {limit} bytes")
        self.limit = limit


async def read_limited(headers: Mapping[str, str], stream: AsyncIterator[bytes], limit: int) -> bytes:
    """The whole body, refused early when Content-Length already says it is too large."""
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise BodyTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)
