"""History pages kept in Redis until the chat's next message (chats/history_cache.py)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator

import httpx
import pytest
import redis
from django.db import transaction
from django.test.utils import override_settings

from chats.history_cache import (
    MAX_PAGES_PER_CHAT,
    cached_page,
    history_changed,
    history_maybe_changed,
    page_store,
)
from tests.conftest import make_tenant
from tests.factories import ChatbotFactory, ChatFactory, MessageFactory
from tests.server import free_port, redis_server, start_server

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server(free_port()) as url:
        yield url


@pytest.fixture
def cache_on(redis_url) -> Iterator[redis.Redis]:
    """The history cache on a private, empty Redis; yields a client to look inside."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    with override_settings(REDIS_URL=redis_url, HISTORY_CACHE_SECONDS=60):
        yield client


def history(client, chat_id, **params) -> dict:
    response = client.get(f"/v1/chats/{chat_id}/messages", params)
    assert response.status_code == 200, response.content
    return response.json()


def say(client, chat_id, text: str, **headers):
    return client.post(
        f"/v1/chats/{chat_id}/messages",
        {"message": text, "currentUrl": "https://shop.example/"},
        format="json",
        **headers,
    )


def test_a_read_page_is_kept_and_served_until_the_next_message(cache_on):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory.create_batch(3, chat=chat)

    first = history(tenant.client, chat.id, size=2)
    kept = cache_on.hgetall(f"history:{chat.id}")
    # A message written behind the service's back (as a test factory does) shows that the
    # next read is the kept page, not the database.
    MessageFactory(chat=chat)
    again = history(tenant.client, chat.id, size=2)

    assert set(kept) == {b"gen", b"1:2"}
    assert again == first and first["totalItems"] == 3


def test_a_message_sent_through_the_api_is_in_the_next_read(cache_on):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    before = history(tenant.client, chat.id)
    history(tenant.client, chat.id, page=2, size=1)

    response = say(tenant.client, chat.id, "Do you have gift cards?")
    after = history(tenant.client, chat.id)

    assert response.status_code == 201, response.content
    assert before["totalItems"] == 0
    assert [(m["type"], m["content"]) for m in after["items"]] == [
        ("user", "Do you have gift cards?"),
        ("answer", response.json()["content"]),
    ]
    assert history(tenant.client, chat.id, page=2, size=1)["items"][0]["type"] == "answer"


def test_a_page_read_before_a_message_is_never_kept_after_it(cache_on):
    chat = ChatFactory()
    # A reader misses and reads the database; meanwhile a message is committed.
    missed = cached_page(chat.id, page=1, size=20)
    with transaction.atomic():
        history_changed(chat.id)
        # Not before the message is committed: until then the old pages are still right.
        assert cache_on.hget(f"history:{chat.id}", "gen") == missed.gen
    page_store(missed, b"the page without the message")

    assert cached_page(chat.id, page=1, size=20).body is None
    # A reader that starts after the message keeps its page.
    fresh = cached_page(chat.id, page=1, size=20)
    page_store(fresh, b"the page with the message")
    assert cached_page(chat.id, page=1, size=20).body == b"the page with the message"


def test_a_page_read_before_a_message_is_not_kept_when_redis_lost_the_chat(cache_on):
    chat = ChatFactory()
    missed = cached_page(chat.id, page=1, size=20)
    history_changed(chat.id)
    cache_on.delete(f"history:{chat.id}")  # evicted, or Redis restarted

    page_store(missed, b"the page without the message")

    assert cache_on.exists(f"history:{chat.id}") == 0


def test_a_message_is_in_pages_cached_before_even_when_its_reply_fails(cache_on, settings):
    settings.ASSISTANT_ENGINES = {"failing": "tests.chats.engines.BrokenEngine"}
    tenant = make_tenant()
    chatbot = ChatbotFactory(organization=tenant.organization, engine="failing")
    unkeyed, keyed = ChatFactory(chatbot=chatbot), ChatFactory(chatbot=chatbot)
    for chat in (unkeyed, keyed):
        history(tenant.client, chat.id)  # cached, empty

    # Without a key (one statement on PostgreSQL) and with one (a transaction)
    failed = [
        say(tenant.client, unkeyed.id, "laptops"),
        say(tenant.client, keyed.id, "laptops", HTTP_IDEMPOTENCY_KEY="k-1"),
    ]

    assert [response.status_code for response in failed] == [503, 503]
    for chat in (unkeyed, keyed):
        assert [m["type"] for m in history(tenant.client, chat.id)["items"]] == ["user"]


