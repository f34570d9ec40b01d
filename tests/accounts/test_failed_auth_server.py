"""Refused API keys limited per client address, and an unknown key prefix answered in the time
a known prefix with a wrong secret is, against the real server."""

from __future__ import annotations

import secrets
import statistics
import time

import pytest

from accounts.authentication import INVALID_KEY
from accounts.client_tokens import TOKEN_EXPIRED, TOKEN_INVALID, client_token_mint
from accounts.failed_auth import TOO_MANY_FAILURES
from tests.conftest import make_tenant
from tests.factories import ChatFactory
from tests.server import start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GUESSER = {"X-Forwarded-For": "203.0.113.5"}
NEIGHBOUR = {"X-Forwarded-For": "203.0.113.6"}
# Addresses of each run's own: with REDIS_URL, a run's counts outlive it for a minute.
TOKEN_GUESSER = {"X-Forwarded-For": f"2001:db8::{secrets.token_hex(2)}:1"}
TOKEN_NEIGHBOUR = {"X-Forwarded-For": f"2001:db8::{secrets.token_hex(2)}:2"}
UNKNOWN_PREFIX_KEY = "sk_stag_ffffffff_" + "x" * 43


def test_refused_keys_over_the_limit_are_429_for_that_address_only():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    path = f"/v1/chats/{chat.id}"
    wrong_secret = tenant.api_key.prefix + "_" + "y" * 43
    env = {"RATE_LIMIT_FAILED_AUTH": "5/min", "TRUSTED_PROXIES": "127.0.0.1"}
    with start_server(**env) as server, server.client() as client:
        guesses = [
            client.get(path, headers={**GUESSER, "x-api-key": key}).status_code
            for key in [UNKNOWN_PREFIX_KEY, wrong_secret] * 3
        ]
        assert guesses == [401] * 5 + [429]
        # Over the limit, even a valid key from that address is refused before its lookup,
        refused = client.get(path, headers={**GUESSER, "x-api-key": tenant.key})
        assert refused.status_code == 429
        assert refused.json() == {"message": TOO_MANY_FAILURES}
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        # on every endpoint, the event stream too,
        stream = client.get(f"{path}/messages/events", headers={**GUESSER, "x-api-key": "k"})
        assert stream.status_code == 429
        # while another address behind the same proxy is served as usual.
        assert client.get(path, headers={**NEIGHBOUR, "x-api-key": tenant.key}).status_code == 200
        wrong = client.get(path, headers={**NEIGHBOUR, "x-api-key": UNKNOWN_PREFIX_KEY})
        assert wrong.status_code == 401 and wrong.json() == {"message": INVALID_KEY}


def test_an_unknown_prefix_takes_as_long_as_a_known_prefix_with_a_wrong_secret():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    path = f"/v1/chats/{chat.id}"
    keys = {
        "unknown prefix": UNKNOWN_PREFIX_KEY,
        "known prefix": tenant.api_key.prefix + "_" + "y" * 43,
    }
    times: dict[str, list[float]] = {name: [] for name in keys}
    # The production default: the worker keeps key rows half a second.
    with start_server(API_KEY_CACHE_SECONDS="0.5") as server, server.client() as client:
        for round_ in range(400):  # interleaved, so load on the machine hits both alike
            for name, key in keys.items():
                sent = time.perf_counter()
                assert client.get(path, headers={"x-api-key": key}).status_code == 401
                if round_ >= 20:  # after the warm-up
                    times[name].append(time.perf_counter() - sent)
    unknown, known = (statistics.median(times[name]) for name in keys)
    # Before, an unknown prefix was read from the database on every request while a known
    # one came from the worker's cache: 2-3 times as long on this machine.
    assert max(unknown, known) / min(unknown, known) < 1.3, (unknown, known)


