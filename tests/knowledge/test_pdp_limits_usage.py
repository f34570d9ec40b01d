"""The public PDP endpoints: rate limit per client address and daily usage
(docs/api.md#rate-limits)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import DailyUsage
from assistant_api.throttling import RATE_LIMITED
from knowledge.pdp.services import question_set_create
from tests.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/trail-runner"


@pytest.fixture
def stored():
    cache.clear()
    return question_set_create(
        organization=OrganizationFactory(),
        url=PAGE,
        product_title="Trail Runner",
        questions=["Which sizes are in stock?", "Is it waterproof?", "Is it on sale?"],
    )


def get(client: APIClient, stored, **extra):
    return client.get(
        f"/v1/knowledge/pdp-questions/{stored.organization_id}/public", {"url": PAGE}, **extra
    )


@override_settings(RATE_LIMIT_PUBLIC="3/min")
def test_public_endpoints_are_limited_per_client_address(stored):
    client = APIClient()
    statuses = [get(client, stored, REMOTE_ADDR="203.0.113.1").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = get(client, stored, REMOTE_ADDR="203.0.113.1")
    assert refused.json() == {"message": RATE_LIMITED} and int(refused["Retry-After"]) >= 1
    # The POST shares the address's budget; another address has its own.
    body = {"organizationId": str(stored.organization_id), "url": PAGE}
    post = client.post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        body,
        format="json",
        REMOTE_ADDR="203.0.113.1",
    )
    assert post.status_code == 429
    assert get(client, stored, REMOTE_ADDR="203.0.113.2").status_code == 200


@override_settings(RATE_LIMIT_PUBLIC="2/min", TRUSTED_PROXIES=["10.0.0.0/8"])
def test_behind_a_trusted_proxy_the_forwarded_client_is_limited(stored):
    client = APIClient()
    shopper = {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "198.51.100.4"}
    other = {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "198.51.100.5"}
    assert [get(client, stored, **shopper).status_code for _ in range(3)] == [200, 200, 429]
    assert get(client, stored, **other).status_code == 200


def test_each_set_returned_counts_in_the_days_usage(stored):
    client = APIClient()
    for _ in range(3):
        assert get(client, stored).status_code == 200
    row = DailyUsage.objects.get(
        organization_id=stored.organization_id, chatbot=None, day=timezone.now().date()
    )
    assert row.pdp_requests == 3
