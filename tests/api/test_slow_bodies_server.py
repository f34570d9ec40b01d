"""Slow request bodies against the real server: read within REQUEST_BODY_TIMEOUT_SECONDS,
before any database connection is taken, so they cost another organization nothing."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import orjson
import pytest

from tests.conftest import make_tenant
from tests.factories import ChatFactory
from tests.server import LiveServer, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BODY_TIMEOUT = 3
SLOW_CLIENTS = 8  # more than the pool's connections


@contextmanager
def slow_body(
    live: LiveServer, path: str, key: str, *, length: int = 60_000
) -> Iterator[socket.socket]:
    """A POST that declares `length` bytes and sends only the first few."""
    host, port = live.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=15) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode()
            + b'{"message": "'
        )
        yield sock


def answer_of(sock: socket.socket) -> bytes:
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def test_slow_bodies_of_one_organization_leave_the_others_requests_fast():
    slow, other = make_tenant(), make_tenant()
    chat = ChatFactory(chatbot=slow.chatbot)
    with ExitStack() as stack:
        live = stack.enter_context(
            start_server(
                REQUEST_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT),
                DB_POOL_MAX_SIZE="3",
                DB_POOL_TIMEOUT="2",
            )
        )
        # Given connections of one organization each stuck in the middle of its body
        sockets = [
            stack.enter_context(slow_body(live, f"/v1/chats/{chat.id}/messages", slow.key))
            for _ in range(SLOW_CLIENTS)
        ]
        time.sleep(0.5)
        started = time.monotonic()
        # When another organization creates chats meanwhile
        with live.client(headers={"x-api-key": other.key}) as client:
            answers = []
            while time.monotonic() - started < BODY_TIMEOUT - 1:
                sent = time.monotonic()
                response = client.post("/v1/chats", json={"chatbotId": str(other.chatbot.id)})
                answers.append((response.status_code, time.monotonic() - sent))
        # Then each is created at once (it waited 2 s for a pool connection, then 503)
        assert answers and {status for status, _ in answers} == {201}, answers
        assert max(seconds for _, seconds in answers) < 1.5, answers
        # and each slow body is refused with 408 once its time is up, the connection closed
        for sock in sockets:
            head, _, body = answer_of(sock).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408 "), head
            assert b"Content-Type: application/json" in head
            assert orjson.loads(body) == {
                "message": f"The request body did not arrive within {BODY_TIMEOUT} s"
            }
        assert time.monotonic() - started < BODY_TIMEOUT + 3


def test_a_body_that_arrives_in_time_is_answered_however_slowly_it_came():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    body = orjson.dumps({"message": "hi", "currentUrl": "https://shop.example/"})
    with start_server(REQUEST_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT)) as live:
        host, port = live.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=15) as sock:
            sock.sendall(
                f"POST /v1/chats/{chat.id}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"X-Api-Key: {tenant.key}\r\nContent-Type: application/json\r\n"
                f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            )
            for start in range(0, len(body), 10):
                sock.sendall(body[start : start + 10])
                time.sleep(0.2)
            assert answer_of(sock).startswith(b"HTTP/1.1 201 ")
        # and requests without a body never wait for one
        with live.client(headers={"x-api-key": tenant.key}) as client:
            sent = time.monotonic()
            assert client.get(f"/v1/chats/{chat.id}").status_code == 200
            assert time.monotonic() - sent < 1


def test_a_chunked_body_that_stalls_is_408():
    tenant = make_tenant()
    with start_server(REQUEST_BODY_TIMEOUT_SECONDS="1") as live:
        host, port = live.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=15) as sock:
            sock.sendall(
                f"POST /v1/chats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {tenant.key}\r\n"
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                '5\r\n{"cha\r\n'.encode()
            )
            head, _, body = answer_of(sock).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert orjson.loads(body) == {"message": "The request body did not arrive within 1 s"}
