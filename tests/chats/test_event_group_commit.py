"""Replies publishing at once share the event writer's statements (chats/event_writer.py):
each reply's events are stored once and in order, one reply's refused row fails only that
reply, and a chat waiting for its turn holds up no other chat."""

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


def _transactions(chats) -> int:
    """How many transactions wrote these chats' events (rows of one transaction share xmin)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(DISTINCT xmin::text) FROM chats_event WHERE chat_id = ANY(%s)",
            [[chat.id for chat in chats]],
        )
        return cursor.fetchone()[0]


def test_a_chat_whose_turn_is_taken_holds_up_no_other_chat(tenant):
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    publishers = [EventPublisher(chat_id=chat.id) for chat in chats]
    outcomes: dict = {}

    # Given a chat whose events another transaction is writing (it holds the chat's turn)
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('chat-events:' || %s, 0))",
            [str(chats[0].id)],
        )
        waiting = _publish_in_thread(lambda: publishers[0].chunk("first"), outcomes, "0")
        time.sleep(0.2)
        # When the other chats' replies publish meanwhile
        others = [
            _publish_in_thread(lambda p=p: p.chunk("other"), outcomes, str(index))
            for index, p in enumerate(publishers[1:], start=1)
        ]
        for thread in others:
            thread.join(10)

        # Then theirs are written at once, while that chat's waits for its turn
        assert {name: outcomes.get(name) for name in "1234"} == dict.fromkeys("1234", "written")
        assert waiting.is_alive() and "0" not in outcomes
        locker.rollback()
    waiting.join(10)
    assert outcomes["0"] == "written"
    for chat, text in zip(chats, ["first", *["other"] * 4], strict=True):
        assert [e.content for e in Event.objects.filter(chat=chat)] == [text]


def test_a_lock_the_statement_would_wait_for_sends_its_replies_to_write_alone(tenant):
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    publishers = [EventPublisher(chat_id=chat.id) for chat in chats]
    outcomes: dict = {}

    # Given a transaction holding one chat's row (its events' foreign key check waits for it),
    # as erasing the chat does
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("SELECT 1 FROM chats_chat WHERE id = %s FOR UPDATE", [chats[0].id])
        # When that chat's reply and four others publish at once
        threads = [
            _publish_in_thread(lambda p=p: p.chunk("text"), outcomes, str(index))
            for index, p in enumerate(publishers)
        ]
        for thread in threads[1:]:
            thread.join(10)

        # Then the others are written (their shared statement skipped the locked row and wrote
        # nothing, each wrote alone), while that chat's reply waits for the row
        assert {name: outcomes.get(name) for name in "1234"} == dict.fromkeys("1234", "written")
        assert threads[0].is_alive() and "0" not in outcomes
        locker.rollback()
    threads[0].join(10)
    assert outcomes["0"] == "written"
    for chat in chats:
        assert [e.content for e in Event.objects.filter(chat=chat)] == ["text"]

    # And the writer's connection, whose statement failed, groups replies' events again
    _replies_at_once_share_statements(tenant)


def test_a_row_the_database_refuses_fails_only_its_own_reply(tenant):
    for _ in range(5):
        chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(6)]
        publishers = [EventPublisher(chat_id=chat.id, buffered=True) for chat in chats]
        for index, publisher in enumerate(publishers):
            publisher.typing()
            # A tool name longer than its column: the database refuses the row.
            publisher.tool_started("x" * 101 if index == 3 else "search_products", {"q": index})
        start = threading.Barrier(len(chats))

        def end(publisher, start=start):
            start.wait()
            publisher.completed("Done.")

        outcomes: dict = {}
        threads = [
            _publish_in_thread(lambda p=p: end(p), outcomes, str(index))
            for index, p in enumerate(publishers)
        ]
        for thread in threads:
            thread.join(30)

        assert isinstance(outcomes.pop("3"), DataError)
        assert outcomes == {name: "written" for name in "01245"}
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
    _replies_at_once_share_statements(tenant)


def _replies_at_once_share_statements(tenant) -> None:
    """12 replies of 42 writes each, at once: each is stored whole and in order, in fewer
    transactions than writes."""
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

    assert outcomes == dict.fromkeys((str(chat.id) for chat in chats), "written")
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


def _writer_sessions() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE application_name = 'event-writer' AND datname = current_database()"
        )
        return [row[0] for row in cursor.fetchall()]


def test_the_writer_takes_a_new_connection_when_the_server_ended_its_own(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id)
    publisher.chunk("one ")
    [first] = _writer_sessions()

    # Given the server ended the writer's connection between two writes
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [first])
    deadline = time.monotonic() + 10
    while _writer_sessions() and time.monotonic() < deadline:
        time.sleep(0.02)

    # When the reply goes on
    publisher.chunk("two")
    publisher.completed("one two")

    # Then nothing is lost, and the writer writes on a connection of its own again
    assert [e.content for e in Event.objects.filter(chat=chat)] == ["one ", "two", "one two"]
    assert [pid for pid in _writer_sessions() if pid != first]


def test_replies_streaming_apart_share_statements_after_one_they_shared(tenant, settings):
    # Given the writer's delay, and four replies that write their tokens at paces of their own,
    # their first ones at once
    settings.EVENT_COMMIT_DELAY_MS = 50
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(4)]
    start = threading.Barrier(len(chats))
    outcomes: dict = {}

    def reply(chat, pace):
        publisher = EventPublisher(chat_id=chat.id)
        start.wait()
        for n in range(6):
            publisher.chunk(f"{n} ")
            time.sleep(pace)

    threads = [
        _publish_in_thread(lambda c=chat, p=pace: reply(c, p), outcomes, str(chat.id))
        for chat, pace in zip(chats, (0.007, 0.011, 0.013, 0.017), strict=True)
    ]
    for thread in threads:
        thread.join(30)

    # Then each reply is stored whole and in order, and their 24 tokens took a handful of
    # statements (without the delay, nearly each token took one: 20-21 here)
    assert outcomes == dict.fromkeys((str(chat.id) for chat in chats), "written")
    for chat in chats:
        stored = Event.objects.filter(chat=chat).order_by("seq")
        assert [e.content for e in stored] == [f"{n} " for n in range(6)]
    assert _transactions(chats) <= 10


def test_a_reply_writing_alone_is_not_held_back(tenant, settings):
    # Given a long delay
    settings.EVENT_COMMIT_DELAY_MS = 100
    publisher = EventPublisher(chat_id=ChatFactory(chatbot=tenant.chatbot).id)
    publisher.chunk("warm ")  # a statement others shared before holds this one back, once
    started = time.monotonic()

    # When a reply writes ten tokens alone, one after the other
    for n in range(10):
        publisher.chunk(f"{n} ")

    # Then none waited for the delay (had each waited: 1 s at least)
    assert time.monotonic() - started < 0.5


def _timed_writes(publishers, text: str) -> list[float]:
    """Each publisher writes `text` at the same moment; how long each write took."""
    start = threading.Barrier(len(publishers))
    took: list[float] = [0.0] * len(publishers)

    def write(index: int, publisher) -> None:
        start.wait()
        began = time.monotonic()
        publisher.chunk(text)
        took[index] = time.monotonic() - began
        connection.close()

    threads = [
        threading.Thread(target=write, args=(index, publisher))
        for index, publisher in enumerate(publishers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return took


def test_a_shared_statement_that_wrote_nothing_holds_nothing_back(tenant, settings):
    settings.EVENT_COMMIT_DELAY_MS = 400
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(3)]
    a, b, c = (EventPublisher(chat_id=chat.id) for chat in chats)

    # Given a statement two replies shared: their writes at once, until one pair of them was
    # held back (so the statement before it was shared, and this one gathered both)
    for _ in range(10):
        if min(_timed_writes([a, b], "warm ")) >= 0.2:
            break
    else:
        pytest.fail("no statement was held back after a shared one")

    # When the next one, shared by two replies at once, writes nothing (one chat's row is
    # locked, as erasing it does) and each reply then writes its own
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("SELECT 1 FROM chats_chat WHERE id = %s FOR UPDATE", [chats[2].id])
        outcomes: dict = {}
        locked = _publish_in_thread(lambda: c.chunk("locked"), outcomes, "c")
        took = _timed_writes([a], "shared")[0]
        locker.rollback()
    locked.join(10)
    assert outcomes == {"c": "written"}
    assert took >= 0.2  # it was held back, so it shared the statement with the locked chat

    # Then a reply writing alone right after is not held back
    began = time.monotonic()
    b.chunk("alone")
    assert time.monotonic() - began < 0.15
