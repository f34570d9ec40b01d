"""Which refused keys count against an address (accounts/failed_auth.py); the limit itself is
tested through the real server in test_failed_auth_server.py."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings

from accounts import failed_auth
from accounts.authentication import INVALID_KEY, REVOKED_KEY
from accounts.failed_auth import TOO_MANY_FAILURES
from accounts.services import api_key_revoke

pytestmark = pytest.mark.django_db

UNKNOWN_KEY = "sk_stag_ffffffff_" + "x" * 43


@pytest.fixture(autouse=True)
def fresh_counts():
    cache.clear()
    failed_auth._blocked.clear()
    yield
    failed_auth._blocked.clear()


@override_settings(RATE_LIMIT_FAILED_AUTH="2/min")
def test_a_revoked_key_is_no_guess_and_does_not_count(tenant, anonymous):
    api_key_revoke(prefix=tenant.api_key.prefix)
    revoked = [tenant.client.get("/v1/chats/x") for _ in range(5)]
    assert {r.status_code for r in revoked} == {401}
    assert {r.json()["message"] for r in revoked} == {REVOKED_KEY}
    # Guesses from the same address are counted from the first.
    guesses = [anonymous.get("/v1/chats/x", HTTP_X_API_KEY=UNKNOWN_KEY) for _ in range(3)]
    assert [r.status_code for r in guesses] == [401, 401, 429]
    assert guesses[0].json() == {"message": INVALID_KEY}
    assert guesses[2].json() == {"message": TOO_MANY_FAILURES}


@override_settings(RATE_LIMIT_FAILED_AUTH="2/min")
def test_a_request_without_a_key_does_not_count(anonymous, tenant):
    assert {anonymous.get("/v1/chats/x").status_code for _ in range(5)} == {401}
    assert tenant.client.get("/v1/chats/x").status_code == 404
