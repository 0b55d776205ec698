"""Reading a request body with a size limit, without ever holding more than the limit in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from starlette.requests import ClientDisconnect, Request

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.json_body import check_depth

MAX_BODY_BYTES = 1 << 20


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


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request's body; HttpError 413 over ``limit``, 400 when the client went away (or its body
    deadline closed the connection) before sending all of it."""
    try:
        return await read_limited(request.headers, request.stream(), limit)
    except BodyTooLarge as exc:
        raise HttpError(413, "too_large", exc.message) from None
    except ClientDisconnect:
        raise HttpError(
            400, "disconnected", "request body: the connection closed before the body was complete"
        ) from None


async def read_request_body(request: Request, limit: int) -> None:
    """What the HTTP layer does for an ``Endpoint(body=True)``: the body read under ``limit`` and its JSON
    depth checked, kept for the handler."""
    body = await read_body(request, limit)
    check_depth(body)
    request.state.body = body


def request_body(request: Request) -> bytes:
    """The body the layer read for this ``Endpoint(body=True)`` request (bounded and depth-checked)."""
    body = getattr(request.state, "body", None)
    if not isinstance(body, bytes):
        raise TypeError(f"{request.method} {request.url.path}: its Endpoint does not declare body=True")
    return body
