"""Client tokens on the real server: `?token=` on the event stream, kept out of the access
log, and a token whose minting key is revoked refused within a second by every worker."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from accounts.services import api_key_revoke
from chats.events import EventPublisher
from tests.chats.stream_client import StreamReader
from tests.factories import ChatFactory
from tests.server import start_server

pytestmark = pytest.mark.e2e


@pytest.fixture
def chat(transactional_db, tenant):
    return ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)


def mint(server, tenant, chat) -> str:
    response = httpx.post(
        f"{server.url}/v1/chats/{chat.id}/client-tokens", headers={"x-api-key": tenant.key}
    )
    assert response.status_code == 201
    return response.json()["token"]


def test_an_event_source_opens_the_stream_with_the_token_in_the_query(tenant, chat, tmp_path):
    log = tmp_path / "server.log"
    with start_server(log_path=log, ACCESS_LOG="1", SSE_POLL_SECONDS="0.1") as server:
        token = mint(server, tenant, chat)
        url = f"{server.url}/v1/chats/{chat.id}/messages/events?token={token}"
        origin = {"Origin": "https://shop.example"}
        with StreamReader(url, origin) as reader:
            EventPublisher(chat_id=chat.id).typing()
            (event,) = reader.events(1)
        assert json.loads(event.data)["chatId"] == str(chat.id)
        assert reader.response_headers["access-control-allow-origin"] == "https://shop.example"
    written = log.read_text()
    assert f"/v1/chats/{chat.id}/messages/events?token=[redacted]" in written
    assert token not in written
    assert token.removeprefix("ct_") not in written


def test_revoking_the_minting_key_ends_its_tokens_within_a_second(tenant, chat):
    # Two workers, each with its own key cache at the production default (tests turn it off).
    with start_server(WEB_CONCURRENCY="2", API_KEY_CACHE_SECONDS="0.5") as server:
        token = mint(server, tenant, chat)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.url, headers=headers) as client:
            for _ in range(10):  # both workers read (and cache) the key
                assert client.get(f"/v1/chats/{chat.id}").status_code == 200
            api_key_revoke(prefix=tenant.api_key.prefix)
            time.sleep(1.05)  # the bound, and a timer's slack
            statuses = {client.get(f"/v1/chats/{chat.id}").status_code for _ in range(10)}
    assert statuses == {401}


def test_a_tokens_requests_count_against_its_minting_keys_rate_limit(tenant, chat):
    with start_server(RATE_LIMIT_PER_KEY="4/min") as server:
        token = mint(server, tenant, chat)  # the key's first request
        with httpx.Client(base_url=server.url) as client:
            by_key = client.get(f"/v1/chats/{chat.id}", headers={"x-api-key": tenant.key})
            bearer = {"Authorization": f"Bearer {token}"}
            by_token = [client.get(f"/v1/chats/{chat.id}", headers=bearer) for _ in range(3)]
    assert by_key.status_code == 200
    assert [r.status_code for r in by_token] == [200, 200, 429]
    assert by_token[-1].json() == {"message": "Rate limit exceeded"}
    assert int(by_token[-1].headers["Retry-After"]) >= 1
