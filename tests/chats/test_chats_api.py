"""Operations 1 and 2: create and get a chat (docs/api.md#create-a-chat)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from accounts.models import DailyUsage
from chats.models import Chat, Message
from chats.selectors import CHAT_NOT_FOUND
from chats.services import CHATBOT_NOT_FOUND, WHITESPACE
from tests.factories import ChatbotFactory, ChatFactory

pytestmark = pytest.mark.django_db


def test_create_chat_returns_201_with_location_and_generated_user(tenant):
    response = tenant.client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "chatbotId", "userId", "organizationId", "createdAt"}
    assert body["chatbotId"] == str(tenant.chatbot.id)
    assert body["organizationId"] == str(tenant.organization.id)
    assert uuid.UUID(body["userId"]).version == 4
    assert body["createdAt"].endswith("Z")
    assert response["Location"] == f"/v1/chats/{body['id']}"


def test_create_chat_keeps_given_user_id(tenant):
    user_id = str(uuid.uuid4())
    response = tenant.client.post(
        "/v1/chats", {"chatbotId": str(tenant.chatbot.id), "userId": user_id}, format="json"
    )
    assert response.json()["userId"] == user_id


def test_null_user_id_counts_as_absent(tenant):
    response = tenant.client.post(
        "/v1/chats", {"chatbotId": str(tenant.chatbot.id), "userId": None}, format="json"
    )
    assert response.status_code == 201
    assert uuid.UUID(response.json()["userId"])


def test_created_chat_is_the_stored_one(tenant):
    created = tenant.client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json")
    assert tenant.client.get(f"/v1/chats/{created.json()['id']}").json() == created.json()


def test_greeting_becomes_first_assistant_message(tenant):
    chatbot = ChatbotFactory(organization=tenant.organization, greeting="Welcome to the shop!")
    response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")

    messages = list(Message.objects.filter(chat_id=response.json()["id"]))
    assert [(m.type, m.content) for m in messages] == [("assistant", "Welcome to the shop!")]
    assert messages[0].created_at >= Chat.objects.get(pk=response.json()["id"]).created_at


def test_greeting_is_trimmed_as_python_trims_it(tenant):
    # Unicode spaces too: PostgreSQL trims the greeting in SQL, SQLite in Python
    chatbot = ChatbotFactory(
        organization=tenant.organization, greeting="\u3000\n Hello\tthere \xa0"
    )
    response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")

    messages = Message.objects.filter(chat_id=response.json()["id"])
    assert [m.content for m in messages] == ["Hello\tthere"]


@pytest.mark.parametrize("greeting", ["", " \n\t\u2003"])
def test_blank_greeting_stores_no_message(tenant, greeting):
    chatbot = ChatbotFactory(organization=tenant.organization, greeting=greeting)
    response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")

    assert response.status_code == 201
    assert not Message.objects.filter(chat_id=response.json()["id"]).exists()


def test_whitespace_is_what_python_strips():
    assert "".join(chr(c) for c in range(0x110000) if chr(c).isspace()) == WHITESPACE


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"chatbotId": "not-a-uuid"},
        {"chatbotId": 5},
        {"chatbotId": None},
        {"chatbotId": []},
        {"chatbotId": str(uuid.uuid4()), "userId": "nope"},
        [],
        "text",
    ],
)
def test_invalid_body_is_422_with_field_errors(tenant, body):
    response = tenant.client.post("/v1/chats", body, format="json")
    assert response.status_code == 422
    assert isinstance(response.json()["message"], str)


def test_unknown_inactive_and_foreign_chatbots_are_404_and_write_nothing(tenant, other_tenant):
    inactive = ChatbotFactory(organization=tenant.organization, is_active=False, greeting="Hi")
    other_tenant.chatbot.greeting = "Hello"
    other_tenant.chatbot.save()
    for chatbot_id in (uuid.uuid4(), inactive.id, other_tenant.chatbot.id):
        response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot_id)}, format="json")
        assert response.status_code == 404
        assert response.json() == {"message": CHATBOT_NOT_FOUND}
    assert (Chat.objects.count(), Message.objects.count(), DailyUsage.objects.count()) == (0, 0, 0)


def test_get_chat(tenant, django_assert_num_queries):
    chat = ChatFactory(chatbot=tenant.chatbot)
    tenant.client.get(f"/v1/chats/{chat.id}")  # records the key's first use
    with django_assert_num_queries(2):  # key lookup, chat
        response = tenant.client.get(f"/v1/chats/{chat.id}")
    assert response.status_code == 200
    assert response.json()["id"] == str(chat.id)


@pytest.mark.parametrize("chat_id", ["nope", "123", str(uuid.uuid4()), "%00", "a" * 300])
def test_unknown_or_malformed_chat_is_404(tenant, chat_id):
    response = tenant.client.get(f"/v1/chats/{chat_id}")
    assert response.status_code == 404
    assert response.json() == {"message": CHAT_NOT_FOUND}


def test_other_organizations_chat_is_404(tenant, other_tenant):
    chat = ChatFactory(chatbot=other_tenant.chatbot)
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 404
    assert tenant.client.get(f"/v1/chats/{chat.id}/messages").status_code == 404


@pytest.mark.parametrize("greeting", ["", "Welcome!"])
def test_create_query_count(tenant, django_assert_num_queries, greeting):
    chatbot = ChatbotFactory(organization=tenant.organization, greeting=greeting)
    tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")
    # PostgreSQL: key, then one statement (chatbot, chat, usage upsert, greeting). SQLite:
    # key, savepoint pair of atomic(), chatbot, chat, usage update, greeting if any.
    expected = 2 if connection.vendor == "postgresql" else 6 + bool(greeting)
    with django_assert_num_queries(expected):
        response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")
    assert response.status_code == 201
