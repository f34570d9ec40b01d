"""Bad input only a real HTTP server sees, against gunicorn + gevent.

Bodies of 64 KiB + 1 byte and of 10 MB, with a Content-Length and streamed chunked (no length);
header bytes no client library would send (CR, LF, NUL in a value, a folded line, a bad name),
sent through a raw socket; an Idempotency-Key of 10,000 characters; a request line over
gunicorn's limit. Gunicorn answers malformed HTTP itself, in JSON (assistant_api/server_errors).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from assistant_api.errors import BODY_TOO_LARGE
from chats.idempotency import KEY_TOO_LONG
from tests.factories import ChatFactory, ProductFactory
from tests.server import raw_request

pytestmark = pytest.mark.e2e

LIMIT = 64 * 1024
URL = "https://shop.example/p/1"


def endpoints(tenant, chat) -> dict[str, tuple[str, dict]]:
    return {
        "create chat": ("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}),
        "add message": (f"/v1/chats/{chat.id}/messages", {"message": "hi", "currentUrl": URL}),
        "pdp body form": (
            "/v1/knowledge/pdp-questions/public/get-questions",
            {"url": URL, "organizationId": str(tenant.organization.id)},
        ),
    }


def padded(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    head, tail = b'{"pad": "', b'"}'
    return head + b"a" * (size - len(head) - len(tail)) + tail


def chunked(data: bytes, piece: int = 16 * 1024) -> Iterator[bytes]:
    """An iterator body: httpx sends it with Transfer-Encoding: chunked and no Content-Length."""
    for start in range(0, len(data), piece):
        yield data[start : start + piece]


def assert_json_error(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, response.text[:200]
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers.get("x-request-id")
    body = response.json()
    assert set(body) <= {"message", "errors"} and body["message"]
    return body


@pytest.mark.parametrize("size", [LIMIT + 1, 10 * 1024 * 1024])
@pytest.mark.parametrize("transfer", ["content-length", "chunked"])
def test_oversized_bodies_are_413_on_every_body_endpoint(live, tenant, size, transfer):
    chat = ChatFactory(chatbot=tenant.chatbot)
    body = padded(size)
    headers = {"x-api-key": tenant.key, "content-type": "application/json"}
    with live.client(headers=headers) as client:
        for name, (path, _valid) in endpoints(tenant, chat).items():
            content = body if transfer == "content-length" else chunked(body)
            response = client.post(path, content=content)
            assert assert_json_error(response, 413) == {"message": BODY_TOO_LARGE}, name
            assert (response.request.headers.get("transfer-encoding") == "chunked") == (
                transfer == "chunked"
            )


def test_chunked_bodies_within_the_limit_are_read(live, tenant):
    # Before the fix Django saw an empty body here, and a valid request got 422.
    chat = ChatFactory(chatbot=tenant.chatbot)
    ProductFactory(organization=tenant.organization, url=URL)
    headers = {"x-api-key": tenant.key, "content-type": "application/json"}
    expected = {"create chat": 201, "add message": 201, "pdp body form": 200}
    with live.client(headers=headers) as client:
        for name, (path, valid) in endpoints(tenant, chat).items():
            data = httpx.Request("POST", "/", json=valid).content
            response = client.post(path, content=chunked(data, piece=7))
            assert response.status_code == expected[name], (name, response.text)
        # exactly 64 KiB streamed is still read (and refused for its content, not its size)
        response = client.post("/v1/chats", content=chunked(padded(LIMIT)))
        assert "chatbotId" in assert_json_error(response, 422)["errors"]


def parse(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize(
    ("header", "what"),
    [
        (b"X-Api-Key: sk_stag_a\rInjected: 1", "CR inside a value"),
        (b"Idempotency-Key: a\x00b", "NUL inside a value"),
        (b"X-Api-Key: a\nb", "bare LF splitting a value"),
        (b"X-Request-Id: a\r\n folded", "obsolete line folding"),
        (b"Bad Name: x", "space in a header name"),
    ],
)
def test_control_characters_in_headers_get_a_json_400_from_gunicorn(live, tenant, header, what):
    chat = ChatFactory(chatbot=tenant.chatbot)
    request = (
        f"GET /v1/chats/{chat.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".encode()
        + header
        + b"\r\n\r\n"
    )
    status, headers, body = parse(raw_request(live, request))
    assert status == 400, what
    assert headers["content-type"] == "application/json" and len(headers["x-request-id"]) == 32
    message = httpx.Response(200, content=body).json()["message"]
    assert message.startswith("Bad Request: "), message
    # The offending value is never echoed back (only a header's name may be).
    assert "sk_stag_a" not in message and "folded" not in message


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b"zz\r\n{}\r\n0\r\n\r\n", "a chunk size that is not hexadecimal"),
        (b"2\r\n{}XX0\r\n\r\n", "a chunk without its CRLF"),
        (b'9\r\n{"a":', "a body that stops inside a chunk"),
    ],
)
def test_malformed_chunked_bodies_get_a_json_400(live, tenant, body, what):
    request = (
        b"POST /v1/chats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        + f"X-Api-Key: {tenant.key}\r\n".encode()
        + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + body
    )
    host, port = live.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)  # the client sends nothing more
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer, what
    status, headers, content = parse(answer)
    assert status == 400, what
    assert headers["content-type"] == "application/json" and len(headers["x-request-id"]) == 32
    assert content == b'{"message":"Invalid chunked request body"}'
    assert int(headers["content-length"]) == len(content)


def test_other_control_characters_pass_gunicorn_and_are_refused_by_the_api(live, tenant):
    # Gunicorn only refuses NUL, CR and LF in values; DEL and C0 controls reach Django.
    chat = ChatFactory(chatbot=tenant.chatbot)
    body = b'{"message": "hi", "currentUrl": "https://shop.example/"}'
    request = (
        f"POST /v1/chats/{chat.id}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Connection: close\r\nContent-Type: application/json\r\nx-api-key: {tenant.key}\r\n"
        f"Content-Length: {len(body)}\r\n".encode()
        + b"Idempotency-Key: a\x01b\x7f\r\n\r\n"
        + body
    )
    status, headers, answer = parse(raw_request(live, request))
    assert status == 422 and headers["content-type"] == "application/json"
    assert "Idempotency-Key" in httpx.Response(200, content=answer).json()["errors"]


def test_idempotency_key_of_10000_characters_gets_a_json_431(live, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    headers = {"x-api-key": tenant.key}
    body = {"message": "hi", "currentUrl": URL}
    path = f"/v1/chats/{chat.id}/messages"
    with live.client(headers=headers) as client:
        # Over gunicorn's 8190-byte header field limit: refused before Django, as JSON.
        huge = client.post(path, json=body, headers={"Idempotency-Key": "k" * 10_000})
        # Within it but over the documented 255 characters: our 422.
        long = client.post(path, json=body, headers={"Idempotency-Key": "k" * 300})
    assert assert_json_error(huge, 431)["message"].startswith("Request Header Fields Too Large")
    assert assert_json_error(long, 422)["message"] == KEY_TOO_LONG


def test_request_line_over_the_limit_gets_a_json_400(live):
    status, headers, body = parse(
        raw_request(live, b"GET /v1/chats/" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    )
    assert status == 400 and headers["content-type"] == "application/json"
    # gunicorn's detail quotes nothing of the line (it says which limit was hit)
    assert b"aaaa" not in body
