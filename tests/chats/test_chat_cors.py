"""CORS on the chat paths for client-token requests (docs/api.md, "Shop front-ends")."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from chats.models import Message
from chats.token_auth import ORIGIN_NOT_ALLOWED
from tests.factories import ChatFactory

pytestmark = pytest.mark.django_db

SHOP = "https://shop.example"
BODY = {"message": "Do you have mascara?", "currentUrl": "https://shop.example/"}


@pytest.fixture
def chat(tenant):
    return ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)


def token_client(tenant, chat) -> APIClient:
    token = tenant.client.post(f"/v1/chats/{chat.id}/client-tokens").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def cors_headers(response) -> dict[str, str]:
    return {name: value for name, value in response.items() if name.startswith("Access-Control")}


@pytest.mark.parametrize(
    "path",
    [
        "/v1/chats/{chat}",
        "/v1/chats/{chat}/messages",
        "/v1/chats/{chat}/messages/events",
        "/v1/chats/{chat}/events",
        "/v1/ui/chat",
        "/v1/ui/chat/{chat}/stream",
    ],
)
def test_preflights_on_chat_paths_are_answered(chat, path):
    response = APIClient().options(
        path.format(chat=chat.id),
        HTTP_ORIGIN=SHOP,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == SHOP
    assert set(response["Access-Control-Allow-Methods"].split(", ")) >= {
        "GET",
        "POST",
        "PUT",
        "DELETE",
    }
    allowed = {h.strip().lower() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert allowed >= {"authorization", "content-type", "idempotency-key", "last-event-id"}
    assert int(response["Access-Control-Max-Age"]) > 0
    assert "Origin" in response["Vary"]
    assert "Access-Control-Allow-Credentials" not in response


def test_a_token_request_from_any_origin_is_answered_with_cors_when_none_are_listed(tenant, chat):
    response = token_client(tenant, chat).get(f"/v1/chats/{chat.id}", HTTP_ORIGIN=SHOP)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == SHOP
    exposed = {h.strip() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert exposed == {"X-Request-Id", "Retry-After", "X-Quota-Limit", "X-Quota-Remaining"}
    assert "Origin" in response["Vary"]
    assert "Access-Control-Allow-Credentials" not in response


def test_a_listed_origin_is_echoed(tenant, chat):
    tenant.organization.allowed_origins = ["https://other.example", SHOP]
    tenant.organization.save()
    client = token_client(tenant, chat)
    response = client.post(f"/v1/chats/{chat.id}/messages", BODY, format="json", HTTP_ORIGIN=SHOP)
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == SHOP


def test_an_origin_not_listed_is_refused_before_anything_is_stored(tenant, chat):
    tenant.organization.allowed_origins = [SHOP]
    tenant.organization.save()
    client = token_client(tenant, chat)
    evil = "https://evil.example"
    for response in (
        client.post(f"/v1/chats/{chat.id}/messages", BODY, format="json", HTTP_ORIGIN=evil),
        client.get(f"/v1/chats/{chat.id}/messages", HTTP_ORIGIN=evil),
        client.get(f"/v1/chats/{chat.id}", HTTP_ORIGIN=evil),
        client.get(f"/v1/chats/{chat.id}/messages/events", HTTP_ORIGIN=evil),
    ):
        assert response.status_code == 403
        assert response.json() == {"message": ORIGIN_NOT_ALLOWED}
        assert cors_headers(response) == {}
    assert not Message.objects.filter(chat=chat).exists()


def test_api_key_requests_never_get_cors_headers(tenant, chat):
    for response in (
        tenant.client.get(f"/v1/chats/{chat.id}", HTTP_ORIGIN=SHOP),
        tenant.client.get(f"/v1/chats/{chat.id}/messages", HTTP_ORIGIN=SHOP),
        tenant.client.post(f"/v1/chats/{chat.id}/messages", BODY, format="json", HTTP_ORIGIN=SHOP),
        tenant.client.post(
            "/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json", HTTP_ORIGIN=SHOP
        ),
    ):
        assert cors_headers(response) == {}


def test_an_error_of_an_allowed_token_request_is_readable_by_the_page(tenant, chat):
    client = token_client(tenant, chat)
    response = client.post(
        f"/v1/chats/{chat.id}/messages", {"message": ""}, format="json", HTTP_ORIGIN=SHOP
    )
    assert response.status_code == 422
    assert response["Access-Control-Allow-Origin"] == SHOP
