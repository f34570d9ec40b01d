"""The hot GETs answer exactly as DRF does (assistant_api/plain_get.py).

GET chat, the history page and the PDP GET are answered without DRF when the client accepts
JSON as is; with any other `Accept` DRF answers. Each case is sent both ways and the two
answers must be the same: status, body and every header but the request id.
"""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from knowledge.pdp.services import question_set_create
from tests.factories import ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db

# Not one of the values the plain path takes as is, so DRF's negotiation answers (with JSON).
DRF_ACCEPT = "application/json, text/plain;q=0.5"
PAGE = "https://shop.example/products/trail-runner"


def both_ways(client: APIClient, path: str, **extra) -> tuple:
    """(plain answer, DRF answer), each as (status, body, headers without the request id)."""
    plain = client.get(path, **extra)
    through_drf = client.get(path, HTTP_ACCEPT=DRF_ACCEPT, **extra)
    return _answer(plain), _answer(through_drf)


def _answer(response) -> tuple:
    headers = {name: value for name, value in response.items() if name != "X-Request-Id"}
    # Each PDP set answered counts one request: two answers differ in that count only.
    body = re.sub(rb'"requests":\d+', b'"requests":N', response.content)
    return response.status_code, body, headers


def test_get_chat_answers_as_drf(tenant, other_tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    foreign = ChatFactory(chatbot=other_tenant.chatbot)
    keyless = APIClient()
    wrong_key = APIClient()
    wrong_key.credentials(HTTP_X_API_KEY=tenant.key[:-4] + "abcd")

    for client, path in [
        (tenant.client, f"/v1/chats/{chat.id}"),
        (tenant.client, f"/v1/chats/{foreign.id}"),
        (tenant.client, "/v1/chats/not-a-uuid"),
        (keyless, f"/v1/chats/{chat.id}"),
        (wrong_key, f"/v1/chats/{chat.id}"),
    ]:
        plain, through_drf = both_ways(client, path)
        assert plain == through_drf, path
    plain, _ = both_ways(tenant.client, f"/v1/chats/{chat.id}")
    assert plain[0] == 200
    assert plain[2]["Allow"] == "GET, HEAD, OPTIONS"
    assert both_ways(keyless, f"/v1/chats/{chat.id}")[0][2]["WWW-Authenticate"]


def test_history_page_answers_as_drf(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    for seq in range(1, 4):
        MessageFactory(chat=chat, seq=seq, products=[{"title": "Trail Runner"}])

    for query in ("", "?page=2&size=2", "?page=0", "?size=101&page=x", "?page=9"):
        plain, through_drf = both_ways(tenant.client, f"/v1/chats/{chat.id}/messages{query}")
        assert plain == through_drf, query
    plain, _ = both_ways(tenant.client, f"/v1/chats/{chat.id}/messages")
    assert plain[0] == 200
    assert plain[2]["Allow"] == "GET, POST, HEAD, OPTIONS"


def test_a_query_django_refuses_to_read_is_400_both_ways(tenant, anonymous):
    chat = ChatFactory(chatbot=tenant.chatbot)
    too_many = "?" + "&".join(["a"] * 1001)  # DATA_UPLOAD_MAX_NUMBER_FIELDS is 1,000
    for client, path in [
        (tenant.client, f"/v1/chats/{chat.id}"),
        (tenant.client, f"/v1/chats/{chat.id}/messages"),
        (anonymous, f"/v1/knowledge/pdp-questions/{tenant.organization.id}/public"),
    ]:
        plain, through_drf = both_ways(client, path + too_many)
        assert plain == through_drf, path
        assert plain[0] == 400
        assert plain[1] == b'{"message":"Too many query or form parameters"}'


def test_format_is_ignored_and_other_accepts_still_go_to_drf(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert tenant.client.get(f"/v1/chats/{chat.id}", HTTP_ACCEPT="text/html").status_code == 406
    # `?format=` is ignored like any other unknown parameter, never a 404
    # (docs/api.md#query-parameters).
    for query in ("?format=xml", "?format=json", "?format=api"):
        plain, through_drf = both_ways(tenant.client, f"/v1/chats/{chat.id}{query}")
        assert plain == through_drf and plain[0] == 200, query


@override_settings(RATE_LIMIT_PER_KEY="2/min")
def test_rate_limited_get_answers_as_drf(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    both_ways(tenant.client, f"/v1/chats/{chat.id}")  # the two requests of the minute

    plain, through_drf = both_ways(tenant.client, f"/v1/chats/{chat.id}")

    assert plain[0] == 429
    assert plain[:2] == through_drf[:2]
    assert set(plain[2]) == set(through_drf[2])
    assert 1 <= int(plain[2]["Retry-After"]) <= 60


def test_pdp_get_answers_as_drf(anonymous, tenant):
    organization = tenant.organization
    stored = question_set_create(
        organization=organization,
        url=PAGE,
        product_title="Trail Runner",
        questions=["Is it waterproof?"],
    )
    path = f"/v1/knowledge/pdp-questions/{organization.id}/public"

    plain, through_drf = both_ways(anonymous, path, data={"url": PAGE})
    assert plain == through_drf
    assert plain[0] == 200
    assert plain[2]["Cache-Control"] == "public, max-age=60"

    etag = plain[2]["ETag"]
    for extra in [
        {"data": {"url": PAGE}, "HTTP_IF_NONE_MATCH": etag},
        {"data": {"url": "https://shop.example/products/unknown"}},
        {"data": {"url": "not a url"}},
        {"data": {}},
        {"data": {"url": PAGE}, "HTTP_ORIGIN": "https://elsewhere.example"},
    ]:
        plain, through_drf = both_ways(anonymous, path, **extra)
        assert plain == through_drf, extra
    assert both_ways(anonymous, path, data={"url": PAGE}, HTTP_IF_NONE_MATCH=etag)[0][0] == 304
    stored.refresh_from_db()
    assert stored.requests == 2 + 2 + 2 + 2  # 200s, 304s, 200s to another origin, 304s


def test_other_methods_still_get_drf_answers(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    response = tenant.client.delete(f"/v1/chats/{chat.id}")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert tenant.client.head(f"/v1/chats/{chat.id}").status_code == 200
