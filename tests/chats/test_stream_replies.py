"""Real replies of `POST .../messages` followed on the event stream (docs/api.md#events-of-a-reply).

The server runs the catalog engine on the demo shop with a typing pace
(`ASSISTANT_STREAM_CHUNK_DELAY_MS`), so a reply takes long enough to be watched live.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from django.db import connection

from chats.models import Event
from tests.chats.stream_client import StreamReader, payloads
from tests.knowledge.assistant_shops import DEMO_FILES, Shop, shop_import
from tests.server import LiveServer, start_server

pytestmark = [
    pytest.mark.e2e,
]
PACE_MS = "250"
# SQLite is polled: a short interval keeps delivery well within the reply's time.
POLL_SECONDS = "0.1"
QUESTION = "Show me phones under 300"


@pytest.fixture(scope="module")
def paced_server(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    with (
        django_db_blocker.unblock(),
        start_server(
            ASSISTANT_STREAM_CHUNK_DELAY_MS=PACE_MS, SSE_POLL_SECONDS=POLL_SECONDS
        ) as server,
    ):
        yield server


@pytest.fixture
def shop(transactional_db) -> Shop:
    return shop_import("Stream Shop", DEMO_FILES)


def new_chat(server: LiveServer, shop: Shop) -> str:
    with server.client(headers={"x-api-key": shop.key}) as client:
        response = client.post("/v1/chats", json={"chatbotId": str(shop.chatbot.id)})
    assert response.status_code == 201
    return response.json()["id"]


def post_message(server: LiveServer, shop: Shop, chat_id: str) -> httpx.Response:
    with server.client(headers={"x-api-key": shop.key}) as client:
        return client.post(
            f"/v1/chats/{chat_id}/messages",
            json={"message": QUESTION, "currentUrl": "https://demo-shop.example/"},
        )


class PostInBackground:
    """Sends the message from another thread, noting when the reply came back."""

    def __init__(self, server: LiveServer, shop: Shop, chat_id: str) -> None:
        self.response: httpx.Response | None = None
        self.returned_at = float("inf")
        self._thread = threading.Thread(target=self._run, args=(server, shop, chat_id))
        self._thread.start()

    def _run(self, server, shop, chat_id) -> None:
        self.response = post_message(server, shop, chat_id)
        self.returned_at = time.monotonic()

    def join(self) -> httpx.Response:
        self._thread.join(60)
        assert self.response is not None
        return self.response


def is_final(payload: dict) -> bool:
    return payload["status"] != "inProgress" and "toolName" not in payload


def assert_is_one_reply(data: list[dict], reply: dict) -> None:
    """The shape of docs/api.md#events-of-a-reply, ending with the stored reply."""
    assert data[0]["status"] == "inProgress"
    assert "toolName" not in data[0] and "content" not in data[0]
    tools = [d for d in data[1:-1] if "toolName" in d]
    assert tools, "the catalog engine searches for products"
    for started, finished in zip(tools[::2], tools[1::2], strict=True):
        assert (started["status"], finished["status"]) == ("inProgress", "completed")
        assert started["toolName"] == finished["toolName"]
        assert started["toolArgs"] == finished["toolArgs"]
        assert "toolResponse" in finished
    chunks = [d for d in data[1:-1] if "toolName" not in d]
    assert len(chunks) >= 2 and all(d["status"] == "inProgress" for d in chunks)
    assert data[-1]["status"] == "completed" and "toolName" not in data[-1]
    assert "".join(d["content"] for d in chunks) == data[-1]["content"] == reply["content"]


def test_reply_events_arrive_live_before_the_post_returns(paced_server, shop):
    chat_id = new_chat(paced_server, shop)
    url = f"{paced_server.url}/v1/chats/{chat_id}/messages/events"
    with StreamReader(url, {"x-api-key": shop.key}) as reader:
        post = PostInBackground(paced_server, shop, chat_id)
        first = reader.events(1)
        first_at = time.monotonic()
        rest = reader.events_until(is_final)
        response = post.join()

    assert response.status_code == 201
    # The typing event was on the stream while the reply was still being written.
    assert first_at < post.returned_at
    events = first + rest
    assert [int(e.id) for e in events] == sorted(int(e.id) for e in events)
    assert_is_one_reply(payloads(events), response.json())
    stored = list(Event.objects.filter(chat_id=chat_id).order_by("seq"))
    assert [e.id for e in events] == [str(event.seq) for event in stored]


def test_a_stream_opened_right_after_the_post_gets_the_whole_reply(paced_server, shop):
    chat_id = new_chat(paced_server, shop)
    response = post_message(paced_server, shop, chat_id)
    assert response.status_code == 201
    url = f"{paced_server.url}/v1/chats/{chat_id}/messages/events"
    with StreamReader(url, {"x-api-key": shop.key}) as reader:
        events = reader.events_until(is_final)
        assert reader.quiet_for(0.5) == []
    assert_is_one_reply(payloads(events), response.json())


def test_reconnecting_in_the_middle_of_a_reply_misses_and_repeats_nothing(paced_server, shop):
    chat_id = new_chat(paced_server, shop)
    url = f"{paced_server.url}/v1/chats/{chat_id}/messages/events"
    headers = {"x-api-key": shop.key}
    # Given a client that saw the reply start, then lost its connection mid-reply
    with StreamReader(url, headers) as reader:
        post = PostInBackground(paced_server, shop, chat_id)
        before = reader.events_until(lambda d: "content" in d and d["status"] == "inProgress")
    assert post.response is None, "the reply should still be being written"

    # When it reconnects with the last id it saw
    with StreamReader(url, {**headers, "Last-Event-ID": before[-1].id}) as reader:
        after = reader.events_until(is_final)
        assert reader.quiet_for(0.5) == []
    response = post.join()

    # Then together they are the reply, each event once
    events = before + after
    assert len({e.id for e in events}) == len(events)
    assert_is_one_reply(payloads(events), response.json())
    stored = Event.objects.filter(chat_id=chat_id).order_by("seq")
    assert [e.id for e in events] == [str(event.seq) for event in stored]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="several servers on one database is a PostgreSQL deployment (LISTEN/NOTIFY)",
)
def test_a_message_posted_through_one_server_is_streamed_by_another(paced_server, shop):
    chat_id = new_chat(paced_server, shop)
    with start_server() as other:
        url = f"{other.url}/v1/chats/{chat_id}/messages/events"
        with StreamReader(url, {"x-api-key": shop.key}) as reader:
            post = PostInBackground(paced_server, shop, chat_id)
            first_at = (reader.events(1), time.monotonic())
            events = first_at[0] + reader.events_until(is_final)
            response = post.join()
    assert first_at[1] < post.returned_at
    assert_is_one_reply(payloads(events), response.json())
