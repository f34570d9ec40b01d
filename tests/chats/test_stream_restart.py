"""Open streams survive a PostgreSQL restart and miss nothing (the listener reconnects).

Disruptive: restarting PostgreSQL breaks every other test using it at that moment, so this runs
only with RUN_DISRUPTIVE=1 (CI runs it in a step of its own).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from django.db import OperationalError, connection

from chats.events import EventPublisher
from tests.chats.stream_client import StreamReader
from tests.factories import ChatFactory
from tests.server import start_server

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.disruptive,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="restarts PostgreSQL"),
]


def restart_postgresql() -> None:
    version = sorted(os.listdir("/etc/postgresql"))[-1] if Path("/etc/postgresql").exists() else ""
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
        check=True,
        timeout=120,
    )


def publish_when_back(chat, text: str, timeout: float = 60) -> int:
    """Publishes as soon as the database accepts it again (our connection died with it)."""
    deadline = time.monotonic() + timeout
    while True:
        connection.close()
        try:
            return EventPublisher(chat_id=chat.id).chunk(text).seq
        except OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_streams_carry_on_across_a_database_restart(transactional_db, tenant):
    chats = [ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot) for _ in "ab"]
    # A short keep-alive: the streams write through the outage.
    with start_server(SSE_KEEPALIVE_SECONDS="0.5") as server:
        readers = [
            StreamReader(
                f"{server.url}/v1/chats/{chat.id}/messages/events", {"x-api-key": tenant.key}
            ).start()
            for chat in chats
        ]
        try:
            before = [EventPublisher(chat_id=chat.id).chunk("before").seq for chat in chats]
            for reader, seq in zip(readers, before, strict=True):
                assert [e.id for e in reader.events(1)] == [str(seq)]

            # When PostgreSQL restarts and events are written as soon as it is back
            restart_postgresql()
            after = [[publish_when_back(chat, f"after {i}") for i in range(3)] for chat in chats]

            # Then the same open streams deliver all of them, once, and nothing else
            for reader, seqs in zip(readers, after, strict=True):
                assert [e.id for e in reader.events(3, timeout=30)] == [str(s) for s in seqs]
                assert reader.quiet_for(1.0) == []
                assert reader.error is None
        finally:
            for reader in readers:
                reader.close()
    connection.close()
