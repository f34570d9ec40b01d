"""JSON bodies for the errors gunicorn answers itself, before Django sees the request.

Gunicorn refuses malformed HTTP on its own (a control character such as CR, LF or NUL in a
header value, a header or request line over its size limits, a bad method or version) with an
HTML page. docs/api.md#malformed-http promises `{"message": ...}` from every layer, so
`gunicorn.conf.py` swaps
gunicorn's page writer for this one. The status stays gunicorn's: 400, 431 for oversized
headers, 501 for an unsupported transfer coding, 500 if a worker fails outside Django.
"""

from __future__ import annotations

import uuid

import orjson

INTERNAL_ERROR = "Internal server error"
MAX_DETAIL_CHARS = 200


def error_message(status: int, reason: str, detail: str) -> str:
    """`Bad Request: Invalid HTTP Header: 'X-Thing'`: the header's name, never its value.

    Gunicorn's detail names the offending header or quotes the request line the client sent;
    a 500 never says more than "Internal server error".
    """
    if status >= 500 and status != 501:
        return INTERNAL_ERROR
    detail = detail.strip()[:MAX_DETAIL_CHARS]
    return f"{reason}: {detail}" if detail else reason


def error_response_bytes(status: int, reason: str, detail: str) -> bytes:
    body = orjson.dumps({"message": error_message(status, reason, detail)})
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"X-Request-Id: {uuid.uuid4().hex}\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """Drop-in for `gunicorn.util.write_error(sock, status_int, reason, mesg)`."""
    from gunicorn.util import write_nonblock

    write_nonblock(sock, error_response_bytes(status_int, reason, mesg))


def install() -> None:
    """Makes every gunicorn worker answer its own errors in JSON (called by gunicorn.conf.py)."""
    import gunicorn.util

    gunicorn.util.write_error = write_json_error
