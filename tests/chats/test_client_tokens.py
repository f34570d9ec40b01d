"""Client tokens (docs/api.md, "Shop front-ends"): minted with an API key for one chat,
usable by a browser on that chat's reads, messages and streams only."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.client_tokens import (
    TOKEN_EXPIRED,
    TOKEN_INVALID,
    TOKEN_KEY_REVOKED,
    TOKEN_NOT_VALID_HERE,
)
from accounts.services import api_key_revoke
from chats.models import Message
from tests.factories import ChatFactory

pytestmark = pytest.mark.django_db


def mint(tenant, chat, body=None):
    return tenant.client.post(f"/v1/chats/{chat.id}/client-tokens", body, format="json")


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def chat(tenant):
    return ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)


def test_minting_answers_201_with_the_token_its_chat_and_expiry(tenant, chat):
    before = timezone.now()
    response = mint(tenant, chat)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"token", "chatId", "expiresAt"}
    assert body["chatId"] == str(chat.id)
    assert body["expiresAt"].endswith("Z")
    expires = dt.datetime.fromisoformat(body["expiresAt"].replace("Z", "+00:00"))
    # The default lifetime, CLIENT_TOKEN_SECONDS = 3600.
    assert dt.timedelta(seconds=3598) < expires - before <= dt.timedelta(seconds=3601)
    assert tenant.key not in body["token"]


@pytest.mark.parametrize("ttl", [60, 86400])
def test_a_lifetime_may_be_asked_for(tenant, chat, ttl):
    before = timezone.now()
    body = mint(tenant, chat, {"ttlSeconds": ttl}).json()
    expires = dt.datetime.fromisoformat(body["expiresAt"].replace("Z", "+00:00"))
    assert abs((expires - before).total_seconds() - ttl) < 2


@pytest.mark.parametrize("ttl", [59, 86401, "600", 1.5, True])
def test_a_lifetime_out_of_range_or_not_an_integer_is_422(tenant, chat, ttl):
    response = mint(tenant, chat, {"ttlSeconds": ttl})
    assert response.status_code == 422
    assert "ttlSeconds" in response.json()["errors"]


def test_minting_for_another_organizations_chat_is_404(tenant, other_tenant):
    foreign = ChatFactory(organization=other_tenant.organization, chatbot=other_tenant.chatbot)
    assert mint(tenant, foreign).status_code == 404


def test_a_token_reads_its_chat_and_its_messages(tenant, chat):
    client = bearer(mint(tenant, chat).json()["token"])
    assert client.get(f"/v1/chats/{chat.id}").json()["id"] == str(chat.id)
    assert client.get(f"/v1/chats/{chat.id}/messages").json()["totalItems"] == 0


def test_a_token_adds_a_message_counted_like_any_other(tenant, chat):
    client = bearer(mint(tenant, chat).json()["token"])
    response = client.post(
        f"/v1/chats/{chat.id}/messages",
        {"message": "Do you have a mascara?", "currentUrl": "https://shop.example/"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["type"] == "answer"
    assert Message.objects.filter(chat=chat).count() == 2


def test_a_token_is_refused_on_another_chat(tenant, chat):
    other = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    client = bearer(mint(tenant, chat).json()["token"])
    for response in (
        client.get(f"/v1/chats/{other.id}"),
        client.get(f"/v1/chats/{other.id}/messages"),
        client.post(
            f"/v1/chats/{other.id}/messages",
            {"message": "hi", "currentUrl": "https://shop.example/"},
            format="json",
        ),
        client.get(f"/v1/chats/{other.id}/messages/events"),
    ):
        assert response.status_code == 403
        assert response.json() == {"message": TOKEN_NOT_VALID_HERE}
    assert not Message.objects.filter(chat=other).exists()


def test_a_token_is_refused_on_every_operation_that_needs_an_api_key(tenant, chat):
    client = bearer(mint(tenant, chat).json()["token"])
    for response in (
        client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json"),
        client.post(f"/v1/chats/{chat.id}/client-tokens", {}, format="json"),
        client.get("/v1/usage"),
    ):
        assert response.status_code == 403
        assert response.json() == {"message": TOKEN_NOT_VALID_HERE}


def test_an_expired_token_is_401(tenant, chat):
    token = mint(tenant, chat, {"ttlSeconds": 60}).json()["token"]
    later = timezone.now() + dt.timedelta(seconds=61)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("accounts.client_tokens.timezone.now", lambda: later)
        response = bearer(token).get(f"/v1/chats/{chat.id}")
    assert response.status_code == 401
    assert response.json() == {"message": TOKEN_EXPIRED}


@pytest.mark.parametrize(
    "change", [lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"), lambda t: t + "x"]
)
def test_a_tampered_token_is_401(tenant, chat, change):
    token = mint(tenant, chat).json()["token"]
    response = bearer(change(token)).get(f"/v1/chats/{chat.id}")
    assert response.status_code == 401
    assert response.json() == {"message": TOKEN_INVALID}


@override_settings(API_KEY_CACHE_SECONDS=0)
def test_revoking_the_minting_key_ends_its_tokens(tenant, chat):
    client = bearer(mint(tenant, chat).json()["token"])
    assert client.get(f"/v1/chats/{chat.id}").status_code == 200
    api_key_revoke(prefix=tenant.api_key.prefix)
    response = client.get(f"/v1/chats/{chat.id}")
    assert response.status_code == 401
    assert response.json() == {"message": TOKEN_KEY_REVOKED}


def test_a_token_in_the_query_works_on_the_event_streams_only(tenant, chat):
    token = mint(tenant, chat).json()["token"]
    anonymous = APIClient()
    response = anonymous.get(f"/v1/chats/{chat.id}", {"token": token})
    assert response.status_code == 401
    # The streams' authentication and chat checks run before the stream starts; a token for
    # another chat shows that the query's token was read.
    other = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    for path in (f"/v1/chats/{other.id}/messages/events", f"/v1/chats/{other.id}/events"):
        response = anonymous.get(path, {"token": token})
        assert response.status_code == 403
        assert response.json() == {"message": TOKEN_NOT_VALID_HERE}


def test_an_api_key_still_wins_over_a_token(tenant, chat, other_tenant):
    foreign = ChatFactory(organization=other_tenant.organization, chatbot=other_tenant.chatbot)
    token = mint(other_tenant, foreign).json()["token"]
    response = tenant.client.get(f"/v1/chats/{chat.id}", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200


def test_a_tokens_messages_count_against_the_organizations_quota(tenant, chat):
    tenant.organization.monthly_quota = 1
    tenant.organization.save()
    client = bearer(mint(tenant, chat).json()["token"])
    body = {"message": "Do you have a mascara?", "currentUrl": "https://shop.example/"}
    first = client.post(f"/v1/chats/{chat.id}/messages", body, format="json")
    second = client.post(f"/v1/chats/{chat.id}/messages", body, format="json")
    assert first.status_code == 201
    assert first["X-Quota-Remaining"] == "0"
    assert second.status_code == 429
    assert second.json() == {"message": "Monthly message quota reached"}
    assert Message.objects.filter(chat=chat, type="user").count() == 1
