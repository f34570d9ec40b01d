"""Content negotiation: JSON at once for the usual Accept headers, DRF's rules for the rest."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from assistant_api.negotiation import JsonFirstNegotiation
from assistant_api.renderers import JsonRenderer
from tests.factories import ChatFactory

ACCEPTS = [
    None,
    "",
    "*/*",
    "application/json",
    "application/json; indent=4",
    "application/*",
    "text/html",
    "text/html, application/json;q=0.9",
    "application/xml",
    "text/*",
]


def choice(negotiation, accept: str | None, query: str):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(f"/v1/chats/x{query}", **headers))
    try:
        renderer, media_type = negotiation.select_renderer(request, [JsonRenderer()])
    except Exception as exc:  # the same refusal counts as the same answer
        return type(exc)
    return type(renderer), media_type


@pytest.mark.parametrize("query", ["", "?page=2", "?format=json", "?format=html"])
@pytest.mark.parametrize("accept", ACCEPTS)
def test_the_choice_is_drfs_own(accept, query):
    assert choice(JsonFirstNegotiation(), accept, query) == choice(
        DefaultContentNegotiation(), accept, query
    )


def test_only_json_is_refused_406():
    assert choice(JsonFirstNegotiation(), "text/html", "") is NotAcceptable


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "status"), [(None, 200), ("*/*", 200), ("application/json", 200), ("text/html", 406)]
)
def test_get_chat_by_accept(tenant, accept, status):
    chat = ChatFactory(chatbot=tenant.chatbot)
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    response = tenant.client.get(f"/v1/chats/{chat.id}", **headers)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