def test_a_never_seen_prefix_takes_as_long_as_the_prefix_of_a_key_in_use():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    path = f"/v1/chats/{chat.id}"
    wrong_secret = tenant.api_key.prefix + "_" + "y" * 43
    times: dict[str, list[float]] = {"never seen": [], "in use": []}
    env = {"API_KEY_CACHE_SECONDS": "0.5", "RATE_LIMIT_FAILED_AUTH": "off"}
    with start_server(**env) as server, server.client() as client:
        for round_ in range(150):
            # Given a key in use (its row kept warm in the worker's cache by its traffic)
            assert client.get(path, headers={"x-api-key": tenant.key}).status_code == 200
            # When a wrong secret is sent for its prefix, and a key of a prefix never seen
            for name, key in (
                ("in use", wrong_secret),
                ("never seen", f"sk_stag_{secrets.token_hex(4)}_" + "x" * 43),
            ):
                sent = time.perf_counter()
                assert client.get(path, headers={"x-api-key": key}).status_code == 401
                if round_ >= 10:  # after the warm-up
                    times[name].append(time.perf_counter() - sent)
    never_seen, in_use = (statistics.median(times[name]) for name in times)
    # Then both take about as long: without the floor of FAILED_AUTH_MIN_SECONDS on a refused
    # key, the never-seen prefix's query made it 1.5-3 times as long as the cached one.
    assert max(never_seen, in_use) / min(never_seen, in_use) < 1.2, (never_seen, in_use)


def test_forged_client_tokens_count_as_refused_keys_and_expired_ones_do_not():
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    path = f"/v1/chats/{chat.id}"
    real = client_token_mint(api_key=tenant.api_key, chat_id=chat.id, ttl_seconds=3600).token
    expired = client_token_mint(api_key=tenant.api_key, chat_id=chat.id, ttl_seconds=-5).token
    altered = real[:-4] + ("AAAA" if not real.endswith("AAAA") else "BBBB")
    env = {"RATE_LIMIT_FAILED_AUTH": "4/min", "TRUSTED_PROXIES": "127.0.0.1"}
    with start_server(**env) as server, server.client() as client:
        # Given a tab whose genuine token expired: refused, as often as it asks, never limited
        for _ in range(6):
            stale = client.get(
                path, headers={**TOKEN_GUESSER, "Authorization": f"Bearer {expired}"}
            )
            assert stale.status_code == 401 and stale.json() == {"message": TOKEN_EXPIRED}
        # When that address sends tokens the service did not sign, in a header or the query
        statuses = [
            client.get(
                path, headers={**TOKEN_GUESSER, "Authorization": f"Bearer {token}"}
            ).status_code
            for token in (altered, "ct_made-up", altered)
        ]
        forged_stream = client.get(f"{path}/messages/events?token=ct_x", headers=TOKEN_GUESSER)
        assert [*statuses, forged_stream.status_code] == [401, 401, 401, 401]
        assert forged_stream.json() == {"message": TOKEN_INVALID}
        # Then its next forgery is over the limit, and so is its valid token, on every path,
        over = client.get(path, headers={**TOKEN_GUESSER, "Authorization": f"Bearer {altered}"})
        assert over.status_code == 429 and over.json() == {"message": TOO_MANY_FAILURES}
        valid = client.get(path, headers={**TOKEN_GUESSER, "Authorization": f"Bearer {real}"})
        assert valid.status_code == 429 and 1 <= int(valid.headers["Retry-After"]) <= 60
        stream = client.get(f"{path}/messages/events?token={real}", headers=TOKEN_GUESSER)
        assert stream.status_code == 429
        ui_chat = client.post(
            "/v1/ui/chat",
            json={"id": str(chat.id), "messages": [], "trigger": "submit-message"},
            headers={**TOKEN_GUESSER, "Authorization": f"Bearer {real}"},
        )
        assert ui_chat.status_code == 429
        # while the same token from another address is served as usual.
        mine = client.get(path, headers={**TOKEN_NEIGHBOUR, "Authorization": f"Bearer {real}"})
        assert mine.status_code == 200
