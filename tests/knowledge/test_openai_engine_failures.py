"""Every way the model can fail, with the catalog fallback and without.

With `ASSISTANT_FALLBACK=catalog` the reply is the catalog engine's, after a `failed` tool event
naming the failure; with `off` the stream ends with the reply's `failed` event and the
endpoint answers 503, the shopper's message kept (docs/api.md#failures).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from chats.models import Message, MessageType
from chats.services_messages import ASSISTANT_FAILED
from knowledge.engines.openai.engine import LANGUAGE_MODEL_TOOL
from tests.fake_openai import Step, error, text, tools
from tests.knowledge.openai_helpers import (
    PROVIDER_KEY,
    block,
    chunks_text,
    provider,
    send,
    shop_build,
    stream_events,
)
from tests.server import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake_llm(settings):
    yield from provider(settings)


@pytest.fixture
def shop(tenant):
    return shop_build(tenant)


def _timeout_before(fake, settings, shop):
    settings.OPENAI_TIMEOUT_SECONDS = 0.5
    fake.add(Step(text=["never"], stall_before=5))


def _timeout_mid_stream(fake, settings, shop):
    settings.OPENAI_TIMEOUT_SECONDS = 0.5
    fake.add(Step(text=["Let me ", "think"], stall_after_chunks=2, stall_seconds=5))


def _connection_refused(fake, settings, shop):
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"


def _dropped_mid_stream(fake, settings, shop):
    fake.add(Step(text=["Half an ", "answer"], drop_after_chunks=2))


def _http_401(fake, settings, shop):
    # A provider that echoes the credentials it got, as some do in error bodies
    fake.add(error(401, f"Incorrect API key provided: {PROVIDER_KEY}"))


def _http_429(fake, settings, shop):
    fake.add(error(429, "Rate limit reached"))


def _http_500(fake, settings, shop):
    fake.add(error(500, f"upstream failed for key {PROVIDER_KEY}"))


def _malformed_json_args(fake, settings, shop):
    fake.add(tools(("search_products", '{"query": "shoes", "maxPrice": ')))


def _args_not_an_object(fake, settings, shop):
    fake.add(tools(("get_product", '["4006381333931"]')))


def _args_of_the_wrong_type(fake, settings, shop):
    fake.add(tools(("search_products", {"query": "shoes", "maxPrice": "cheap"})))


def _missing_required_args(fake, settings, shop):
    fake.add(tools(("compare_products", {})))


def _unknown_tool(fake, settings, shop):
    fake.add(tools(("place_order", {"gtin": shop.runner.gtin})))


def _too_many_rounds(fake, settings, shop):
    settings.OPENAI_MAX_TOOL_ROUNDS = 2
    for _ in range(3):
        fake.add(tools(("search_products", {"query": "shoes"})))


def _chunk_of_the_wrong_shape(fake, settings, shop):
    # A delta whose content is a list, then a chunk that is no object at all
    delta = {"content": ["Trail", "Runner"]}
    fake.add(Step(raw_chunks=[{"choices": [{"index": 0, "delta": delta}]}, ["stop"]]))


def _empty_answer(fake, settings, shop):
    fake.add(text(block([], ["a?", "b?"])))


FAILURES: dict[str, tuple[Any, str, str]] = {
    "timeout before any byte": (_timeout_before, "timeout", "did not answer within 0.5 s"),
    "timeout mid-stream": (_timeout_mid_stream, "timeout", "did not answer within 0.5 s"),
    "connection refused": (_connection_refused, "connection", "could not be reached"),
    "connection dropped mid-stream": (_dropped_mid_stream, "bad_response", "cut off"),
    "HTTP 401": (_http_401, "http_status", "answered HTTP 401"),
    "HTTP 429": (_http_429, "http_status", "answered HTTP 429"),
    "HTTP 500": (_http_500, "http_status", "answered HTTP 500"),
    "tool arguments not JSON": (_malformed_json_args, "malformed_tool_arguments", "not a JSON"),
    "tool arguments not an object": (
        _args_not_an_object,
        "malformed_tool_arguments",
        "not a JSON object",
    ),
    "tool argument of the wrong type": (
        _args_of_the_wrong_type,
        "malformed_tool_arguments",
        "maxPrice must be a positive number",
    ),
    "required tool argument missing": (
        _missing_required_args,
        "malformed_tool_arguments",
        "gtins is required",
    ),
    "unknown tool": (_unknown_tool, "unknown_tool", "unknown tool: place_order"),
    "too many tool rounds": (_too_many_rounds, "too_many_tool_rounds", "after 2 rounds"),
    "chunk of the wrong shape": (_chunk_of_the_wrong_shape, "bad_response", "unreadable answer"),
    "empty answer": (_empty_answer, "bad_response", "empty answer"),
}


def everything_public(shop, response, events, caplog) -> str:
    """All an integrator, operator or log reader can see of the reply."""
    history = shop.tenant.client.get(f"/v1/chats/{shop.chat.id}/messages")
    return "\n".join(
        [
            response.content.decode(),
            history.content.decode(),
            repr(events),
            caplog.text,
            repr([(r.getMessage(), r.exc_text, r.__dict__) for r in caplog.records]),
        ]
    )


@pytest.mark.parametrize("name", list(FAILURES))
def test_failure_falls_back_to_the_catalog_engine(name, fake_llm, shop, settings, caplog):
    script, kind, words = FAILURES[name]
    script(fake_llm, settings, shop)
    caplog.set_level(logging.DEBUG)

    response = send(shop, "running shoes")

    # The shopper still gets an answer: the catalog engine's
    assert response.status_code == 201, response.content
    reply = response.json()
    assert reply["type"] == "answer" and reply["content"]
    events = stream_events(shop)
    failed = [e for e in events if e["status"] == "failed"]
    assert len(failed) == 1
    assert failed[0]["toolName"] == LANGUAGE_MODEL_TOOL
    assert failed[0]["toolArgs"]["failure"] == kind
    assert words in failed[0]["content"] and "catalog" in failed[0]["content"]
    # One typing event opens the reply; the fallback's events follow the failure
    assert [e for e in events if e["status"] == "inProgress" and len(e) == 3] == [events[0]]
    after = events[events.index(failed[0]) + 1 :]
    assert after[-1]["status"] == "completed" and after[-1]["content"] == reply["content"]
    assert chunks_text(after) == reply["content"]
    assert PROVIDER_KEY not in everything_public(shop, response, events, caplog)


@pytest.mark.parametrize("name", list(FAILURES))
def test_failure_without_fallback_is_a_503_and_a_failed_event(
    name, fake_llm, shop, settings, caplog
):
    settings.ASSISTANT_FALLBACK = "off"
    script, _kind, words = FAILURES[name]
    script(fake_llm, settings, shop)
    caplog.set_level(logging.DEBUG)

    response = send(shop, "running shoes")

    assert response.status_code == 503
    assert response.json() == {"message": ASSISTANT_FAILED}
    events = stream_events(shop)
    assert events[-1]["status"] == "failed" and "toolName" not in events[-1]
    assert words in events[-1]["content"]
    # The shopper's message stays stored, no answer is
    assert list(Message.objects.filter(chat=shop.chat).values_list("type", flat=True)) == [
        MessageType.USER
    ]
    assert PROVIDER_KEY not in everything_public(shop, response, events, caplog)


def test_text_streamed_before_a_failure_is_followed_by_the_failed_tool_event(fake_llm, shop):
    # Given a model that starts answering, then drops the connection
    fake_llm.add(Step(text=["The Trail ", "Runner is"], drop_after_chunks=2))

    reply = send(shop, "running shoes").json()

    # The partial text came first; the failed tool event marks where the fallback starts over
    events = stream_events(shop)
    failed_at = next(i for i, e in enumerate(events) if e["status"] == "failed")
    assert chunks_text(events[:failed_at]) == "The Trail"
    assert chunks_text(events[failed_at + 1 :]) == reply["content"]


def test_a_tool_refusal_is_told_to_the_model_not_a_failure(fake_llm, shop):
    # An unknown GTIN is a catalog answer ("no such product"), the model may search instead
    fake_llm.add(
        tools(("get_product", {"gtin": "123"})),
        tools(("search_products", {"query": "hiker"})),
        text("Found the Peak Hiker.", block([shop.hiker.gtin], ["a?", "b?"])),
    )

    reply = send(shop, "product 123?").json()

    assert reply["content"] == "Found the Peak Hiker."
    refusal = fake_llm.requests[1].body["messages"][-1]
    assert refusal["role"] == "tool" and "error" in refusal["content"]
    assert not [e for e in stream_events(shop) if e["status"] == "failed"]


def test_extra_tool_arguments_are_ignored(fake_llm, shop):
    fake_llm.add(
        tools(("get_product", {"gtin": shop.hiker.gtin, "verbose": True})),
        text("Here.", block([shop.hiker.gtin], ["a?", "b?"])),
    )

    send(shop, "hiker?")

    started = next(e for e in stream_events(shop) if e.get("toolName") == "get_product")
    assert started["toolArgs"] == {"gtin": shop.hiker.gtin}


def test_the_provider_key_never_shows_in_the_admin(fake_llm, shop, settings, superuser_client):
    # Given a failure whose provider error body echoes the key, with and without fallback
    fake_llm.add(error(401, f"Incorrect API key provided: {PROVIDER_KEY}"))
    send(shop, "running shoes")
    settings.ASSISTANT_FALLBACK = "off"
    fake_llm.add(error(401, f"Incorrect API key provided: {PROVIDER_KEY}"))
    send(shop, "running shoes")

    # Then no admin page an operator can open shows it
    chatbot = shop.tenant.chatbot
    for url in [
        "/admin/",
        "/admin/accounts/chatbot/",
        f"/admin/accounts/chatbot/{chatbot.pk}/change/",
        f"/admin/accounts/organization/{shop.tenant.organization.pk}/change/",
        "/admin/chats/chat/",
        f"/admin/chats/chat/{shop.chat.pk}/change/",
    ]:
        response = superuser_client.get(url)
        assert response.status_code == 200, url
        assert PROVIDER_KEY not in response.content.decode(), url
