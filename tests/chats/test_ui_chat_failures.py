"""`POST /v1/ui/chat` when the assistant fails, on the real server: an `error` chunk, the
shopper's message kept, as `POST .../messages` keeps it (docs/api.md, "Shop front-ends")."""

from __future__ import annotations

import httpx
import pytest

from chats.models import Message
from tests.chats.ui_stream import read_chunks, types, ui_chat_body
from tests.fake_openai import Step
from tests.knowledge.openai_helpers import PAGE, PROVIDER_KEY, provider_and_server, shop_build

pytestmark = pytest.mark.e2e


def test_a_failed_reply_ends_the_stream_with_an_error_chunk(transactional_db, tenant):
    shop = shop_build(tenant)
    with provider_and_server(ASSISTANT_FALLBACK="off") as (fake, server):
        # Given a model that answers with an error
        fake.add(Step(status=500, error_body={"error": {"message": "model down"}}))
        # When the shopper sends a message through the AI SDK endpoint
        with (
            httpx.Client(timeout=60) as client,
            client.stream(
                "POST",
                f"{server.url}/v1/ui/chat",
                json=ui_chat_body(str(shop.chat.id), "a hiking shoe?", currentUrl=PAGE),
                headers={"x-api-key": tenant.key},
            ) as response,
        ):
            assert response.status_code == 200
            chunks = read_chunks(response)

    # Then the stream ends with an error chunk, and the message stays stored
    assert types(chunks)[:2] == ["start", "start-step"]
    assert types(chunks)[-2:] == ["error", "[DONE]"]
    assert "finish" not in types(chunks)
    assert chunks[-2]["errorText"]
    assert PROVIDER_KEY not in str(chunks)
    stored = list(Message.objects.filter(chat=shop.chat).values_list("type", flat=True))
    assert stored == ["user"]
