"""EventPublisher's buffered mode: a fast engine's events are written together, at its end."""

from __future__ import annotations

import psycopg
import pytest
from django.db import DataError, OperationalError, connection, transaction

from chats.events import EventPublisher
from chats.models import Event
from tests.factories import ChatFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("last", ["completed", "failed"])
def test_buffered_events_are_written_when_the_reply_ends(tenant, last, django_assert_num_queries):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id, buffered=True)
    published = [publisher.typing()]
    args = {"query": "tent"}
    published.append(publisher.tool_started("search_products", args))
    published.append(publisher.tool_finished("search_products", args, {"products": []}))
    published.append(publisher.chunk("Here "))
    assert not Event.objects.filter(chat=chat).exists()

    writes = 1 if connection.vendor == "postgresql" else len(published) + 3  # savepoint pair
    with django_assert_num_queries(writes):
        published.append(getattr(publisher, last)("Here they are."))

    stored = list(Event.objects.filter(chat=chat).order_by("seq"))
    assert [event.seq for event in stored] == [event.seq for event in published]
    assert [event.seq for event in stored] == sorted({event.seq for event in stored})
    assert [(e.status, e.tool_name, e.content) for e in stored] == [
        ("inProgress", "", None),
        ("inProgress", "search_products", None),
        ("completed", "search_products", None),
        ("inProgress", "", "Here "),
        ("completed" if last == "completed" else "failed", "", "Here they are."),
    ]
    assert stored[2].tool_response == {"products": []}
    assert publisher.pending == []


def test_every_field_is_stored_as_published(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id, buffered=True)
    args = {"query": 'Crème "brûlée" ☕', "filters": {"maxPrice": 9.5, "brands": []}, "n": None}
    args["big"] = 10**30  # a model may send any JSON number; JSON has no 64-bit limit
    response = {"products": [{"title": "Tab\tand\nnewline \\ 😀", "price": 12, "ok": True}]}
    published = [
        publisher.tool_started("search_products", args),
        publisher.tool_finished("search_products", args, response),
        publisher.tool_finished("empty", {}, {}),
        publisher.chunk("Zeile 1\n«zwei» 😀 "),
        publisher.completed(""),
    ]

    stored = list(Event.objects.filter(chat=chat).order_by("seq"))

    def fields(event):
        return [getattr(event, f.attname) for f in Event._meta.concrete_fields]

    assert [fields(event) for event in stored] == [fields(event) for event in published]
    assert stored[0].tool_response is None and stored[2].tool_args == {}
    assert stored[-1].content == "" and stored[0].content is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite ignores column lengths")
def test_a_value_too_long_for_its_column_is_refused_not_cut(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id, buffered=True)
    publisher.tool_started("x" * 101, {})
    with pytest.raises(DataError), transaction.atomic():
        publisher.completed("done")
    assert not Event.objects.filter(chat=chat).exists()


def test_unbuffered_events_are_written_one_by_one(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id)
    publisher.typing()
    assert Event.objects.filter(chat=chat).count() == 1
    publisher.chunk("Hi")
    assert Event.objects.filter(chat=chat).count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="holds a PostgreSQL table lock")
def test_a_buffered_reply_whose_end_cannot_be_written_ends_in_failed_only(tenant, settings):
    # The reply writes on its own connection, whose lock timeout makes the write fail: the
    # process's event writer would wait for the table lock, as for a schema change.
    settings.EVENT_GROUP_COMMIT = False
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id, buffered=True)
    publisher.typing()
    publisher.chunk("Here ")

    # Given a database that refuses the write of the reply's end (the table is locked)
    with psycopg.connect(**connection.get_connection_params(), autocommit=False) as locker:
        locker.execute("LOCK TABLE chats_event IN ACCESS EXCLUSIVE MODE")
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '50ms'")
        with pytest.raises(OperationalError):
            publisher.completed("Here they are.")
        locker.rollback()
    with connection.cursor() as cursor:
        cursor.execute("RESET lock_timeout")

    # When the reply is ended as failed once the database takes writes again
    publisher.failed("The assistant could not complete the response")

    # Then the stream's events are the reply's beginning and its failure, never `completed`
    stored = [(e.status, e.content) for e in Event.objects.filter(chat=chat).order_by("seq")]
    assert stored == [
        ("inProgress", None),
        ("inProgress", "Here "),
        ("failed", "The assistant could not complete the response"),
    ]
