"""Request bodies read whole, within a time limit, before the application sees the request.

A view takes a database connection from the pool as soon as it checks the key; had it then
read the body, a client sending one byte every few seconds would hold that connection for as
long as it liked, and a few dozen such clients emptied the pool for every organization. This
WSGI wrapper reads every body first, with no database connection taken: a body declared with
`Content-Length` within the path's limit, and a body sent with `Transfer-Encoding: chunked`
(which Django would otherwise see as empty) up to one byte past the limit. The application
then reads the buffered copy.

Every body is limited to 64 KiB but one: the admin's catalog import form, and only for a request
that carries a session cookie (the view then checks who signs in), takes feeds up to
`ADMIN_MAX_UPLOAD_BYTES`; anyone else's large body is refused (413) before any of it is read.
A body must arrive within `REQUEST_BODY_TIMEOUT_SECONDS`, plus as long again for every further
64 KiB, and an upload within `ADMIN_MAX_UPLOAD_SECONDS` whatever its size. A body that does not is answered 408 by
`BodySizeLimitMiddleware`, one cut off or malformed 400, and the connection is closed after
the answer, since the rest of that body would be read as the next request. A chunked body over
the limit is handed on with the bytes read so far, so the middleware answers 413 as for any
declared large body, which is never read at all. Requests without a body pass straight on.
"""

from __future__ import annotations

import contextlib
import socket
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import gevent
from django.conf import settings
from django.http import parse_cookie
from django.urls import Resolver404, resolve

from infrastructure.worker_tuning import in_gevent_worker

READ_SIZE = 64 * 1024
# Larger bodies (only the admin's catalog upload may be) go to a temporary file.
IN_MEMORY_BYTES = 1024 * 1024

# Set in the WSGI environ when a body could not be read: (status, message), which
# BodySizeLimitMiddleware answers as a JSON error.
UNREADABLE_BODY = "assistant_api.unreadable_body"
BROKEN_CHUNKED_BODY = "Invalid chunked request body"
INCOMPLETE_BODY = "The request body ended before its Content-Length"
BODY_TIMED_OUT = "The request body did not arrive within {seconds:g} s"

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


# The one admin view that takes bodies over MAX_BODY_BYTES: the catalog import form.
UPLOAD_VIEW = "admin:knowledge_importrun_add"


def body_limit(environ: dict[str, Any]) -> int:
    """The largest body this request may send (the WSGI environ, or a request's META): the
    catalog API's batches of 1,000 products, the AI SDK's whole conversations and the admin's
    catalog upload take more than the rest."""
    path = environ.get("PATH_INFO", "")
    if path.startswith("/v1/catalog/"):
        return settings.CATALOG_MAX_BODY_BYTES
    if path == "/v1/ui/chat":
        return settings.UI_CHAT_MAX_BODY_BYTES
    if not path.startswith("/admin/"):
        return settings.MAX_BODY_BYTES
    # Only a request that may be signed in; without a session it is not read at all.
    if settings.SESSION_COOKIE_NAME not in parse_cookie(environ.get("HTTP_COOKIE", "")):
        return settings.MAX_BODY_BYTES
    try:
        view_name = resolve(path).view_name
    except Resolver404:
        return settings.MAX_BODY_BYTES
    return settings.ADMIN_MAX_BODY_BYTES if view_name == UPLOAD_VIEW else settings.MAX_BODY_BYTES


def bytes_to_read(environ: dict[str, Any]) -> tuple[int, bool] | None:
    """How many bytes to read before the application runs, and whether the body is chunked;
    None when there is nothing to read first (no body, or a length the middleware refuses)."""
    limit = body_limit(environ)
    declared = environ.get("CONTENT_LENGTH")
    if not declared:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        return (limit + 1, True) if chunked else None
    try:
        length = int(declared)
    except ValueError:
        return None  # 400 from the middleware
    return (length, False) if 0 < length <= limit else None


class BodyTimedOut(Exception):
    pass


class RequestBodyMiddleware:
    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]):
        wanted = bytes_to_read(environ)
        if wanted is None:
            return self.app(environ, start_response)
        size, chunked = wanted
        # Closed with the response (ClosingResponse), when the request is done with it.
        body = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115
        problem = read_body(environ["wsgi.input"], body, size=size, chunked=chunked)
        if problem is not None:
            environ[UNREADABLE_BODY] = problem
            body.seek(0)
            body.truncate()
        environ["CONTENT_LENGTH"] = str(body.tell())
        body.seek(0)
        environ["wsgi.input"] = body
        response = self.app(environ, start_response)
        # What is left of an unreadable body would be parsed as the next request.
        client = environ.get("gunicorn.socket") if problem is not None else None
        return ClosingResponse(response, body, client)


def read_body(source: IO[bytes], body: IO[bytes], *, size: int, chunked: bool):
    """Copies up to `size` bytes of `source` into `body`; None when done, else the
    (status, message) to answer."""
    timeout = settings.REQUEST_BODY_TIMEOUT_SECONDS
    # However fast its pieces come, an upload ends within this: a client cannot keep a
    # 200 MB body coming for hours at 64 KiB per REQUEST_BODY_TIMEOUT_SECONDS.
    longest = max(timeout, settings.ADMIN_MAX_UPLOAD_SECONDS)
    started = time.monotonic()
    received = 0
    allowed = timeout
    try:
        while received < size:
            # As long again for each further 64 KiB, so a large upload is not cut off.
            allowed = min(timeout * (1 + received // settings.MAX_BODY_BYTES), longest)
            piece = read_within(source, min(READ_SIZE, size - received), started + allowed)
            if not piece:
                break
            body.write(piece)
            received += len(piece)
    except BodyTimedOut:
        return 408, BODY_TIMED_OUT.format(seconds=allowed)
    except OSError:  # gunicorn's InvalidChunkSize, ChunkMissingTerminator, NoMoreData, ...
        return 400, BROKEN_CHUNKED_BODY if chunked else INCOMPLETE_BODY
    if received < size and not chunked:
        return 400, INCOMPLETE_BODY
    return None


def read_within(source: IO[bytes], size: int, deadline: float) -> bytes:
    """`source.read(size)`, or BodyTimedOut at `deadline` (a `time.monotonic()` value).

    Only a gevent worker can be interrupted while it waits on the socket; elsewhere (tests'
    client, `runserver`) the read has no limit.
    """
    if not in_gevent_worker():
        return source.read(size)
    timer = gevent.Timeout(max(0.0, deadline - time.monotonic()))
    timer.start()
    try:
        return source.read(size)
    except gevent.Timeout as exc:
        if exc is not timer:
            raise
        raise BodyTimedOut from None
    finally:
        timer.close()


class ClosingResponse:
    """The application's response, closing the buffered request body with it (PEP 3333), and
    the client's connection when its body could not be read."""

    def __init__(
        self, response: Iterable[bytes], body: IO[bytes], client: socket.socket | None
    ) -> None:
        self.response = response
        self.body = body
        self.client = client

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.response)

    def close(self) -> None:
        try:
            close = getattr(self.response, "close", None)
            if close is not None:
                close()
        finally:
            self.body.close()
            if self.client is not None:
                # The answer is sent by now; the server then finds the connection ended.
                with contextlib.suppress(OSError):
                    self.client.shutdown(socket.SHUT_RDWR)
