"""The event stream's protocol (docs/api.md#event-stream), read from the real gunicorn + gevent
server.

Events are produced with `EventPublisher`, the code path the assistant publishes through;
tests/chats/test_stream_replies.py follows real replies of `POST .../messages`.
"""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import httpx
import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts.authentication import INVALID_KEY, MISSING_KEY
from chats.events import EventPublisher
from chats.models import Event
from chats.selectors import CHAT_NOT_FOUND
from tests.chats.stream_client import StreamReader, payloads
from tests.factories import ChatFactory

pytestmark = pytest.mark.e2e

PATHS = ["/v1/chats/{}/messages/events", "/v1/chats/{}/events"]


def stream_url(live, chat, path=PATHS[0]) -> str:
    return live.url + path.format(chat.id)


def publish_reply(chat, text_chunks: list[str], *, buffered: bool = False) -> list[Event]:
    """The events of one reply with one tool call, as an engine publishes them."""
    publisher = EventPublisher(chat_id=chat.id, buffered=buffered)
    events = [publisher.typing()]
    args = {"query": "rain jacket"}
    events.append(publisher.tool_started("search_products", args))
    events.append(publisher.tool_finished("search_products", args, {"products": []}))
    events += [publisher.chunk(text) for text in text_chunks]
    events.append(publisher.completed("".join(text_chunks)))
    return events


def is_final(payload: dict) -> bool:
    return payload["status"] != "inProgress" and "toolName" not in payload


@pytest.mark.parametrize(
    ("path", "buffered"), [(PATHS[0], False), (PATHS[1], False), (PATHS[0], True)]
)
def test_stream_sends_a_reply_framed_in_commit_order(live, tenant, path, buffered):
    # Given an open stream on a chat
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    with StreamReader(stream_url(live, chat, path), {"x-api-key": tenant.key}) as reader:
        # When a reply is published (live, or written whole as the catalog engine does)
        published = publish_reply(chat, ["Our ", "rain jackets ", "are here."], buffered=buffered)

        # Then every event arrives once, in order, with id = eventId
        received = reader.events_until(is_final)
    assert reader.status_code == 200
    assert reader.retry == 3000
    assert reader.response_headers["content-type"] == "text/event-stream"
    assert reader.response_headers["cache-control"] == "no-cache"
    assert reader.response_headers["x-accel-buffering"] == "no"
    assert "content-encoding" not in reader.response_headers
    assert [event.id for event in received] == [str(event.seq) for event in published]
    assert all(event.event == "message" for event in received)  # no `event:` line
    data = payloads(received)
    assert data[0] == {"chatId": str(chat.id), "eventId": received[0].id, "status": "inProgress"}
    assert data[1]["toolName"] == "search_products"
    assert data[1]["toolArgs"] == {"query": "rain jacket"}
    assert "toolResponse" not in data[1]
    assert data[2]["status"] == "completed"
    assert data[2]["toolResponse"] == {"products": []}
    chunks = [d["content"] for d in data[3:-1]]
    assert all(d["status"] == "inProgress" and "toolName" not in d for d in data[3:-1])
    assert data[-1] == {
        "chatId": str(chat.id),
        "eventId": received[-1].id,
        "status": "completed",
        "content": "".join(chunks),
    }
    assert "".join(chunks) == "Our rain jackets are here."


