"""The `openai` engine in the real server (gunicorn + gevent): the model's text reaches the
event stream while the model is still writing."""

from __future__ import annotations

import threading

import httpx
import pytest

from tests.chats.stream_client import StreamReader, payloads
from tests.fake_openai import Step, tools
from tests.knowledge.openai_helpers import PAGE, block, provider_and_server, shop_build

pytestmark = pytest.mark.e2e


def is_final(payload: dict) -> bool:
    return payload["status"] != "inProgress" and "toolName" not in payload


def test_text_deltas_are_streamed_as_they_arrive(transactional_db, tenant):
    shop = shop_build(tenant)
    gate = threading.Event()
    with provider_and_server(OPENAI_TIMEOUT_SECONDS="30") as (fake, server):
        # Given a model that searches, writes a first sentence, then waits for the test
        fake.add(
            tools(("search_products", {"query": "peakline"})),
            Step(
                text=[
                    "The Peak Hiker ",
                    "is a safe choice.",
                    block([shop.hiker.gtin], ["a?", "b?"]),
                ],
                gate_after_chunks=3,
                gate=gate,
            ),
        )
        url = f"{server.url}/v1/chats/{shop.chat.id}/messages/events"
        with StreamReader(url, {"x-api-key": tenant.key}) as reader:
            # When the shopper posts a message
            result: dict[str, httpx.Response] = {}
            post = threading.Thread(
                target=lambda: result.setdefault(
                    "response",
                    httpx.post(
                        f"{server.url}/v1/chats/{shop.chat.id}/messages",
                        json={"message": "a hiking shoe?", "currentUrl": PAGE},
                        headers={"x-api-key": tenant.key},
                        timeout=60,
                    ),
                ),
            )
            post.start()

            # Then the first sentence is on the stream while the model is still writing
            early = payloads(reader.events_until(lambda p: "Peak Hiker" in p.get("content", "")))
            assert post.is_alive() and "response" not in result
            gate.set()
            rest = payloads(reader.events_until(is_final))
            post.join(30)

    assert [e.get("toolName") for e in early if "toolName" in e] == ["search_products"] * 2
    reply = result["response"].json()
    assert result["response"].status_code == 201
    assert reply["content"] == "The Peak Hiker is a safe choice."
    assert rest[-1]["content"] == reply["content"]
    text = [e["content"] for e in early + rest if e["status"] == "inProgress" and "content" in e]
    assert "".join(text) == reply["content"]
    assert [p["gtin"] for p in reply["products"]] == [shop.hiker.gtin]
