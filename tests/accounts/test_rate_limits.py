"""Rate limits per API key (docs/api.md#rate-limits), in one process and shared through Redis."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings

from assistant_api.throttling import RATE_LIMITED, client_address, parse_rate

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()


@override_settings(RATE_LIMIT_PER_KEY="3/min")
def test_key_over_its_limit_gets_429_with_retry_after(tenant, other_tenant):
    statuses = [tenant.client.get("/v1/chats/x").status_code for _ in range(4)]
    assert statuses == [404, 404, 404, 429]
    response = tenant.client.get("/v1/chats/x")
    assert response.json() == {"message": RATE_LIMITED}
    assert 1 <= int(response["Retry-After"]) <= 60
    # Another key has its own budget.
    assert other_tenant.client.get("/v1/chats/x").status_code == 404


@override_settings(RATE_LIMIT_PER_KEY="off")
def test_off_disables_the_limit(tenant):
    assert {tenant.client.get("/v1/chats/x").status_code for _ in range(20)} == {404}


def test_requests_without_a_key_are_not_counted_against_anyone(anonymous):
    with override_settings(RATE_LIMIT_PER_KEY="1/min"):
        assert {anonymous.get("/v1/chats/x").status_code for _ in range(3)} == {401}


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("600/min", (600, 60)),
        ("10/s", (10, 1)),
        ("1000/hour", (1000, 3600)),
        ("5/10s", (5, 10)),
        ("2/day", (2, 86400)),
        ("7/minute", (7, 60)),
    ],
)
def test_parse_rate(text, rate):
    parsed = parse_rate(text)
    assert (parsed.requests, parsed.seconds) == rate


@pytest.mark.parametrize("text", ["off", "", "OFF"])
def test_parse_rate_off(text):
    assert parse_rate(text) is None


@pytest.mark.parametrize("text", ["fast", "10", "10/fortnight", "-1/min"])
def test_bad_rates_are_refused(text):
    with pytest.raises(ValueError):
        parse_rate(text)


def test_client_address_behind_trusted_proxy(rf):
    request = rf.get(
        "/", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.7, 10.0.0.4"
    )
    with override_settings(TRUSTED_PROXIES=["10.0.0.0/8"]):
        assert client_address(request) == "198.51.100.7"
    with override_settings(TRUSTED_PROXIES=[]):
        assert client_address(request) == "10.0.0.5"
    spoofed = rf.get("/", REMOTE_ADDR="203.0.113.50", HTTP_X_FORWARDED_FOR="1.2.3.4")
    with override_settings(TRUSTED_PROXIES=["10.0.0.0/8"]):
        assert client_address(spoofed) == "203.0.113.50"
