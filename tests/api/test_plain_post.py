"""Chat creation answers exactly as DRF does (assistant_api/plain_post.py).

A JSON object sent as `application/json` by a client accepting JSON as is is answered
without DRF; with any other `Accept` DRF answers. Each case is sent both ways and the two
answers must be the same: status, every header but the request id and the new chat's
address, and the body but the new chat's id and time.
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from chats.models import Chat
from tests.factories import ChatbotFactory

pytestmark = pytest.mark.django_db

DRF_ACCEPT = "application/json, text/plain;q=0.5"  # not taken as is: DRF negotiates


def both_ways(client: APIClient, body, content_type: str = "application/json") -> tuple:
    """(plain answer, DRF answer), each as (status, body, headers)."""
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    plain = client.post("/v1/chats", data=data, content_type=content_type)
    through_drf = client.post(
        "/v1/chats", data=data, content_type=content_type, HTTP_ACCEPT=DRF_ACCEPT
    )
    return _answer(plain), _answer(through_drf)


def _answer(response) -> tuple:
    headers = {name: value for name, value in response.items() if name != "X-Request-Id"}
    body = response.json()
    if response.status_code == 201:
        assert headers.pop("Location") == f"/v1/chats/{body.pop('id')}"
        assert body.pop("createdAt").endswith("Z")
    return response.status_code, body, headers


def test_chat_creation_answers_as_drf(tenant, other_tenant):
    chatbot, user_id = str(tenant.chatbot.id), str(uuid.uuid4())
    inactive = ChatbotFactory(organization=tenant.organization, is_active=False)
    keyless, wrong_key = APIClient(), APIClient()
    wrong_key.credentials(HTTP_X_API_KEY=tenant.key[:-4] + "abcd")

    for client, body in [
        (tenant.client, {"chatbotId": chatbot, "userId": user_id}),
        (tenant.client, {"chatbotId": chatbot.upper(), "userId": user_id, "extra": [1]}),
        (tenant.client, {"chatbotId": str(other_tenant.chatbot.id), "userId": user_id}),
        (tenant.client, {"chatbotId": str(inactive.id)}),
        (tenant.client, {"chatbotId": "not-a-uuid"}),
        (tenant.client, {"chatbotId": None}),
        (tenant.client, {"chatbotId": 12}),
        (tenant.client, {}),
        (tenant.client, []),
        (tenant.client, b""),
        (tenant.client, b'{"chatbotId": 1e999}'),
        (tenant.client, b"\xff"),
        (keyless, {"chatbotId": chatbot, "userId": user_id}),
        (wrong_key, {"chatbotId": chatbot, "userId": user_id}),
    ]:
        plain, through_drf = both_ways(client, body)
        assert plain == through_drf, body

    created = both_ways(tenant.client, {"chatbotId": chatbot, "userId": user_id})[0]
    assert created[0] == 201
    assert created[1] == {
        "chatbotId": chatbot,
        "organizationId": str(tenant.organization.id),
        "userId": user_id,
    }
    assert created[2]["Allow"] == "POST, OPTIONS"
    assert Chat.objects.filter(chatbot=tenant.chatbot, user_id=user_id).count() == 2 + 2 + 2


def test_other_media_types_still_go_to_drf(tenant):
    body = json.dumps({"chatbotId": str(tenant.chatbot.id)})
    plain, through_drf = both_ways(tenant.client, body, content_type="text/plain")
    assert plain == through_drf
    assert plain[0] == 415


@override_settings(RATE_LIMIT_PER_KEY="2/min")
def test_rate_limited_creation_answers_as_drf(tenant):
    body = {"chatbotId": str(tenant.chatbot.id)}
    both_ways(tenant.client, body)  # the two requests of the minute

    plain, through_drf = both_ways(tenant.client, body)

    assert plain[0] == through_drf[0] == 429
    assert plain[1] == through_drf[1] and set(plain[2]) == set(through_drf[2])
    assert Chat.objects.filter(chatbot=tenant.chatbot).count() == 2
