"""The per-worker chat cache (chats/chat_cache.py): a chat read again costs no query."""

from __future__ import annotations

import time
import uuid

import pytest
from django.test import override_settings

from chats.models import Message
from chats.selectors import CHAT_NOT_FOUND, chat_get
from tests.factories import ChatFactory, MessageFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chat_cache_on")]


@pytest.fixture
def chat_cache_on():
    with override_settings(CHAT_CACHE_SECONDS=60):
        yield


def test_a_chat_read_again_costs_only_its_key(tenant, django_assert_num_queries):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, type="user", content="hello")
    first = tenant.client.get(f"/v1/chats/{chat.id}")

    with django_assert_num_queries(1):  # the key lookup (its own cache is off here)
        again = tenant.client.get(f"/v1/chats/{chat.id}")

    assert again.status_code == 200
    assert again.json() == first.json()
    with django_assert_num_queries(2):  # key, the page with its total: not the chat
        page = tenant.client.get(f"/v1/chats/{chat.id}/messages")
    assert page.status_code == 200


def test_another_organization_never_gets_a_cached_chat(tenant, other_tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 200

    for path in (f"/v1/chats/{chat.id}", f"/v1/chats/{chat.id}/messages"):
        response = other_tenant.client.get(path)
        assert response.status_code == 404
        assert response.json() == {"message": CHAT_NOT_FOUND}


def test_an_unknown_chat_is_not_remembered_as_missing(tenant):
    chat_id = uuid.uuid4()
    assert tenant.client.get(f"/v1/chats/{chat_id}").status_code == 404

    ChatFactory(id=chat_id, chatbot=tenant.chatbot)

    assert tenant.client.get(f"/v1/chats/{chat_id}").status_code == 200


def test_each_read_gets_its_own_instance(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    first = chat_get(organization=tenant.organization, chat_id=str(chat.id))
    first.user_id = uuid.uuid4()

    second = chat_get(organization=tenant.organization, chat_id=str(chat.id))

    assert second is not first
    assert second.user_id == chat.user_id


def test_an_entry_expires(tenant, django_assert_num_queries):
    chat = ChatFactory(chatbot=tenant.chatbot)
    with override_settings(CHAT_CACHE_SECONDS=0.05):
        chat_get(organization=tenant.organization, chat_id=str(chat.id))
        time.sleep(0.1)
        with django_assert_num_queries(1):
            chat_get(organization=tenant.organization, chat_id=str(chat.id))


def test_a_chat_deleted_with_its_chatbot_is_404_even_while_cached(tenant):
    # Given a chat this worker has cached
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 200

    # When an operator deletes its chatbot in the admin (the chat goes with it)
    tenant.chatbot.delete()

    # Then a message to it is refused as for any unknown chat, storing nothing
    response = tenant.client.post(
        f"/v1/chats/{chat.id}/messages",
        {"message": "hello", "currentUrl": "https://shop.example/"},
        format="json",
    )
    assert response.status_code == 404
    assert response.json() == {"message": CHAT_NOT_FOUND}
    assert not Message.objects.filter(chat_id=chat.id).exists()
    # and the worker forgets it: reading it is 404 as well
    assert tenant.client.get(f"/v1/chats/{chat.id}").status_code == 404
    assert tenant.client.get(f"/v1/chats/{chat.id}/messages").status_code == 404
