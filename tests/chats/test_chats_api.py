"""Operations 1 and 2: create and get a chat (contract §3)."""

from __future__ import annotations

import uuid

import pytest

from chats.models import Message
from chats.selectors import CHAT_NOT_FOUND
from chats.services import CHATBOT_NOT_FOUND
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


def test_greeting_becomes_first_assistant_message(tenant):
    chatbot = ChatbotFactory(organization=tenant.organization, greeting="Welcome to the shop!")
    response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")

    messages = list(Message.objects.filter(chat_id=response.json()["id"]))
    assert [(m.type, m.content) for m in messages] == [("assistant", "Welcome to the shop!")]


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


def test_unknown_inactive_and_foreign_chatbots_are_404(tenant, other_tenant):
    inactive = ChatbotFactory(organization=tenant.organization, is_active=False)
    for chatbot_id in (uuid.uuid4(), inactive.id, other_tenant.chatbot.id):
        response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot_id)}, format="json")
        assert response.status_code == 404
        assert response.json() == {"message": CHATBOT_NOT_FOUND}


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


def test_create_query_count(tenant, django_assert_num_queries):
    tenant.client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json")
    with django_assert_num_queries(
        6
    ):  # key, chatbot, insert, usage update, savepoint pair of atomic()
        tenant.client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json")
