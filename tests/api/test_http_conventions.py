"""What every answer of the hot operations carries, whatever it is (docs/api.md#conventions):
`Allow`, 405 for other methods, HEAD, `Accept`, `WWW-Authenticate`, 429 with `Retry-After`,
and the documented error body for requests Django refuses to read.

GET chat, the history page and chat creation are DRF viewsets; the public PDP GET is a plain
Django view (knowledge/pdp/views.py). Each answers the same way.
"""

from __future__ import annotations

import json

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from chats.models import Chat
from knowledge.pdp.services import question_set_create
from tests.factories import ChatbotFactory, ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/trail-runner"
TOO_MANY_FIELDS = b'{"message":"Too many query or form parameters"}'


def pdp_path(tenant) -> str:
    return f"/v1/knowledge/pdp-questions/{tenant.organization.id}/public"


@pytest.fixture
def stored_set(tenant):
    return question_set_create(
        organization=tenant.organization,
        url=PAGE,
        product_title="Trail Runner",
        questions=["Is it waterproof?"],
    )


def test_allow_names_the_methods_of_each_path_on_every_answer(tenant, anonymous, stored_set):
    chat = ChatFactory(chatbot=tenant.chatbot)
    keyless = APIClient()
    for response, allow in [
        (tenant.client.get(f"/v1/chats/{chat.id}"), "GET, HEAD, OPTIONS"),
        (keyless.get(f"/v1/chats/{chat.id}"), "GET, HEAD, OPTIONS"),
        (tenant.client.get(f"/v1/chats/{chat.id}/messages"), "GET, POST, HEAD, OPTIONS"),
        (tenant.client.post("/v1/chats", {}, format="json"), "POST, OPTIONS"),
        (anonymous.get(pdp_path(tenant), {"url": PAGE}), "GET, HEAD, OPTIONS"),
        (anonymous.get(pdp_path(tenant)), "GET, HEAD, OPTIONS"),
    ]:
        assert response["Allow"] == allow, response.wsgi_request.path


def test_other_methods_are_405_and_head_answers_as_get(tenant, anonymous, stored_set):
    chat = ChatFactory(chatbot=tenant.chatbot)
    for client, path, query in [
        (tenant.client, f"/v1/chats/{chat.id}", {}),
        (anonymous, pdp_path(tenant), {"url": PAGE}),
    ]:
        refused = client.delete(path)
        assert refused.status_code == 405
        assert refused.json() == {"message": 'Method "DELETE" not allowed.'}
        assert refused["Allow"] == "GET, HEAD, OPTIONS"

        head, get = client.head(path, query), client.get(path, query)
        assert head.status_code == get.status_code == 200
        assert head["Content-Type"] == get["Content-Type"] == "application/json"
    assert tenant.client.get("/v1/chats").status_code == 405


def test_options_answers_with_the_allowed_methods(tenant, anonymous):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert tenant.client.options(f"/v1/chats/{chat.id}")["Allow"] == "GET, HEAD, OPTIONS"
    response = anonymous.options(pdp_path(tenant))
    assert response.status_code == 200
    assert response["Allow"] == "GET, HEAD, OPTIONS"


def test_accept_must_allow_json_on_chat_operations_and_is_ignored_by_the_pdp_ones(
    tenant, anonymous, stored_set
):
    chat = ChatFactory(chatbot=tenant.chatbot)
    refused = tenant.client.get(f"/v1/chats/{chat.id}", HTTP_ACCEPT="text/html")
    assert refused.status_code == 406
    assert refused.json() == {"message": "Could not satisfy the request Accept header."}
    negotiated = tenant.client.get(
        f"/v1/chats/{chat.id}", HTTP_ACCEPT="text/html, application/json;q=0.5"
    )
    assert negotiated.status_code == 200

    pdp = anonymous.get(pdp_path(tenant), {"url": PAGE}, HTTP_ACCEPT="text/html")
    assert pdp.status_code == 200 and pdp["Content-Type"] == "application/json"
    body_form = anonymous.post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        {"organizationId": str(tenant.organization.id), "url": PAGE},
        format="json",
        HTTP_ACCEPT="text/html",
    )
    assert body_form.status_code == 200
    assert body_form.json()["id"] == str(stored_set.id)


