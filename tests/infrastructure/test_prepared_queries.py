"""Prepared queries (infrastructure/prepared.py) return what their queryset returns."""

from __future__ import annotations

import pytest
from django.db.models import Count, TextField, Window
from django.db.models.functions import Cast, Upper

from chats.models import Chat, Message
from infrastructure.prepared import CompiledQueries, PreparedQuery
from tests.factories import ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db


def column_values(instance) -> list:
    return [getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields]


def test_rows_become_the_same_model_instances_as_the_orm_makes(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory.create_batch(3, chat=chat, products=[{"gtin": "1", "price": 9.5}])
    by_chat = PreparedQuery(
        lambda chat_id: Message.objects.filter(chat_id=chat_id).order_by("seq"),
        chat_id=Message._meta.get_field("chat"),
    )

    prepared = by_chat.fetch(chat_id=chat.pk)

    expected = list(Message.objects.filter(chat=chat).order_by("seq"))
    assert [column_values(m) for m in prepared] == [column_values(m) for m in expected]
    assert prepared[0].products == [{"gtin": "1", "price": 9.5}]  # JSON decoded
    assert prepared[0].created_at.tzinfo is not None  # aware, as the ORM gives it


def test_parameters_annotations_and_paging(tenant, other_tenant):
    mine = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory.create_batch(5, chat=mine)
    MessageFactory.create_batch(2, chat=ChatFactory(chatbot=other_tenant.chatbot))
    page = PreparedQuery(
        lambda chat_id: (
            Message.objects.filter(chat_id=chat_id)
            .annotate(total=Window(Count("pk")))
            .order_by("seq")
        ),
        chat_id=Message._meta.get_field("chat"),
    )

    second = page.fetch(chat_id=mine.pk, limit=2, offset=2)

    seqs = list(Message.objects.filter(chat=mine).order_by("seq").values_list("seq", flat=True))
    assert [m.seq for m in second] == seqs[2:4]
    assert {m.total for m in second} == {5}
    assert page.fetch(chat_id=mine.pk, limit=2, offset=10) == []


def test_two_parameters_of_one_type_keep_their_places(tenant, other_tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    lookup = PreparedQuery(
        lambda chat_id, organization_id: Chat.objects.filter(
            pk=chat_id, organization_id=organization_id
        ),
        chat_id=Chat._meta.pk,
        organization_id=Chat._meta.get_field("organization"),
    )
    assert lookup.fetch(chat_id=chat.pk, organization_id=tenant.organization.pk) == [chat]
    assert lookup.fetch(chat_id=chat.pk, organization_id=other_tenant.organization.pk) == []


def test_values_list_rows_are_the_tuples_the_orm_makes(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory.create_batch(3, chat=chat, products=[{"gtin": "1", "price": 9.5}])
    MessageFactory(chat=chat, suggestions=["a"])

    def build(chat_id):
        return (
            Message.objects.filter(chat_id=chat_id)
            .order_by("seq")
            .values_list("uuid", Upper("type"), "products", Cast("suggestions", TextField()))
        )

    rows = PreparedQuery(build, chat_id=Message._meta.get_field("chat")).fetch(
        chat_id=chat.pk, limit=3, offset=1
    )

    assert rows == list(build(chat.pk)[1:4])  # converters too: UUIDs, decoded JSON
    assert rows[0][2] == [{"gtin": "1", "price": 9.5}] and rows[-1][3] == '["a"]'


@pytest.mark.parametrize(
    "build",
    [
        lambda chat_id: Message.objects.filter(chat_id=chat_id).values("uuid"),
        lambda chat_id: Message.objects.filter(chat_id=chat_id).values_list("uuid", flat=True),
        lambda chat_id: Message.objects.filter(chat_id=chat_id).values_list("uuid", named=True),
        lambda chat_id: Message.objects.filter(chat_id=chat_id).select_related("chat"),
        lambda chat_id: Message.objects.filter(chat_id=chat_id)[:5],
        lambda chat_id: Message.objects.all(),  # the parameter is not in the query
    ],
)
def test_unsupported_querysets_fail_loudly(tenant, build):
    query = PreparedQuery(build, chat_id=Message._meta.get_field("chat"))
    with pytest.raises(ValueError):
        query.fetch(chat_id=ChatFactory(chatbot=tenant.chatbot).pk)


def test_a_compiled_query_is_kept_per_key_and_reads_the_rows_anew(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory.create_batch(2, chat=chat)
    queries = CompiledQueries(Message, max_entries=2)
    built = []

    def build(chat_id, kind):
        built.append((chat_id, kind))
        return Message.objects.filter(chat_id=chat_id, type=kind).order_by("seq")[:10]

    def fetch(kind):
        return queries.fetch((chat.pk, kind), lambda: build(chat.pk, kind))

    first = fetch("user")
    MessageFactory(chat=chat, type="user")
    again = fetch("user")

    expected = list(build(chat.pk, "user"))
    assert [column_values(m) for m in again] == [column_values(m) for m in expected]
    assert len(again) == len(first) + 1  # the new row is there: only the SQL was kept
    assert built.count((chat.pk, "user")) == 2  # built once by `fetch`, once above
    fetch("answer")
    fetch("user")  # used last: kept
    fetch("greeting")  # a third key: the least recently used one ("answer") goes
    fetch("user")
    fetch("answer")
    assert built.count((chat.pk, "answer")) == 2 and built.count((chat.pk, "user")) == 2


def test_a_compiled_query_may_be_sliced_but_must_be_plain(tenant):
    queries = CompiledQueries(Message, max_entries=10)
    chat = ChatFactory(chatbot=tenant.chatbot)
    with pytest.raises(ValueError):
        queries.fetch("related", lambda: Message.objects.select_related("chat"))
    assert queries.fetch("page", lambda: Message.objects.filter(chat=chat)[:5]) == []
