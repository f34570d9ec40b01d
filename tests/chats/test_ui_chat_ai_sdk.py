"""The AI SDK's own client reads our UI message stream (docs/api.md, "Shop front-ends").

Node runs clients/ai-sdk-check/check.mjs: the `ai` package pinned in its package-lock.json
sends a message through `DefaultChatTransport` (what `useChat` uses) to the real server and
assembles the reply with `readUIMessageStream`, which validates every chunk against the SDK's
schema. The test checks the assembled message against what the service stored.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator

import httpx
import pytest

from chats.models import Message
from tests.knowledge.assistant_shops import MAKE_RUN_DEMO_FILES, Shop, shop_import
from tests.knowledge.catalog_files import ROOT
from tests.server import LiveServer, start_server

CHECK = ROOT / "clients" / "ai-sdk-check"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs Node 20)"),
]


@pytest.fixture(scope="module")
def server(committed_database, django_db_blocker) -> Iterator[LiveServer]:
    with (
        django_db_blocker.unblock(),
        start_server(ASSISTANT_STREAM_CHUNK_DELAY_MS="50", SSE_POLL_SECONDS="0.1") as live,
    ):
        yield live


@pytest.fixture
def shop(transactional_db) -> Shop:
    return shop_import("AI SDK Shop", MAKE_RUN_DEMO_FILES)


def run_check(server: LiveServer, shop: Shop, text: str) -> tuple[str, dict]:
    assert (CHECK / "node_modules" / "ai").is_dir(), (
        "the pinned AI SDK is not installed: run `npm ci` in clients/ai-sdk-check"
    )
    headers = {"x-api-key": shop.key}
    chat_id = httpx.post(
        f"{server.url}/v1/chats", json={"chatbotId": str(shop.chatbot.id)}, headers=headers
    ).json()["id"]
    token = httpx.post(f"{server.url}/v1/chats/{chat_id}/client-tokens", headers=headers).json()[
        "token"
    ]
    done = subprocess.run(
        [NODE, "check.mjs", server.url, chat_id, token, text, "https://demo-shop.example/"],
        cwd=CHECK,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return chat_id, json.loads(done.stdout.strip().splitlines()[-1])


def test_the_ai_sdk_assembles_text_tool_and_data_parts(server, shop):
    chat_id, result = run_check(server, shop, "Do you have sneakers?")

    assert result["errors"] == []
    message = result["message"]
    assert message["role"] == "assistant"
    stored = Message.objects.get(chat_id=chat_id, type="answer")
    parts = message["parts"]
    kinds = [part["type"] for part in parts]
    assert kinds[0] == "step-start"
    # The tool calls, each complete: its input and its output.
    tools = [part for part in parts if part["type"] == "dynamic-tool"]
    assert tools
    for tool in tools:
        assert tool["state"] == "output-available"
        assert tool["toolName"] and isinstance(tool["input"], dict)
        assert tool["output"] is not None
    # The text, whole, as stored.
    (text,) = [part for part in parts if part["type"] == "text"]
    assert text["text"] == stored.content
    assert text["state"] == "done"
    # The data parts, as stored.
    (products,) = [part for part in parts if part["type"] == "data-products"]
    (suggestions,) = [part for part in parts if part["type"] == "data-suggestions"]
    assert products["data"] == stored.products and products["data"]
    assert suggestions["data"] == stored.suggestions and suggestions["data"]
    # Nothing runs any more: the transport's resume finds nothing (204).
    assert result["resumedWhenIdle"] is False