def test_format_is_ignored_like_any_unknown_parameter(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    for query in ("?format=xml", "?format=json", "?format=api"):
        response = tenant.client.get(f"/v1/chats/{chat.id}{query}")
        assert response.status_code == 200, query
        assert response.json()["id"] == str(chat.id)


def test_a_missing_key_is_401_with_www_authenticate(tenant, anonymous):
    chat = ChatFactory(chatbot=tenant.chatbot)
    wrong_key = APIClient()
    wrong_key.credentials(HTTP_X_API_KEY=tenant.key[:-4] + "abcd")
    for client in (anonymous, wrong_key):
        response = client.get(f"/v1/chats/{chat.id}")
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert anonymous.get(f"/v1/chats/{chat.id}").json()["message"].startswith("Missing API key")
    assert wrong_key.get(f"/v1/chats/{chat.id}").json() == {"message": "Invalid API key"}


def test_a_query_django_refuses_to_read_is_400_not_500(tenant, anonymous):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat)
    too_many = "?" + "&".join(["a"] * 1001)  # DATA_UPLOAD_MAX_NUMBER_FIELDS is 1,000
    for client, path in [
        (tenant.client, f"/v1/chats/{chat.id}"),
        (tenant.client, f"/v1/chats/{chat.id}/messages"),
        (anonymous, pdp_path(tenant)),
    ]:
        response = client.get(path + too_many)
        assert response.status_code == 400, path
        assert response.content == TOO_MANY_FIELDS


@override_settings(RATE_LIMIT_PER_KEY="2/min", RATE_LIMIT_PUBLIC="2/min")
def test_over_the_rate_limit_is_429_with_retry_after(tenant, anonymous, stored_set):
    chat = ChatFactory(chatbot=tenant.chatbot)
    body = {"chatbotId": str(tenant.chatbot.id)}
    for send in (
        lambda: tenant.client.get(f"/v1/chats/{chat.id}"),
        lambda: tenant.client.post("/v1/chats", body, format="json"),
        lambda: anonymous.get(pdp_path(tenant), {"url": PAGE}),
    ):
        # The key's two requests of the minute go to GET chat; the address's to the PDP GET.
        while (response := send()).status_code != 429:
            assert response.status_code in (200, 201)
        assert response.json() == {"message": "Rate limit exceeded"}
        assert 1 <= int(response["Retry-After"]) <= 60
    assert Chat.objects.filter(chatbot=tenant.chatbot).count() == 1  # refused: none created


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b'{"chatbotId": 1e999}', 400, "The request body is not valid JSON"),
        (b"", 422, "chatbotId: This field is required."),
        (b"\xff", 400, "The request body is not valid JSON"),
        (b"[]", 422, None),
        (b"{}", 422, "chatbotId: This field is required."),
        (b'{"chatbotId": "not-a-uuid"}', 422, "chatbotId: Must be a UUID string"),
        (b'{"chatbotId": null}', 422, "chatbotId: This field is required."),
    ],
)
def test_chat_creation_refuses_bad_bodies(tenant, body, status, message):
    response = tenant.client.post("/v1/chats", data=body, content_type="application/json")
    assert response.status_code == status
    assert response["Allow"] == "POST, OPTIONS"
    if message is not None:
        assert response.json()["message"].startswith(message)
    assert not Chat.objects.filter(chatbot=tenant.chatbot).exists()


def test_chat_creation_of_another_organizations_or_an_inactive_chatbot_is_404(tenant, other_tenant):
    inactive = ChatbotFactory(organization=tenant.organization, is_active=False)
    for chatbot in (other_tenant.chatbot, inactive):
        response = tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")
        assert response.status_code == 404
        assert response.json() == {"message": "Chatbot not found"}


def test_chat_creation_takes_json_only(tenant):
    body = json.dumps({"chatbotId": str(tenant.chatbot.id)})
    response = tenant.client.post("/v1/chats", data=body, content_type="text/plain")
    assert response.status_code == 415
    created = tenant.client.post("/v1/chats", data=body, content_type="application/json")
    assert created.status_code == 201
    assert created["Location"] == f"/v1/chats/{created.json()['id']}"
