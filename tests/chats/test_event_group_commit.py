"""Replies publishing at once share event statements (chats/event_writer.py): each reply's
events are stored once and in order, and one reply's refused row fails only that reply."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import DataError, connection

from chats.events import EventPublisher
from chats.models import Event
from tests.factories import ChatFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="statements are PostgreSQL's"),
]


def _publish_in_thread(publish, outcomes: dict, name: str) -> threading.Thread:
    def run() -> None:
        try:
            publish()
            outcomes[name] = "written"
        except Exception as exc:
            outcomes[name] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _waiting_for_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def _while_the_table_is_locked(publishers: list, publish) -> dict:
    """Runs the first reply's write while the events table is locked, so that the others'
    writes wait behind its statement; then lets them all through."""
    outcomes: dict = {}
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("LOCK TABLE chats_event IN ACCESS EXCLUSIVE MODE")
        first = _publish_in_thread(lambda: publish(publishers[0]), outcomes, "0")
        deadline = time.monotonic() + 10
        while _waiting_for_lock() < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        others = [
            _publish_in_thread(lambda p=p: publish(p), outcomes, str(index))
            for index, p in enumerate(publishers[1:], start=1)
        ]
        time.sleep(0.5)  # every other reply is waiting for the statement now running
        locker.rollback()
    for thread in [first, *others]:
        thread.join(30)
    return outcomes


def _transactions(chats) -> int:
    """How many transactions wrote these chats' events (rows of one transaction share xmin)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(DISTINCT xmin::text) FROM chats_event WHERE chat_id = ANY(%s)",
            [[chat.id for chat in chats]],
        )
        return cursor.fetchone()[0]


def test_replies_waiting_for_a_statement_share_the_next_one(tenant):
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(8)]
    publishers = [EventPublisher(chat_id=chat.id) for chat in chats]
    for publisher in publishers:
        publisher.typing()
    before = _transactions(chats)

    def publish(publisher):
        publisher.chunk(f"Hello from {publisher.chat_id}. ")

    outcomes = _while_the_table_is_locked(publishers, publish)

    assert set(outcomes.values()) == {"written"}
    # The first reply's statement, then one for the seven that waited behind it.
    assert _transactions(chats) - before == 2
    for chat in chats:
        stored = [(e.status, e.content) for e in Event.objects.filter(chat=chat).order_by("seq")]
        assert stored == [("inProgress", None), ("inProgress", f"Hello from {chat.id}. ")]


def test_a_row_the_database_refuses_fails_only_its_own_reply(tenant):
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    publishers = [EventPublisher(chat_id=chat.id, buffered=True) for chat in chats]
    for index, publisher in enumerate(publishers):
        publisher.typing()
        # A tool name longer than its column: the database refuses the row.
        publisher.tool_started("x" * 101 if index == 3 else "search_products", {"q": index})

    outcomes = _while_the_table_is_locked(publishers, lambda p: p.completed("Done."))

    assert isinstance(outcomes.pop("3"), DataError)
    assert set(outcomes.values()) == {"written"}
    assert not Event.objects.filter(chat=chats[3]).exists()
    assert publishers[3].pending  # still the reply's to end as failed
    for index, chat in enumerate(chats):
        if index == 3:
            continue
        stored = [
            (e.status, e.tool_name, e.content)
            for e in Event.objects.filter(chat=chat).order_by("seq")
        ]
        assert stored == [
            ("inProgress", "", None),
            ("inProgress", "search_products", None),
            ("completed", "", "Done."),
        ]


def test_many_replies_at_once_keep_each_reply_whole_and_in_order(tenant):
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(12)]
    start = threading.Barrier(len(chats))
    outcomes: dict = {}

    def reply(chat):
        publisher = EventPublisher(chat_id=chat.id)
        start.wait()
        publisher.typing()
        for n in range(40):
            publisher.chunk(f"{n} ")
        publisher.completed("".join(f"{n} " for n in range(40)))

    threads = [
        _publish_in_thread(lambda chat=chat: reply(chat), outcomes, str(chat.id)) for chat in chats
    ]
    for thread in threads:
        thread.join(60)

    assert set(outcomes.values()) == {"written"}
    for chat in chats:
        stored = list(Event.objects.filter(chat=chat).order_by("seq"))
        assert [e.content for e in stored] == [
            None,
            *(f"{n} " for n in range(40)),
            stored[-1].content,
        ]
        assert stored[-1].content == "".join(f"{n} " for n in range(40))
    # Fewer transactions than writes: replies that published together shared statements.
    assert _transactions(chats) < len(chats) * 42
