"""Operation 4: the chat history as pages (contract §4)."""

from __future__ import annotations

import pytest

from chats.models import Message
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


def test_pages_follow_the_contract_formulas(tenant, chat):
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


def test_history_query_count_does_not_grow_with_messages(tenant, chat, django_assert_num_queries):
    MessageFactory.create_batch(50, chat=chat, products=[{"gtin": "1"}], suggestions=["a"])
    tenant.client.get(f"/v1/chats/{chat.id}/messages")
    with django_assert_num_queries(3):  # key, chat, page with its total (a window count)
        page(tenant, chat, size=50)
