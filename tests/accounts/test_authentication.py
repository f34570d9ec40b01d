"""API key authentication (docs/api.md#authentication) on every authenticated endpoint."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.authentication import (
    EXPIRED_KEY,
    INVALID_KEY,
    MISSING_KEY,
    REVOKED_KEY,
)
from accounts.models import ApiKey
from accounts.services import api_key_issue, api_key_revoke
from tests.factories import ChatFactory

pytestmark = pytest.mark.django_db


def authenticated_requests(chat_id: str):
    return [
        ("post", "/v1/chats", {"chatbotId": "00000000-0000-4000-8000-000000000000"}),
        ("get", f"/v1/chats/{chat_id}", None),
        ("get", f"/v1/chats/{chat_id}/messages", None),
    ]


def call(client: APIClient, method: str, path: str, body, **headers):
    return (
        getattr(client, method)(path, body, format="json", **headers)
        if body
        else getattr(client, method)(path, **headers)
    )


def test_missing_key_is_401_on_every_endpoint(anonymous, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    for method, path, body in authenticated_requests(str(chat.id)):
        response = call(anonymous, method, path, body)
        assert response.status_code == 401, path
        assert response.json() == {"message": MISSING_KEY}
        assert response["WWW-Authenticate"]


@pytest.mark.parametrize(
    "key",
    ["nope", "sk_stag_", "sk_stag_00000000_wrongsecret", "sk_test_12345678_x", "", " ", "Bearer"],
)
def test_unknown_or_malformed_key_is_401(anonymous, tenant, key):
    response = anonymous.get("/v1/chats/x", HTTP_X_API_KEY=key)
    assert response.status_code == 401
    assert response.json()["message"] in {INVALID_KEY, MISSING_KEY}


def test_right_prefix_wrong_secret_is_401(anonymous, tenant):
    forged = tenant.api_key.prefix + "_" + "A" * 43
    response = anonymous.get("/v1/chats/x", HTTP_X_API_KEY=forged)
    assert response.status_code == 401
    assert response.json() == {"message": INVALID_KEY}


def test_revoked_key_is_refused_at_once(tenant):
    assert tenant.client.get("/v1/chats/x").status_code == 404
    api_key_revoke(prefix=tenant.api_key.prefix)
    response = tenant.client.get("/v1/chats/x")
    assert response.status_code == 401
    assert response.json() == {"message": REVOKED_KEY}


def test_expired_key_is_401(anonymous, tenant):
    issued = api_key_issue(
        organization=tenant.organization, expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    response = anonymous.get("/v1/chats/x", HTTP_X_API_KEY=issued.key)
    assert response.status_code == 401
    assert response.json() == {"message": EXPIRED_KEY}


def test_key_of_the_other_environment_is_refused_with_its_name(anonymous, tenant):
    production = api_key_issue(organization=tenant.organization, environment="production")
    assert production.key.startswith("sk_prod_")
    response = anonymous.get("/v1/chats/x", HTTP_X_API_KEY=production.key)
    assert response.status_code == 401
    assert "production environment" in response.json()["message"]

    with override_settings(ASSISTANT_ENVIRONMENT="production"):
        assert anonymous.get("/v1/chats/x", HTTP_X_API_KEY=production.key).status_code == 404
        staging = anonymous.get("/v1/chats/x", HTTP_X_API_KEY=tenant.key)
        assert staging.status_code == 401
        assert "staging environment" in staging.json()["message"]


def test_bearer_form_is_accepted(anonymous, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    response = anonymous.get(f"/v1/chats/{chat.id}", HTTP_AUTHORIZATION=f"Bearer {tenant.key}")
    assert response.status_code == 200


def test_x_api_key_wins_over_bearer(anonymous, tenant, other_tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    response = anonymous.get(
        f"/v1/chats/{chat.id}",
        HTTP_X_API_KEY=tenant.key,
        HTTP_AUTHORIZATION=f"Bearer {other_tenant.key}",
    )
    assert response.status_code == 200
    response = anonymous.get(
        f"/v1/chats/{chat.id}",
        HTTP_X_API_KEY=other_tenant.key,
        HTTP_AUTHORIZATION=f"Bearer {tenant.key}",
    )
    assert response.status_code == 404


def test_last_used_is_written_at_most_once_a_minute(tenant, django_assert_num_queries):
    assert tenant.api_key.last_used_at is None
    tenant.client.get("/v1/chats/x")
    first = ApiKey.objects.get(pk=tenant.api_key.pk).last_used_at
    assert first is not None

    with django_assert_num_queries(1):  # the key lookup only: no write within the minute
        tenant.client.get("/v1/chats/x")
    assert ApiKey.objects.get(pk=tenant.api_key.pk).last_used_at == first

    ApiKey.objects.filter(pk=tenant.api_key.pk).update(last_used_at=first - dt.timedelta(minutes=2))
    tenant.client.get("/v1/chats/x")
    assert ApiKey.objects.get(pk=tenant.api_key.pk).last_used_at > first


def test_only_a_hash_of_the_key_is_stored(tenant):
    stored = ApiKey.objects.filter(pk=tenant.api_key.pk).values().get()
    assert tenant.key not in str(stored)
    assert stored["prefix"] == tenant.key[: len(stored["prefix"])]
