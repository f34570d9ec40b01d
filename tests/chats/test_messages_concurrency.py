"""Two identical `POST .../messages` with one `Idempotency-Key` at the same moment
(docs/api.md#idempotency).

Against the real server (gunicorn, gevent workers), so the requests really race; its own module
because it needs committed data (a transactional test).
"""

from __future__ import annotations

import threading

import pytest

from chats.models import Event, Message
from tests.knowledge.assistant_shops import DEMO_FILES, shop_import
from tests.server import start_server

BODY = {"message": "Show me laptops", "currentUrl": "https://shop.example/"}


def stored(chat_id) -> list[str]:
    return [m.type for m in Message.objects.filter(chat_id=chat_id).order_by("seq")]


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_identical_requests_at_the_same_moment_store_one_reply():
    # Given a shop and a server whose replies take a moment (a typing pace between chunks),
    # with two worker processes, so the two requests really run at the same time
    shop = shop_import("Concurrent Shop", DEMO_FILES)
    chat_id = shop.chat()
    responses: list = [None] * 4
    with start_server(ASSISTANT_STREAM_CHUNK_DELAY_MS="40", WEB_CONCURRENCY="2") as server:
        barrier = threading.Barrier(len(responses))

        def send(index: int) -> None:
            with server.client(headers={"x-api-key": shop.key, "Idempotency-Key": "same"}) as c:
                barrier.wait()
                responses[index] = c.post(f"/v1/chats/{chat_id}/messages", json=BODY)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(responses))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    # Then every request gets the one reply, and one user message and one reply are stored
    assert {r.status_code for r in responses} == {201}
    assert len({r.text for r in responses}) == 1
    assert stored(chat_id) == ["user", "answer"]
    assert Event.objects.filter(chat_id=chat_id, status="completed", tool_name="").count() == 1
