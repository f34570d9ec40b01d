"""Request bodies sent with `Transfer-Encoding: chunked` (no Content-Length), under the same limits.

Django reads exactly `CONTENT_LENGTH` bytes of a WSGI request, so a body a client streams
chunked reached the views as an empty body (a valid chat creation got 422 "field required").
This WSGI wrapper reads such a body before Django does, up to one byte past the path's limit,
and hands it on with its length. A body over the limit is handed on with the bytes read so far,
so `BodySizeLimitMiddleware` answers 413 as for any other large body, without the rest ever
being buffered.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from django.conf import settings

READ_SIZE = 64 * 1024
# Larger bodies (only the admin's catalog upload may be) go to a temporary file.
IN_MEMORY_BYTES = 1024 * 1024

# Set in the WSGI environ when a chunked body could not be read (malformed framing, or the
# client stopped mid-body); BodySizeLimitMiddleware answers it with a JSON 400.
BROKEN_BODY = "assistant_api.broken_chunked_body"

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def body_limit(path: str) -> int:
    """The largest request body of a path: the admin's catalog upload and the catalog API's
    batches of 1,000 products take more than the rest of the API."""
    if path.startswith("/admin/"):
        return settings.ADMIN_MAX_BODY_BYTES
    if path.startswith("/v1/catalog/"):
        return settings.CATALOG_MAX_BODY_BYTES
    return settings.MAX_BODY_BYTES


class ChunkedBodyMiddleware:
    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            wanted = body_limit(environ.get("PATH_INFO", "")) + 1
            source = environ["wsgi.input"]
            # Closed with the response (ClosingResponse), when the request is done with it.
            body = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115
            size = 0
            try:
                while size < wanted:
                    piece = source.read(min(READ_SIZE, wanted - size))
                    if not piece:
                        break
                    body.write(piece)
                    size += len(piece)
            except OSError as exc:  # gunicorn's InvalidChunkSize, ChunkMissingTerminator, ...
                environ[BROKEN_BODY] = str(exc) or type(exc).__name__
                body.truncate(0)
                size = 0
            body.seek(0)
            environ["wsgi.input"] = body
            environ["CONTENT_LENGTH"] = str(size)
            return ClosingResponse(self.app(environ, start_response), body)
        return self.app(environ, start_response)


class ClosingResponse:
    """The application's response, closing the buffered request body with it (PEP 3333)."""

    def __init__(self, response: Iterable[bytes], body: IO[bytes]) -> None:
        self.response = response
        self.body = body

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.response)

    def close(self) -> None:
        try:
            close = getattr(self.response, "close", None)
            if close is not None:
                close()
        finally:
            self.body.close()