def test_raw_framing_is_retry_then_id_and_data_lines(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    with StreamReader(stream_url(live, chat), {"x-api-key": tenant.key}, raw=True) as reader:
        first = reader.items.get(timeout=10)
        events = publish_reply(chat, ["line one\nline two"])
        raw = first
        while raw.count(b"\n\n") < 1 + len(events):
            raw += reader.items.get(timeout=10)

    text = raw.decode()
    assert text.startswith("retry: 3000\n\n")
    blocks = text.removeprefix("retry: 3000\n\n").split("\n\n")
    assert blocks[-1] == ""  # every event ends with a blank line
    for block, event in zip(blocks[:-1], events, strict=True):
        id_line, data_line = block.split("\n")  # exactly two lines, data on one line
        assert id_line == f"id: {event.seq}"
        assert json.loads(data_line.removeprefix("data: "))["eventId"] == str(event.seq)
    assert "event:" not in text
    assert json.loads(blocks[3].split("\n")[1][6:])["content"] == "line one\nline two"


def test_events_of_other_chats_are_never_sent(live, tenant, other_tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    neighbour = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    foreign = ChatFactory(organization=other_tenant.organization, chatbot=other_tenant.chatbot)
    with StreamReader(stream_url(live, chat), {"x-api-key": tenant.key}) as reader:
        publish_reply(neighbour, ["not ", "yours"])
        publish_reply(foreign, ["nor ", "this"])
        mine = publish_reply(chat, ["yours"])
        received = reader.events_until(is_final)
        assert reader.quiet_for(0.5) == []
    assert [event.id for event in received] == [str(event.seq) for event in mine]
    assert {d["chatId"] for d in payloads(received)} == {str(chat.id)}


def test_resume_mid_reply_with_last_event_id_misses_and_repeats_nothing(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id)
    url = stream_url(live, chat)
    # Given a client that saw the first half of a reply, then lost its connection
    with StreamReader(url, {"x-api-key": tenant.key}) as reader:
        first_half = [publisher.typing(), publisher.chunk("Hello "), publisher.chunk("there, ")]
        seen = reader.events(3)
    assert [e.id for e in seen] == [str(e.seq) for e in first_half]
    second_half = [publisher.chunk("how can "), publisher.chunk("I help?")]

    # When it reconnects with Last-Event-ID while the reply goes on
    with StreamReader(url, {"x-api-key": tenant.key, "Last-Event-ID": seen[-1].id}) as reader:
        second_half.append(publisher.completed("Hello there, how can I help?"))
        resumed = reader.events_until(is_final)
        assert reader.quiet_for(0.5) == []

    # Then it gets exactly the rest, in order
    assert [e.id for e in resumed] == [str(e.seq) for e in second_half]
    chunks = [
        d["content"]
        for d in payloads(seen + resumed)
        if d["status"] == "inProgress" and "content" in d
    ]
    assert "".join(chunks) == payloads(resumed)[-1]["content"]


def test_resume_with_the_last_event_id_query_parameter(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    events = publish_reply(chat, ["a", "b", "c"])
    url = stream_url(live, chat) + f"?lastEventId={events[2].seq}"
    with StreamReader(url, {"x-api-key": tenant.key}) as reader:
        resumed = reader.events_until(is_final)
        assert reader.quiet_for(0.3) == []
    assert [e.id for e in resumed] == [str(e.seq) for e in events[3:]]


def test_header_wins_over_query_parameter(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    events = publish_reply(chat, ["a", "b"])
    url = stream_url(live, chat) + f"?lastEventId={events[0].seq}"
    headers = {"x-api-key": tenant.key, "Last-Event-ID": str(events[3].seq)}
    with StreamReader(url, headers) as reader:
        resumed = reader.events_until(is_final)
    assert [e.id for e in resumed] == [str(e.seq) for e in events[4:]]


def test_any_event_id_resumes_with_leading_zeros_up_to_the_largest(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    events = publish_reply(chat, ["a", "b"])
    url = stream_url(live, chat)
    padded = str(events[2].seq).zfill(20)
    with StreamReader(url, {"x-api-key": tenant.key, "Last-Event-ID": padded}) as reader:
        resumed = reader.events_until(is_final)
    assert [e.id for e in resumed] == [str(e.seq) for e in events[3:]]
    # The largest id an event can have: nothing follows it.
    with StreamReader(url, {"x-api-key": tenant.key, "Last-Event-ID": str(2**63 - 1)}) as reader:
        assert reader.quiet_for(0.5) == []
    with httpx.Client(timeout=10) as client:
        beyond = client.get(url, headers={"x-api-key": tenant.key, "Last-Event-ID": str(2**63)})
    assert beyond.status_code == 422 and "lastEventId" in beyond.json()["errors"]


def test_new_stream_first_sends_the_last_30_seconds(live, tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    old = publish_reply(chat, ["old reply"])
    Event.objects.filter(seq__in=[e.seq for e in old]).update(
        created_at=timezone.now() - timedelta(seconds=31)
    )
    # A reply that finished just before the client opened the stream
    recent = publish_reply(chat, ["just ", "sent"])
    with StreamReader(stream_url(live, chat), {"x-api-key": tenant.key}) as reader:
        replayed = reader.events_until(is_final)
        assert reader.quiet_for(0.3) == []
        live_event = EventPublisher(chat_id=chat.id).typing()
        assert [e.id for e in reader.events(1)] == [str(live_event.seq)]
    assert [e.id for e in replayed] == [str(e.seq) for e in recent]


def test_concurrent_replies_in_one_chat_arrive_exactly_once(live, tenant):
    # Two replies publishing at once take interleaved sequence numbers whose transactions
    # may commit out of order: the stream still sends each event once, none missing.
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    per_writer = 40
    published: dict[int, list[int]] = {}

    def write(writer: int) -> None:
        try:
            publisher = EventPublisher(chat_id=chat.id)
            published[writer] = [publisher.chunk(f"{writer}-{i}").seq for i in range(per_writer)]
        finally:
            connection.close()

    with StreamReader(stream_url(live, chat), {"x-api-key": tenant.key}) as reader:
        writers = [threading.Thread(target=write, args=(n,)) for n in range(3)]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        received = [int(e.id) for e in reader.events(3 * per_writer)]
        assert reader.quiet_for(0.5) == []
    assert sorted(received) == sorted(seq for seqs in published.values() for seq in seqs)
    for seqs in published.values():  # each writer's own events stay in its commit order
        assert [seq for seq in received if seq in seqs] == seqs


def test_a_reply_waits_for_the_chats_earlier_one_so_resuming_misses_nothing(live, tenant):
    # Given a reply of the chat whose transaction took its sequence number and has not
    # committed yet, and a stream of the chat
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    taken, commit = threading.Event(), threading.Event()
    first: list[int] = []
    second: list[int] = []

    def write_first() -> None:
        try:
            with transaction.atomic():
                first.append(EventPublisher(chat_id=chat.id).chunk("first ").seq)
                taken.set()
                commit.wait(30)
        finally:
            connection.close()

    def write_second() -> None:
        try:
            second.append(EventPublisher(chat_id=chat.id).chunk("second ").seq)
        finally:
            connection.close()

    writers = [threading.Thread(target=write_first), threading.Thread(target=write_second)]
    with StreamReader(stream_url(live, chat), {"x-api-key": tenant.key}) as reader:
        try:
            writers[0].start()
            assert taken.wait(10)
            # When a second reply of the chat is written meanwhile
            writers[1].start()
            # Then the stream gets nothing until the first commits: had it sent the second
            # reply's event, a client resuming after it (Last-Event-ID) would never get the
            # first one, whose seq is lower
            assert reader.quiet_for(1.0) == []
        finally:
            commit.set()
            for writer in writers:
                writer.join(10)
        received = [int(event.id) for event in reader.events(2)]
    assert received == first + second
    assert first[0] < second[0]


def test_unauthenticated_and_unknown_chats_get_json_errors(live, tenant, other_tenant):
    chat = ChatFactory(organization=tenant.organization, chatbot=tenant.chatbot)
    foreign = ChatFactory(organization=other_tenant.organization, chatbot=other_tenant.chatbot)
    with httpx.Client(base_url=live.url, timeout=10) as client:
        missing = client.get(f"/v1/chats/{chat.id}/messages/events")
        wrong = client.get(f"/v1/chats/{chat.id}/events", headers={"x-api-key": "sk_stag_x_y"})
        with client.stream(
            "GET",
            f"/v1/chats/{chat.id}/messages/events",
            headers={"Authorization": f"Bearer {tenant.key}", "Last-Event-ID": "0"},
        ) as bearer:
            bearer_status = bearer.status_code
        key = {"x-api-key": tenant.key}
        not_found = [
            client.get(f"/v1/chats/{chat_id}/messages/events", headers=key)
            for chat_id in (foreign.id, "not-a-uuid", "00000000-0000-4000-8000-000000000000")
        ]
        bad_resume = client.get(
            f"/v1/chats/{chat.id}/messages/events", headers={**key, "Last-Event-ID": "abc"}
        )
        post = client.post(f"/v1/chats/{chat.id}/messages/events", headers=key)

    assert missing.status_code == 401
    assert missing.json() == {"message": MISSING_KEY}
    assert wrong.status_code == 401
    assert wrong.json() == {"message": INVALID_KEY}
    assert bearer_status == 200
    for response in not_found:
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"message": CHAT_NOT_FOUND}
        assert response.headers["x-request-id"]
    assert bad_resume.status_code == 422
    assert list(bad_resume.json()["errors"]) == ["lastEventId"]
    assert post.status_code == 405
    assert post.headers["allow"] == "GET"
    assert "message" in post.json()
