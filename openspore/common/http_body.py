"""Reading an HTTP request body under a size limit, for the ASGI servers (serving's REST, the federated server).

The declared Content-Length is refused before anything is read; a body without one (chunked) is counted as it
streams, so an oversized upload never sits whole in memory.

    >>> import asyncio
    >>> class Request:  # what starlette's Request offers here: headers and an async byte stream
    ...     headers = {"content-length": "5"}
    ...     async def stream(self):
    ...         yield b"he"
    ...         yield b"llo"
    >>> asyncio.run(read_limited_body(Request(), 16))
    b'hello'
    >>> asyncio.run(read_limited_body(Request(), 4))
    Traceback (most recent call last):
    ...
    openspore.common.http_body.BodyTooLarge: the request body is over 4 bytes
"""


class BodyTooLarge(Exception):
    """The request body (declared or streamed) is over the server's limit."""


async def read_limited_body(request, limit):
    """The whole body of `request` as bytes; BodyTooLarge once it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the request body is over {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the request body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
