"""The served OpenAPI description matches what the API really answers."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import ChatFactory, MessageFactory
from tests.openapi_validation import SchemaChecker

pytestmark = pytest.mark.django_db


@pytest.fixture
def checker(client) -> SchemaChecker:
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200
    return SchemaChecker(response.json())


def test_schema_describes_both_auth_schemes_as_alternatives(checker):
    schemes = checker.openapi["components"]["securitySchemes"]
    assert schemes["apiKey"] == {"type": "apiKey", "in": "header", "name": "x-api-key"}
    assert schemes["bearer"]["scheme"] == "bearer"
    assert checker.operation("POST", "/v1/chats")["security"] == [{"apiKey": []}, {"bearer": []}]
    # A chat's own operations also take its client token (docs/api.md, "Shop front-ends").
    assert checker.operation("GET", "/v1/chats/x")["security"] == [
        {"clientToken": []},
        {"apiKey": []},
        {"bearer": []},
    ]
    assert "bearerFormat" not in schemes["clientToken"]


def test_the_event_stream_is_described_with_every_auth_scheme(checker):
    operation = checker.operation("GET", "/v1/chats/x/messages/events")
    assert operation["operationId"] == "getMessageEvents"
    assert operation["security"] == [{"clientToken": []}, {"apiKey": []}, {"bearer": []}]
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    for status in ("401", "404", "422", "429"):
        assert list(operation["responses"][status]["content"]) == ["application/json"]
    parameters = {(p["in"], p["name"]) for p in operation["parameters"]}
    assert {("path", "chatId"), ("query", "lastEventId"), ("header", "Last-Event-ID")} <= parameters
    assert ("query", "token") in parameters
    # The older quick-start's path answers too (tests/chats), but is not the reference.
    assert "/v1/chats/{chatId}/events" not in checker.openapi["paths"]


def test_optional_fields_are_not_required(checker):
    message = checker.openapi["components"]["schemas"]["Message"]
    assert "suggestions" not in message["required"] and "products" not in message["required"]
    product = checker.openapi["components"]["schemas"]["Product"]
    assert set(product["required"]) == {
        "gtin",
        "brand",
        "designation",
        "url",
        "image",
        "price",
        "currency",
    }


def test_real_responses_match_the_schema(checker, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, type="user", content="hello")
    MessageFactory(
        chat=chat,
        type="answer",
        content="Look",
        suggestions=["More?"],
        products=[
            {
                "gtin": "1",
                "brand": "",
                "designation": "X",
                "url": "https://s.example/x",
                "image": "https://s.example/x.jpg",
                "price": 9.5,
                "currency": "EUR",
                "availability": {"status": "in_stock", "quantity": 3},
                "location": [{"key": "aisle", "value": "4"}],
                "flags": [{"type": "sale", "title": "On sale", "text": "-20%"}],
            }
        ],
    )
    client = tenant.client
    exchanges = [
        (
            "POST",
            "/v1/chats",
            client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json"),
        ),
        ("POST", "/v1/chats", client.post("/v1/chats", {"chatbotId": "x"}, format="json")),
        (
            "POST",
            "/v1/chats",
            client.post("/v1/chats", {"chatbotId": str(uuid.uuid4())}, format="json"),
        ),
        ("GET", f"/v1/chats/{chat.id}", client.get(f"/v1/chats/{chat.id}")),
        ("GET", f"/v1/chats/{uuid.uuid4()}", client.get(f"/v1/chats/{uuid.uuid4()}")),
        ("GET", f"/v1/chats/{chat.id}/messages", client.get(f"/v1/chats/{chat.id}/messages")),
        (
            "GET",
            f"/v1/chats/{chat.id}/messages",
            client.get(f"/v1/chats/{chat.id}/messages?page=9"),
        ),
        (
            "GET",
            f"/v1/chats/{chat.id}/messages",
            client.get(f"/v1/chats/{chat.id}/messages?size=0"),
        ),
        ("GET", f"/v1/chats/{chat.id}", client.get(f"/v1/chats/{chat.id}", HTTP_X_API_KEY="bad")),
    ]
    for method, path, response in exchanges:
        checker.validate(method, path, response.status_code, response.json())


def test_docs_page_works_offline(client):
    page = client.get("/docs/").content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower() and "unpkg" not in page.lower()
