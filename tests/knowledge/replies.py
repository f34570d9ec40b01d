"""Asking the assistant in tests as an integrator does, POST /v1/chats/{chatId}/messages, and
reading its reply: a client with an organization's key, one question per new chat."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.models import Organization
from accounts.services import api_key_issue
from tests.factories import ChatbotFactory

HOME = "https://shop.example/"


def shop_client(organization: Organization) -> APIClient:
    """A client holding a key of `organization` and the id of a chatbot of it."""
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_issue(organization=organization).key)
    client.chatbot_id = str(ChatbotFactory(organization=organization).id)  # type: ignore[attr-defined]
    return client


def ask(client: APIClient, message: str, url: str = HOME) -> dict:
    """The reply to `message`, the first of a new chat, sent from the page `url`."""
    chat = client.post("/v1/chats", {"chatbotId": client.chatbot_id}, format="json")  # type: ignore[attr-defined]
    response = client.post(
        f"/v1/chats/{chat.json()['id']}/messages",
        {"message": message, "currentUrl": url},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def say(shop, message: str) -> dict:
    """The reply of an imported shop (tests/knowledge/assistant_shops.py) in a new chat."""
    response = shop.say(shop.chat(), message)
    assert response.status_code == 201, response.content
    return response.json()


def titles(body: dict) -> list[str]:
    return [product["designation"] for product in body.get("products") or []]


def own_words(body: dict) -> str:
    """The reply's text without the products' titles: what the engine wrote itself."""
    text = body["content"]
    for title in titles(body):
        text = text.replace(title, "")
    return text