def test_an_invalidation_after_redis_dropped_its_connections_still_lands(cache_on):
    chat = ChatFactory()
    history_maybe_changed(chat.id)  # the writers' connection, now in its pool
    page_store(cached_page(chat.id, page=1, size=20), b"the page before")
    cache_on.client_kill_filter(_type="normal", skipme=True)  # as a Redis restart would

    history_maybe_changed(chat.id)

    after = cached_page(chat.id, page=1, size=20)
    assert after is not None and after.body is None


def test_a_chat_keeps_a_bounded_number_of_pages_for_a_bounded_time(cache_on):
    chat = ChatFactory()
    with override_settings(HISTORY_CACHE_SECONDS=2):
        for size in range(1, 41):
            page_store(cached_page(chat.id, page=1, size=size), b"{}")
            if size == 1:
                time.sleep(1.1)
    key = f"history:{chat.id}"

    assert cache_on.hlen(key) == MAX_PAGES_PER_CHAT + 1  # and the token
    # Its expiry counts from the first page: later pages do not extend it.
    assert 0 < cache_on.pttl(key) <= 900


def test_off_keeps_nothing(cache_on):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    with override_settings(HISTORY_CACHE_SECONDS=0):
        history(tenant.client, chat.id)
        say(tenant.client, chat.id, "hello")
        after = history(tenant.client, chat.id)

    assert after["totalItems"] == 2
    assert cache_on.keys("history:*") == []


@pytest.mark.e2e
def test_servers_sharing_redis_see_each_others_messages(redis_url):
    tenant = make_tenant()
    headers = {"x-api-key": tenant.key}
    with (
        start_server(REDIS_URL=redis_url) as reader,
        start_server(REDIS_URL=redis_url) as writer,
        httpx.Client(base_url=reader.url, headers=headers, timeout=30) as reads,
        httpx.Client(base_url=writer.url, headers=headers, timeout=30) as writes,
    ):
        chat_id = writes.post("/v1/chats", json={"chatbotId": str(tenant.chatbot.id)}).json()["id"]
        pages = f"/v1/chats/{chat_id}/messages"
        assert reads.get(pages).json()["totalItems"] == 0
        assert redis.Redis.from_url(redis_url).hexists(f"history:{chat_id}", "1:20")

        sent = writes.post(pages, json={"message": "hi", "currentUrl": "https://shop.example/"})
        after = reads.get(pages).json()

    assert sent.status_code == 201
    assert [m["type"] for m in after["items"]] == ["user", "answer"]


@pytest.mark.e2e
def test_without_redis_history_is_read_from_the_database():
    tenant = make_tenant()
    headers = {"x-api-key": tenant.key}
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    with (
        start_server(REDIS_URL=unreachable) as server,
        httpx.Client(base_url=server.url, headers=headers, timeout=30) as client,
    ):
        chat_id = client.post("/v1/chats", json={"chatbotId": str(tenant.chatbot.id)}).json()["id"]
        pages = f"/v1/chats/{chat_id}/messages"
        before = client.get(pages)
        sent = client.post(pages, json={"message": "hi", "currentUrl": "https://shop.example/"})
        after = client.get(pages)

    assert before.status_code == 200 and before.json()["totalItems"] == 0
    assert sent.status_code == 201
    assert after.status_code == 200 and after.json()["totalItems"] == 2


def test_feedback_drops_the_kept_pages_like_a_message_does(cache_on):
    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    reply = MessageFactory(chat=chat, type="answer")
    feedback_url = f"/v1/chats/{chat.id}/messages/{reply.uuid}/feedback"
    assert history(tenant.client, chat.id)["items"][0]["feedback"] is None
    assert cache_on.hlen(f"history:{chat.id}") == 2  # the token and the page

    tenant.client.put(feedback_url, {"rating": "up"}, format="json")
    assert history(tenant.client, chat.id)["items"][0]["feedback"]["rating"] == "up"

    tenant.client.delete(feedback_url)
    assert history(tenant.client, chat.id)["items"][0]["feedback"] is None


def test_an_erased_shoppers_cached_pages_are_never_served_again(cache_on):
    from django.core.management import call_command

    tenant = make_tenant()
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, content="My phone number is 555-0100")
    assert history(tenant.client, chat.id)["totalItems"] == 1  # read once: the page is kept
    assert cache_on.exists(f"history:{chat.id}")

    call_command("erase_user", str(tenant.organization.pk), str(chat.user_id), "--json")

    assert not cache_on.exists(f"history:{chat.id}")
    response = tenant.client.get(f"/v1/chats/{chat.id}/messages")
    # The worker may still know the chat for CHAT_CACHE_SECONDS, never its messages.
    assert response.status_code == 404 or response.json()["items"] == []
    assert b"555-0100" not in response.content
