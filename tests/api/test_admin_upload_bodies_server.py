"""Large bodies against the real server: only the admin's catalog import form, from a request
with a session, may send more than 64 KiB, and within ADMIN_MAX_UPLOAD_SECONDS whatever its pace."""

from __future__ import annotations

import re
import socket
import time

import orjson
import pytest
from django.contrib.auth import get_user_model

from knowledge.models import ImportRun
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item, tsv
from tests.server import LiveServer, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

IMPORT_PATH = "/admin/knowledge/importrun/add/"
BODY_TIMEOUT = 1
UPLOAD_SECONDS = 3
_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def answer_to(live: LiveServer, head: str, *, pieces: int = 0, every: float = 0.0) -> bytes:
    """Sends a request head declaring 1 MiB, then `pieces` of 64 KiB `every` seconds apart;
    returns everything the server answers."""
    host, port = live.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            f"{head}\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {1024 * 1024}\r\n\r\n".encode()
        )
        try:
            for _ in range(pieces):
                sock.sendall(b"x" * 65536)
                time.sleep(every)
        except OSError:
            pass  # the server answered and closed the connection first
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "head",
    [
        "POST /admin/login/ HTTP/1.1",
        f"POST {IMPORT_PATH} HTTP/1.1",  # the import form, but no session
        "POST /admin/knowledge/product/add/ HTTP/1.1\r\nCookie: sessionid=anything",
    ],
    ids=["sign-in", "import-without-session", "other-admin-form"],
)
def test_a_large_body_anywhere_but_the_signed_in_import_form_is_413_unread(head):
    with start_server(REQUEST_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT)) as live:
        # When a client declares a 1 MiB body there and sends none of it
        started = time.monotonic()
        answer = answer_to(live, head)
        seconds = time.monotonic() - started

    # Then it is refused at once, not waited for
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 413 "), status
    assert orjson.loads(body)["message"]
    assert seconds < BODY_TIMEOUT


def test_an_upload_must_arrive_within_the_upload_time_however_steadily_it_comes():
    with start_server(
        REQUEST_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT), ADMIN_MAX_UPLOAD_SECONDS=str(UPLOAD_SECONDS)
    ) as live:
        # When a request with a session sends an upload at 64 KiB per 0.5 s (within the pace
        # of REQUEST_BODY_TIMEOUT_SECONDS per 64 KiB), which would take 8 s in all
        started = time.monotonic()
        answer = answer_to(
            live, f"POST {IMPORT_PATH} HTTP/1.1\r\nCookie: sessionid=x", pieces=16, every=0.5
        )
        seconds = time.monotonic() - started

    # Then it is 408 once ADMIN_MAX_UPLOAD_SECONDS have passed
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 408 "), status
    assert orjson.loads(body) == {
        "message": f"The request body did not arrive within {UPLOAD_SECONDS} s"
    }
    assert UPLOAD_SECONDS - 0.5 < seconds < UPLOAD_SECONDS + 3


def test_a_signed_in_operator_still_uploads_a_large_feed():
    get_user_model().objects.create_superuser("boss", "boss@example.com", "a-long-password-1")
    shop = OrganizationFactory(name="Large Feed Shop")
    feed = tsv([item(n, description="A fine product. " * 40) for n in range(1, 201)])
    assert len(feed.encode()) > 64 * 1024
    with start_server() as live, live.client() as client:
        # Given an operator signed in through the console
        page = client.get("/admin/login/")
        signed_in = client.post(
            "/admin/login/?next=/admin/",
            data={
                "csrfmiddlewaretoken": _TOKEN.search(page.text).group(1),
                "username": "boss",
                "password": "a-long-password-1",
                "next": "/admin/",
            },
        )
        assert signed_in.status_code == 302, signed_in.text
        # When the operator uploads a feed larger than 64 KiB
        form = client.get(IMPORT_PATH)
        response = client.post(
            IMPORT_PATH,
            data={
                "csrfmiddlewaretoken": _TOKEN.search(form.text).group(1),
                "organization": str(shop.pk),
            },
            files={"feed": ("products.tsv", feed.encode(), "text/tab-separated-values")},
        )

    # Then it is imported
    assert response.status_code == 302, response.text[:500]
    assert ImportRun.objects.get().organization == shop
