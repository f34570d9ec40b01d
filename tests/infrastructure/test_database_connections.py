"""Pooled PostgreSQL connections the server closed are never lent to a request
(infrastructure/postgresql/): the next requests succeed, with no round trip spent checking."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from tests.factories import ChatFactory
from tests.server import start_server

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's connection pool"),
]


SERVER_APP = "connections-test-server"


def test_requests_after_the_server_closed_the_pools_connections_succeed(transactional_db, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    with (
        # The server's connections carry a name of their own (libpq reads PGAPPNAME): only they
        # are ended, not this test process's other connections (a browser test's, say).
        start_server(WEB_CONCURRENCY="1", PGAPPNAME=SERVER_APP) as server,
        server.client(headers={"x-api-key": tenant.key}) as client,
    ):
        # Given a worker whose pool holds several idle connections
        with ThreadPoolExecutor(8) as pool:
            warm = list(pool.map(lambda _: client.get(f"/v1/chats/{chat.id}"), range(16)))
        assert {response.status_code for response in warm} == {200}

        # When the database ends every one of them (as a restart or an idle timeout does)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = %s",
                [SERVER_APP],
            )
            assert cursor.fetchall()
        time.sleep(0.2)  # the backends are gone and their sockets closed

        # Then the next requests get fresh connections: none fails
        statuses = [client.get(f"/v1/chats/{chat.id}").status_code for _ in range(10)]
        assert statuses == [200] * 10
