"""`Idempotency-Key` on `POST /v1/chats/{chatId}/messages` (docs/api.md#idempotency)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chats.idempotency import KEY_REUSED, KEY_TOO_LONG
from chats.models import Event, IdempotencyRecord, Message
from tests.factories import ChatbotFactory, ChatFactory
from tests.knowledge.assistant_shops import DEMO_FILES, imported_shop

BODY = {"message": "Show me laptops", "currentUrl": "https://shop.example/"}


@pytest.fixture(scope="module")
def shop(committed_database, django_db_blocker):
    with imported_shop(django_db_blocker, "Idempotency Shop", DEMO_FILES) as imported:
        yield imported


def post(shop, chat_id, body=BODY, key: str | None = "key-1"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return shop.client.post(f"/v1/chats/{chat_id}/messages", body, format="json", **headers)


def stored(chat_id) -> list[str]:
    return [m.type for m in Message.objects.filter(chat_id=chat_id).order_by("seq")]


@pytest.mark.django_db
def test_retry_returns_the_first_reply_and_stores_nothing_new(shop):
    chat_id = shop.chat()
    first = post(shop, chat_id)
    events = Event.objects.filter(chat_id=chat_id).count()

    retry = post(shop, chat_id)

    assert (retry.status_code, retry.json()) == (first.status_code, first.json())
    assert first.status_code == 201
    assert stored(chat_id) == ["user", "answer"]
    assert Event.objects.filter(chat_id=chat_id).count() == events


@pytest.mark.django_db
def test_same_key_with_another_body_is_422(shop):
    chat_id = shop.chat()
    post(shop, chat_id)

    for body in (
        {**BODY, "message": "Show me phones"},
        {**BODY, "currentUrl": "https://shop.example/other"},
    ):
        response = post(shop, chat_id, body)
        assert response.status_code == 422
        assert response.json()["message"] == KEY_REUSED
    response = shop.client.post(
        f"/v1/chats/{chat_id}/messages?store=store-berlin-mitte",
        BODY,
        format="json",
        HTTP_IDEMPOTENCY_KEY="key-1",
    )
    assert response.status_code == 422
    assert stored(chat_id) == ["user", "answer"]


@pytest.mark.django_db
def test_key_longer_than_255_is_422(shop):
    chat_id = shop.chat()

    assert post(shop, chat_id, key="k" * 255).status_code == 201
    response = post(shop, shop.chat(), key="k" * 256)

    assert response.status_code == 422
    assert response.json()["message"] == KEY_TOO_LONG


@pytest.mark.django_db
def test_keys_are_per_chat_and_requests_without_key_are_never_replayed(shop):
    first_chat, second_chat = shop.chat(), shop.chat()

    a = post(shop, first_chat)
    b = post(shop, second_chat)
    post(shop, first_chat, key=None)
    post(shop, first_chat, key=None)

    assert a.json()["id"] != b.json()["id"]
    assert stored(second_chat) == ["user", "answer"]
    assert stored(first_chat) == ["user", "answer"] * 3


@pytest.mark.django_db
def test_key_older_than_24_hours_counts_as_new(shop):
    chat_id = shop.chat()
    first = post(shop, chat_id)
    IdempotencyRecord.objects.filter(chat_id=chat_id).update(
        created_at=timezone.now() - timedelta(hours=24, seconds=1)
    )

    again = post(shop, chat_id)

    assert again.status_code == 201 and again.json()["id"] != first.json()["id"]
    assert stored(chat_id) == ["user", "answer", "user", "answer"]


@pytest.mark.django_db
def test_a_failed_reply_is_replayed_as_it_was(shop, settings):
    settings.ASSISTANT_ENGINES = {"failing": "tests.chats.engines.UnavailableEngine"}
    chat = ChatFactory(chatbot=ChatbotFactory(organization=shop.organization, engine="failing"))

    first = post(shop, str(chat.id))
    retry = post(shop, str(chat.id))

    assert first.status_code == retry.status_code == 503
    assert first.json() == retry.json()
    assert stored(chat.id) == ["user"]
