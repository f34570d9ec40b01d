"""Messages take turns on the real server (docs/scaling.md#messages-take-turns): a message held
up in its turn keeps the others out for the lease at most, and one organization's held-up
messages cost another organization one lease, not one each.

One gevent worker, one turn, a lease of a second; an organization's messages are held up
by a transaction of the test that locks their chat's row, as an erasure of that chat does.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import connection

from accounts.services import api_key_issue
from tests.factories import ChatbotFactory, ChatFactory, OrganizationFactory
from tests.server import LiveServer, start_server

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        "connection.vendor != 'postgresql'", reason="PostgreSQL: the test holds a row lock"
    ),
]
LEASE = 1.0
HOME = "https://shop.example/"


def organization_chat() -> tuple[str, str]:
    """A new organization's key and one of its chats."""
    organization = OrganizationFactory()
    chat = ChatFactory(organization=organization, chatbot=ChatbotFactory(organization=organization))
    return api_key_issue(organization=organization).key, str(chat.id)


def say(server: LiveServer, key: str, chat_id: str, results: list) -> threading.Thread:
    """Posts a message in a thread of its own; its status and seconds go to `results`."""

    def post() -> None:
        started = time.perf_counter()
        with server.client(headers={"x-api-key": key}) as http:
            response = http.post(
                f"/v1/chats/{chat_id}/messages", json={"message": "hello", "currentUrl": HOME}
            )
        results.append((response.status_code, time.perf_counter() - started))

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def blocked_queries(count: int) -> None:
    """Waits until `count` queries of the server wait on a lock."""
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND datname = current_database()"
            )
            if cursor.fetchone()[0] >= count:
                return
            time.sleep(0.01)
    raise AssertionError(f"fewer than {count} messages waited on the lock")


@pytest.fixture
def server():
    with start_server(MESSAGE_TURNS="1", MESSAGE_TURN_LEASE_MS=str(int(LEASE * 1000))) as server:
        yield server


def test_a_message_held_up_in_its_turn_keeps_another_organization_out_for_the_lease_only(
    server,
):
    held_key, held_chat = organization_chat()
    other_key, other_chat = organization_chat()
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("SELECT 1 FROM chats_chat WHERE id = %s FOR UPDATE", [held_chat])
        # Given a message that has the worker's one turn and waits on its chat's lock
        held: list = []
        holding = say(server, held_key, held_chat, held)
        blocked_queries(1)

        # When another organization's message comes
        other: list = []
        say(server, other_key, other_chat, other).join(timeout=10)

        # Then it waits for the turn, and gets it when the lease is over, while the first
        # message still waits on the lock
        [(status, seconds)] = other
        assert status == 201
        assert LEASE * 0.5 <= seconds < LEASE + 1.0
        assert holding.is_alive()
        locker.rollback()
    holding.join(timeout=10)
    assert [status for status, _ in held] == [201]


def test_a_burst_of_held_up_messages_does_not_go_before_another_organizations_line(server):
    held_key, held_chat = organization_chat()
    other_key, other_chat = organization_chat()
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("SELECT 1 FROM chats_chat WHERE id = %s FOR UPDATE", [held_chat])
        # Given one organization's six messages, the first in its turn waiting on its chat's
        # lock and the others in line
        held: list = []
        burst = [say(server, held_key, held_chat, held)]
        blocked_queries(1)
        burst += [say(server, held_key, held_chat, held) for _ in range(5)]
        time.sleep(0.3)

        # When another organization's message comes
        other: list = []
        say(server, other_key, other_chat, other).join(timeout=20)

        # Then it goes in when the first one's lease is over: the others wait for that one to
        # end (one line for all took six leases, lines served in turn without that wait two)
        [(status, seconds)] = other
        assert status == 201
        assert seconds < LEASE + 0.4
        assert sum(thread.is_alive() for thread in burst) == 6
        locker.rollback()
    for thread in burst:
        thread.join(timeout=20)
    assert [status for status, _ in held] == [201] * 6
