"""Operation 4: the chat history as pages (docs/api.md#paging)."""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from chats.models import Message
from chats.serializers import MessageOutput
from tests.factories import ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(tenant):
    return ChatFactory(chatbot=tenant.chatbot)


def page(tenant, chat, **params):
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_empty_chat_has_one_empty_page(tenant, chat):
    assert page(tenant, chat) == {
        "items": [],
        "totalItems": 0,
        "size": 20,
        "totalPages": 1,
        "currentPage": 1,
        "hasPrevPage": False,
        "hasNextPage": False,
        "prevPage": None,
        "nextPage": None,
    }


def test_pages_follow_the_documented_formulas(tenant, chat):
    MessageFactory.create_batch(45, chat=chat)

    first, middle, last = (page(tenant, chat, page=n) for n in (1, 2, 3))

    assert (first["totalItems"], first["totalPages"], first["size"]) == (45, 3, 20)
    assert (first["hasPrevPage"], first["prevPage"], first["hasNextPage"], first["nextPage"]) == (
        False,
        None,
        True,
        2,
    )
    assert (middle["prevPage"], middle["nextPage"], middle["currentPage"]) == (1, 3, 2)
    assert (last["hasNextPage"], last["nextPage"], len(last["items"])) == (False, None, 5)


def test_items_are_in_conversation_order_even_with_equal_timestamps(tenant, chat):
    messages = MessageFactory.create_batch(5, chat=chat)
    Message.objects.filter(chat=chat).update(created_at=messages[0].created_at)

    ids = [item["id"] for item in page(tenant, chat)["items"]]

    assert ids == [str(m.uuid) for m in messages]


