"""`POST /v1/ui/chat` and its resume path on the real server (docs/api.md, "Shop front-ends").

The server answers with the catalog engine on the catalog `make run` seeds, typing at a pace
so a reply lasts long enough to join it midway.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from chats.models import Event, IdempotencyRecord, Message
from tests.chats.ui_stream import read_chunks, types, ui_chat_body
from tests.knowledge.assistant_shops import MAKE_RUN_DEMO_FILES, Shop, shop_import
from tests.server import LiveServer, start_server

pytestmark = pytest.mark.e2e
PAGE = "https://demo-shop.example/"
QUESTION = "Do you have sneakers?"


@pytest.fixture(scope="module")
def server(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    with (
        django_db_blocker.unblock(),
        start_server(ASSISTANT_STREAM_CHUNK_DELAY_MS="300", SSE_POLL_SECONDS="0.1") as live,
    ):
        yield live


@pytest.fixture
def shop(transactional_db) -> Shop:
    return shop_import("UI Shop", MAKE_RUN_DEMO_FILES)


def new_chat(server: LiveServer, shop: Shop) -> str:
    response = httpx.post(
        f"{server.url}/v1/chats",
        json={"chatbotId": str(shop.chatbot.id)},
        headers={"x-api-key": shop.key},
    )
    return response.json()["id"]


def token_for(server: LiveServer, shop: Shop, chat_id: str) -> str:
    response = httpx.post(
        f"{server.url}/v1/chats/{chat_id}/client-tokens", headers={"x-api-key": shop.key}
    )
    return response.json()["token"]


def post_ui(server, token, body, **headers) -> list:
    with (
        httpx.Client(timeout=60) as client,
        client.stream(
            "POST",
            f"{server.url}/v1/ui/chat",
            json=body,
            headers={"Authorization": f"Bearer {token}", **headers},
        ) as response,
    ):
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
        return read_chunks(response)


def test_a_message_is_answered_as_a_ui_message_stream(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)

    chunks = post_ui(server, token, ui_chat_body(chat_id, QUESTION, currentUrl=PAGE))

    kinds = types(chunks)
    assert kinds[:2] == ["start", "start-step"]
    assert kinds[-3:] == ["finish-step", "finish", "[DONE]"]
    assert chunks[0]["messageId"]
    # Tool calls: input then output, the same call id, in the order of the reply's events.
    inputs = [c for c in chunks[:-1] if c["type"] == "tool-input-available"]
    outputs = [c for c in chunks[:-1] if c["type"] == "tool-output-available"]
    assert inputs and [c["toolCallId"] for c in inputs] == [c["toolCallId"] for c in outputs]
    assert kinds.index("tool-input-available") < kinds.index("text-start")
    # The text, then the data parts, as stored.
    stored = Message.objects.get(chat_id=chat_id, type="answer")
    text = "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta")
    assert text == stored.content
    assert kinds.count("text-delta") > 1  # streamed in pieces, as the engine wrote them
    assert kinds.index("text-start") < kinds.index("text-end") < kinds.index("data-products")
    (products,) = [c["data"] for c in chunks[:-1] if c["type"] == "data-products"]
    (suggestions,) = [c["data"] for c in chunks[:-1] if c["type"] == "data-suggestions"]
    assert products == stored.products and products
    assert suggestions == stored.suggestions and suggestions
    # Stored exactly as POST .../messages stores it.
    assert [m.type for m in Message.objects.filter(chat_id=chat_id)] == ["user", "answer"]
    assert Message.objects.get(chat_id=chat_id, type="user").content == QUESTION


def test_the_transports_retry_of_the_same_ui_message_is_answered_once(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    body = ui_chat_body(chat_id, QUESTION, ui_id="msg-7", currentUrl=PAGE)

    first = post_ui(server, token, body)
    again = post_ui(server, token, body)

    assert IdempotencyRecord.objects.get(chat_id=chat_id).key == "msg-7"
    assert Message.objects.filter(chat_id=chat_id).count() == 2
    delta = "".join(c["delta"] for c in again[:-1] if c["type"] == "text-delta")
    assert delta == "".join(c["delta"] for c in first[:-1] if c["type"] == "text-delta")
    assert [c for c in again[:-1] if c["type"] == "data-products"] == [
        c for c in first[:-1] if c["type"] == "data-products"
    ]


def test_earlier_messages_in_the_body_are_ignored(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    body = ui_chat_body(chat_id, QUESTION, currentUrl=PAGE)
    body["messages"] = [
        {"id": "a", "role": "user", "parts": [{"type": "text", "text": "forged history"}]},
        {"id": "b", "role": "assistant", "parts": [{"type": "text", "text": "forged answer"}]},
        *body["messages"],
    ]
    post_ui(server, token, body)
    assert [m.content for m in Message.objects.filter(chat_id=chat_id, type="user")] == [QUESTION]


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        (lambda b: b.update(messages=[]), 422, "messages"),
        (lambda b: b["messages"][-1].update(role="assistant"), 422, "messages"),
        (
            lambda b: b["messages"][-1].update(parts=[{"type": "text", "text": "  "}]),
            422,
            "messages",
        ),
        (lambda b: b.update(trigger="delete-everything"), 422, "trigger"),
        (lambda b: b.update(currentUrl="not a url"), 422, "currentUrl"),
        (lambda b: b.update(store="no-such-store"), 422, "store"),
    ],
)
def test_bad_input_is_a_json_error_before_the_stream_and_stores_nothing(
    server, shop, change, status, field
):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    body = ui_chat_body(chat_id, QUESTION, currentUrl=PAGE)
    change(body)
    response = httpx.post(
        f"{server.url}/v1/ui/chat", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert field in response.json()["errors"]
    assert not Message.objects.filter(chat_id=chat_id).exists()


def test_the_quota_and_the_chat_are_checked_before_the_stream(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    other = new_chat(server, shop)
    response = httpx.post(
        f"{server.url}/v1/ui/chat",
        json=ui_chat_body(other, QUESTION, currentUrl=PAGE),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 403
    shop.organization.monthly_quota = 0
    shop.organization.save()
    response = httpx.post(
        f"{server.url}/v1/ui/chat",
        json=ui_chat_body(chat_id, QUESTION, currentUrl=PAGE),
        headers={"x-api-key": shop.key},
    )
    assert response.status_code == 429
    assert response.json() == {"message": "Monthly message quota reached"}
    assert not Message.objects.filter(chat_id=chat_id).exists()


def test_the_page_comes_from_the_referer_when_the_body_has_none(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    post_ui(server, token, ui_chat_body(chat_id, QUESTION), Referer=PAGE)
    assert Message.objects.get(chat_id=chat_id, type="user").current_url == PAGE


def test_resume_is_204_when_nothing_runs_and_the_running_reply_from_its_start(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    headers = {"Authorization": f"Bearer {token}"}
    resume = f"{server.url}/v1/ui/chat/{chat_id}/stream"
    assert httpx.get(resume, headers=headers).status_code == 204

    # Given a reply under way (its POST's client reads it in the background)
    posted: dict[str, list] = {}
    thread = threading.Thread(
        target=lambda: posted.update(
            chunks=post_ui(server, token, ui_chat_body(chat_id, QUESTION, currentUrl=PAGE))
        )
    )
    thread.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # until the first piece of its text is out
        if Event.objects.filter(chat_id=chat_id, content__isnull=False, tool_name="").exists():
            break
        time.sleep(0.02)

    # When a second client resumes
    with httpx.Client(timeout=60) as client, client.stream("GET", resume, headers=headers) as r:
        assert r.status_code == 200
        resumed = read_chunks(r)
    thread.join(60)

    # Then it gets the whole reply from its start, as the POST's client did
    assert resumed == posted["chunks"]
    assert httpx.get(resume, headers=headers).status_code == 204


def test_a_long_conversation_in_the_body_is_taken_up_to_its_own_limit(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    headers = {"Authorization": f"Bearer {token}"}
    body = ui_chat_body(chat_id, QUESTION, currentUrl=PAGE)
    earlier = {"id": "old", "role": "assistant", "parts": [{"type": "text", "text": "x" * 1000}]}
    body["messages"] = [earlier] * 100 + body["messages"]  # ~100 KiB: over the usual 64 KiB
    assert len(post_ui(server, token, body)) > 5
    body["messages"] = [earlier] * 1100 + body["messages"][-1:]  # over 1 MiB
    too_large = httpx.post(f"{server.url}/v1/ui/chat", json=body, headers=headers)
    assert too_large.status_code == 413
    assert too_large.json()["message"] == "Request body larger than 1024 KiB"
    not_json = httpx.post(
        f"{server.url}/v1/ui/chat",
        content=b"id=1",
        headers={**headers, "Content-Type": "text/plain"},
    )
    assert not_json.status_code == 415
    assert Message.objects.filter(chat_id=chat_id, type="user").count() == 1


def test_two_tabs_posting_at_once_each_get_only_their_own_reply(server, shop):
    chat_id = new_chat(server, shop)
    token = token_for(server, shop, chat_id)
    questions = {"tab-a": QUESTION, "tab-b": "Do you have a red dress?"}
    streams: dict[str, list] = {}

    def tab(name: str) -> None:
        body = ui_chat_body(chat_id, questions[name], ui_id=name, currentUrl=PAGE)
        streams[name] = post_ui(server, token, body)

    # Given two tabs of one chat posting at the same moment, their replies running together
    tabs = [threading.Thread(target=tab, args=(name,)) for name in questions]
    for thread in tabs:
        thread.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # a resume joins while both are under way
        if Event.objects.filter(chat_id=chat_id, content__isnull=False, tool_name="").exists():
            break
        time.sleep(0.02)
    headers = {"Authorization": f"Bearer {token}"}
    resume = f"{server.url}/v1/ui/chat/{chat_id}/stream"
    with httpx.Client(timeout=60) as client, client.stream("GET", resume, headers=headers) as r:
        assert r.status_code == 200
        resumed = read_chunks(r)
    for thread in tabs:
        thread.join(60)

    # Then the events of the two replies did interleave in the chat
    replies = list(
        Event.objects.filter(chat_id=chat_id).order_by("seq").values_list("reply_to_seq", flat=True)
    )
    assert len(set(replies)) == 2 and replies != sorted(replies)
    # and yet each tab's stream is exactly its own reply: one text, its own answer, once
    for name, question in questions.items():
        user = Message.objects.get(chat_id=chat_id, type="user", content=question)
        chunks = streams[name]
        kinds = types(chunks)
        assert kinds.count("start") == kinds.count("text-start") == kinds.count("finish") == 1
        text = "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta")
        (completed,) = Event.objects.filter(
            chat_id=chat_id, reply_to_seq=user.seq, status="completed", tool_name=""
        )
        assert text == completed.content
        answer = Message.objects.get(chat_id=chat_id, type="answer", content=text)
        products = [c["data"] for c in chunks[:-1] if c["type"] == "data-products"]
        assert products == ([answer.products] if answer.products else [])
    assert streams["tab-a"][-4:] != streams["tab-b"][-4:]
    # and a resume follows the earliest of them, whole, as its own tab got it.
    assert resumed in (streams["tab-a"], streams["tab-b"])
    assert resumed[0]["messageId"] == min(s[0]["messageId"] for s in streams.values())
