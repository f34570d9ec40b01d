"""A server worker loads the engines in use before it takes requests, so the first reply it
serves does not stop its other requests (knowledge/engines/__init__.py, engines_warm_up)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from knowledge.engines import engines_warm_up
from tests.fake_openai import Step
from tests.knowledge.openai_helpers import PAGE, provider_and_server, shop_build

# Loading the `openai` engine's libraries on a first reply held the worker for 1.4 s on the
# benchmark machine; a worker that loaded them at its start answers a health check in
# milliseconds meanwhile.
STALL_SECONDS = 0.5


@pytest.mark.e2e
def test_a_workers_first_reply_does_not_hold_up_its_other_requests(transactional_db, tenant):
    # Given a chatbot on the `openai` engine, and a server worker that has served nothing yet
    shop = shop_build(tenant)
    with (
        provider_and_server() as (fake, server),
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        fake.add(Step(text=["Here you go."], stall_before=1.0))
        # When the worker's first reply starts, while a health check is asked again and again
        reply = threading.Thread(
            target=client.post,
            args=(f"/v1/chats/{shop.chat.id}/messages",),
            kwargs={
                "json": {"message": "a running shoe?", "currentUrl": PAGE},
                "headers": {"x-api-key": tenant.key},
            },
        )
        reply.start()
        waits = []
        while not fake.requests and reply.is_alive():
            started = time.monotonic()
            assert client.get("/healthz").status_code == 200
            waits.append(time.monotonic() - started)
        reply.join()

    # Then the reply reached the model, and no health check waited for it
    assert fake.requests, "the reply never reached the model"
    assert waits and max(waits) < STALL_SECONDS, waits


def test_an_engine_that_cannot_be_loaded_does_not_stop_the_workers_start(tenant, settings, caplog):
    # Given a chatbot on a plugged-in engine whose module is gone
    settings.ASSISTANT_ENGINES = {"gone": "no_such_package.Engine"}
    tenant.chatbot.engine = "gone"
    tenant.chatbot.save()

    # When a worker starts, it loads the engines in use; the others still load
    engines_warm_up()

    # Then the failure is logged, naming the engine, and nothing is raised
    assert "engine 'gone' could not be loaded" in caplog.text