@pytest.mark.parametrize("size", [1, 100])
def test_size_bounds(tenant, chat, size):
    MessageFactory.create_batch(101, chat=chat)
    body = page(tenant, chat, size=size)
    assert len(body["items"]) == size and body["size"] == size
    assert body["totalPages"] == -(-101 // size)


def test_page_past_the_end_is_empty(tenant, chat):
    MessageFactory.create_batch(3, chat=chat)
    body = page(tenant, chat, page=7)
    assert body["items"] == [] and body["currentPage"] == 7
    assert body["hasPrevPage"] is True and body["prevPage"] == 6
    assert body["hasNextPage"] is False and body["nextPage"] is None


@pytest.mark.parametrize(
    "params",
    [
        {"page": 0},
        {"page": -1},
        {"page": "x"},
        {"page": "1.5"},
        {"page": ""},
        {"size": 0},
        {"size": 101},
        {"size": "abc"},
        {"page": "99999999999999999999999"},
        {"size": "1e3"},
    ],
)
def test_bad_paging_values_are_422(tenant, chat, params):
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages", params)
    assert response.status_code == 422
    assert set(response.json()) == {"message", "errors"}


def test_message_shape_shows_optional_parts_only_when_present(tenant, chat):
    MessageFactory(chat=chat, type="user", content="hi")
    MessageFactory(
        chat=chat,
        type="answer",
        content="Look at these",
        suggestions=["Cheaper ones?"],
        products=[
            {
                "gtin": "1",
                "brand": "",
                "designation": "X",
                "url": "https://s.example/x",
                "image": "https://s.example/x.jpg",
                "price": 9.5,
                "currency": "EUR",
            }
        ],
    )
    user, answer = page(tenant, chat)["items"]
    assert set(user) == {"id", "chatId", "type", "content", "createdAt"}
    assert answer["suggestions"] == ["Cheaper ones?"]
    assert answer["products"][0]["price"] == 9.5
    assert answer["chatId"] == str(chat.id) and answer["createdAt"].endswith("Z")


@pytest.fixture
def uncached(settings):
    """History read from the database even with REDIS_URL (chats/history_cache.py)."""
    settings.HISTORY_CACHE_SECONDS = 0


@pytest.mark.usefixtures("uncached")
def test_history_query_count_does_not_grow_with_messages(tenant, chat, django_assert_num_queries):
    MessageFactory.create_batch(50, chat=chat, products=[{"gtin": "1"}], suggestions=["a"])
    tenant.client.get(f"/v1/chats/{chat.id}/messages")
    with django_assert_num_queries(3):  # key, chat, page with its total (a subquery)
        page(tenant, chat, size=50)


@pytest.mark.usefixtures("uncached")
@pytest.mark.parametrize(
    ("messages", "params", "queries"),
    [
        (45, {}, 3),
        (45, {"page": 3}, 3),
        (0, {}, 3),  # an empty first page: no message to count
        (45, {"page": 9}, 4),  # past the end: no row carries the total, so it counts
        (0, {"page": 2}, 4),
    ],
)
def test_only_a_page_past_the_end_counts_separately(
    tenant, chat, django_assert_num_queries, messages, params, queries
):
    MessageFactory.create_batch(messages, chat=chat)
    tenant.client.get(f"/v1/chats/{chat.id}/messages")
    with django_assert_num_queries(queries):  # key, chat, page (and count)
        assert page(tenant, chat, **params)["totalItems"] == messages


@pytest.mark.parametrize(
    ("messages", "params", "expected"),
    [
        (20, {}, (20, 1, False)),
        (21, {}, (21, 2, True)),
        (40, {"page": 2}, (40, 2, False)),
        (41, {"page": 2}, (41, 3, True)),
        (41, {"page": 3}, (41, 3, False)),
        (3, {"page": 2}, (3, 1, False)),
        (0, {"page": 2}, (0, 1, False)),
    ],
)
def test_totals_at_page_boundaries(tenant, chat, other_tenant, messages, params, expected):
    MessageFactory.create_batch(messages, chat=chat)
    MessageFactory.create_batch(5, chat=ChatFactory(chatbot=tenant.chatbot))  # not counted
    MessageFactory.create_batch(5, chat=ChatFactory(chatbot=other_tenant.chatbot))
    body = page(tenant, chat, **params)
    assert (body["totalItems"], body["totalPages"], body["hasNextPage"]) == expected
    first = (params.get("page", 1) - 1) * 20
    assert len(body["items"]) == max(0, min(20, messages - first))


PRODUCT = {
    "gtin": "4000000000303",
    "brand": "Nordwave",
    "designation": 'Casque "ANC" à réduction de bruit \u2013 40 h 🎧',
    "url": "https://s.example/p?a=1&b=\u00e9",
    "image": "https://s.example/p.jpg",
    "price": 199.0,
    "currency": "EUR",
    "priceInfo": "20 % off\nwas €249.00\t(ends\u2028soon) \\ </script>",
    "location": [{"key": "aisle", "value": "7"}],
    "availability": {"status": "in_stock", "quantity": 0},
    "flags": [{"type": "sale", "title": "20% off", "text": "日本語 \u0001"}],
    "recommendationText": "",
    "extra": {"nested": [1, 2.5, -0.0, 1e-07, 12345678901234, True, False, None]},
}


def as_before(message: Message) -> bytes:
    """The item as MessageOutput writes it from the model instance (the shape before rows were read as text)."""
    return orjson.dumps(MessageOutput(message).data)


def test_items_are_the_message_output_of_each_message(tenant, chat):
    MessageFactory(chat=chat, type="assistant", content="Hello ✨")
    MessageFactory(chat=chat, type="user", content='a "quote", a \\ and\nlines 😀')
    MessageFactory(
        chat=chat,
        type="answer",
        content="Look",
        suggestions=["Cheaper ones?", "Compare «the» first two"],
        products=[PRODUCT, {**PRODUCT, "gtin": "2", "price": 9}],
    )

    items = orjson.loads(tenant.client.get(f"/v1/chats/{chat.id}/messages").content)["items"]

    messages = Message.objects.filter(chat=chat).order_by("seq")
    assert [orjson.dumps(item) for item in items] == [as_before(m) for m in messages]


def test_products_round_trip_exactly(tenant, chat):
    MessageFactory(chat=chat, type="answer", content="x", products=[PRODUCT])

    (item,) = page(tenant, chat)["items"]

    # Values and types as given (199.0 stays a float, 0 an int); key order is the database's.
    assert item["products"] == [PRODUCT]
    assert isinstance(item["products"][0]["price"], float)
    assert isinstance(item["products"][0]["availability"]["quantity"], int)


@pytest.mark.parametrize(
    ("suggestions", "products", "shown"),
    [
        (None, None, set()),
        ([], [], set()),
        ([""], None, {"suggestions"}),
        (["a"], [{}], {"suggestions", "products"}),
        (None, [{"gtin": "1"}], {"products"}),
        (["Compare the first two"], [], {"suggestions"}),
    ],
)
def test_empty_snapshots_are_left_out(tenant, chat, suggestions, products, shown):
    message = MessageFactory(chat=chat, type="answer", suggestions=suggestions, products=products)

    (item,) = page(tenant, chat)["items"]

    assert set(item) - {"id", "chatId", "type", "content", "createdAt", "feedback"} == shown
    assert orjson.dumps(item) == as_before(Message.objects.get(pk=message.pk))


@pytest.mark.parametrize("microsecond", [0, 5000, 999999])
def test_ids_and_timestamps_are_written_as_message_output_writes_them(tenant, chat, microsecond):
    created = dt.datetime(2025, 1, 31, 9, 5, 7, microsecond, tzinfo=dt.UTC)
    message = MessageFactory(chat=chat, created_at=created)

    (item,) = page(tenant, chat)["items"]

    fraction = f".{microsecond:06d}" if microsecond else ""
    assert item["createdAt"] == f"2025-01-31T09:05:07{fraction}Z"
    assert item["id"] == str(message.uuid) and item["chatId"] == str(chat.id)
