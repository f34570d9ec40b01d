"""HEAD against the real server (gunicorn + gevent): the GET's headers, never its body.

Gunicorn sends whatever body the application returns; the test client drops a HEAD's body on
its own, so only a real connection shows the bytes (assistant_api/head_responses.py).
"""

from __future__ import annotations

import pytest

from tests.factories import ChatFactory
from tests.server import raw_request

pytestmark = pytest.mark.e2e


def request(method: str, path: str, key: str, *, last: bool = False) -> bytes:
    connection = "close" if last else "keep-alive"
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\n"
        f"Connection: {connection}\r\n\r\n"
    ).encode()


@pytest.mark.parametrize(
    "path", ["/v1/chats/{chat}", "/v1/chats/{chat}/messages", "/v1/usage", "/healthz", "/nowhere"]
)
def test_head_answers_the_gets_headers_without_a_body_and_keeps_the_connection(live, tenant, path):
    chat = ChatFactory(chatbot=tenant.chatbot)
    path = path.format(chat=chat.id)
    answer = raw_request(
        live,
        request("HEAD", path, tenant.key)
        + request("HEAD", path, tenant.key)
        + request("GET", path, tenant.key, last=True),
    )
    first, rest = answer.split(b"\r\n\r\n", 1)
    second, get = rest.split(b"\r\n\r\n", 1)
    # Each answer starts right where the one before ended: no body bytes in between.
    assert rest.startswith(b"HTTP/1.1 ") and get.startswith(b"HTTP/1.1 "), answer[:600]
    get_head, get_body = get.split(b"\r\n\r\n", 1)

    def headers(block: bytes) -> dict[str, str]:
        lines = block.decode("latin-1").split("\r\n")[1:]
        return {k.lower(): v for k, v in (line.split(": ", 1) for line in lines)}

    assert first.split(b"\r\n")[0] == get_head.split(b"\r\n")[0]  # the same status
    assert headers(first)["content-length"] == headers(get_head)["content-length"]
    assert int(headers(get_head)["content-length"]) == len(get_body) > 0
    assert headers(first)["content-type"] == headers(get_head)["content-type"]
    assert headers(second)["x-request-id"] != headers(first)["x-request-id"]
