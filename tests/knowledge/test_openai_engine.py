"""The `openai` engine through the public API, against a loopback fake of the provider."""

from __future__ import annotations

import pytest

from chats.models import Message, MessageType
from tests.factories import MessageFactory, StoreFactory
from tests.fake_openai import MODEL, Step, text, tools
from tests.knowledge.openai_helpers import (
    PAGE,
    PROVIDER_KEY,
    block,
    chunks_text,
    provider,
    send,
    shop_build,
    stream_events,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake_llm(settings):
    yield from provider(settings)


@pytest.fixture
def shop(tenant):
    return shop_build(tenant)


def test_streamed_reply_with_a_tool_call(fake_llm, shop):
    # Given a model that searches first, then answers in pieces and names two products
    fake_llm.add(
        tools(("search_products", {"query": "peakline shoes", "maxPrice": 100}), pieces=4),
        Step(
            text=[
                "Two good picks: the Trail Runner 2, ",
                "now on sale, and the Peak Hiker.",
                block([shop.runner.gtin, shop.hiker.gtin], ["Show cheaper ones", "Compare them"]),
            ],
            pace=0.05,  # a delta at a time, as a model writes them
        ),
    )

    # When the shopper asks
    response = send(shop, "running shoes under 100?")

    # Then the reply holds the model's text, without the structured block
    assert response.status_code == 201, response.content
    reply = response.json()
    content = "Two good picks: the Trail Runner 2, now on sale, and the Peak Hiker."
    assert reply["type"] == "answer"
    assert reply["content"] == content
    assert [p["gtin"] for p in reply["products"]] == [shop.runner.gtin, shop.hiker.gtin]
    assert reply["suggestions"] == ["Show cheaper ones", "Compare them"]
    # Prices are the catalog's: the sale price the shopper pays now
    assert reply["products"][0]["price"] == 69.90
    assert reply["products"][0]["currency"] == "EUR"
    assert reply["products"][0]["designation"] == "Trail Runner 2"

    # And the stream shows typing, the tool call with its args and response, chunks, completed
    events = stream_events(shop)
    assert events[0] == {"chatId": str(shop.chat.id), "eventId": events[0]["eventId"],
                         "status": "inProgress"}  # fmt: skip
    started, finished = events[1], events[2]
    assert (started["status"], started["toolName"]) == ("inProgress", "search_products")
    assert started["toolArgs"] == {"query": "peakline shoes", "maxPrice": 100}
    assert (finished["status"], finished["toolName"]) == ("completed", "search_products")
    assert finished["toolArgs"] == started["toolArgs"]
    found = [p["gtin"] for p in finished["toolResponse"]["products"]]
    assert shop.runner.gtin in found and shop.hiker.gtin in found
    assert events[-1]["status"] == "completed" and events[-1]["content"] == content
    assert "toolName" not in events[-1]
    assert chunks_text(events[3:-1]) == content
    assert len(events[3:-1]) >= 2  # streamed in pieces, as the deltas arrived

    # And both stored messages are in the history, in order
    stored = list(Message.objects.filter(chat=shop.chat).order_by("seq"))
    assert [m.type for m in stored] == [MessageType.USER, MessageType.ANSWER]
    assert stored[1].content == content


def test_provider_receives_tools_stream_and_the_tool_results(fake_llm, shop):
    fake_llm.add(
        tools(("get_product", {"gtin": shop.hiker.gtin})),
        text("It is the Peak Hiker.", block([shop.hiker.gtin], ["In stock?", "Sizes?"])),
    )

    assert send(shop, "tell me about the hiker").status_code == 201

    first, second = fake_llm.requests
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == f"Bearer {PROVIDER_KEY}"
    assert first.body["model"] == MODEL and first.body["stream"] is True
    assert {t["function"]["name"] for t in first.body["tools"]} == {
        "search_products",
        "get_product",
        "get_page_context",
        "compare_products",
        "check_availability",
    }
    # The second round replays the tool call and gives its result
    call, result = second.body["messages"][-2:]
    assert call["role"] == "assistant"
    assert call["tool_calls"][0]["function"]["name"] == "get_product"
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    assert shop.hiker.gtin in result["content"] and "Peak Hiker" in result["content"]


def test_tool_calls_split_across_chunks_and_several_per_round(fake_llm, shop):
    fake_llm.add(
        tools(
            ("get_product", {"gtin": shop.runner.gtin}),
            ("check_availability", {"gtin": shop.hiker.gtin}),
            pieces=7,
        ),
        text("Both are available.", block([shop.hiker.gtin, shop.runner.gtin], ["a?", "b?"])),
    )

    reply = send(shop, "are they in stock?").json()

    names = [(e["status"], e.get("toolName")) for e in stream_events(shop) if "toolName" in e]
    assert names == [
        ("inProgress", "get_product"),
        ("completed", "get_product"),
        ("inProgress", "check_availability"),
        ("completed", "check_availability"),
    ]
    assert [p["gtin"] for p in reply["products"]] == [shop.hiker.gtin, shop.runner.gtin]


def test_unknown_and_unseen_gtins_are_dropped(fake_llm, shop):
    # The boot exists in the catalog but no tool returned it in this reply: not grounded
    fake_llm.add(
        tools(("search_products", {"query": "peak hiker"})),
        text(
            "Here you go.",
            block(["0000000000000", shop.boot.gtin, shop.hiker.gtin], ["More?", "Cheaper?"]),
        ),
    )

    reply = send(shop, "hiking shoes", url="https://shop.example/").json()

    assert [p["gtin"] for p in reply["products"]] == [shop.hiker.gtin]


def test_products_show_catalog_values_at_reply_time(fake_llm, shop):
    # The model claims another price in its text; the product shows the catalog's
    fake_llm.add(
        tools(("get_product", {"gtin": shop.hiker.gtin})),
        text("The Peak Hiker costs 5 EUR!", block([shop.hiker.gtin], ["x?", "y?"])),
    )
    shop.hiker.price = "79.00"
    shop.hiker.save()

    reply = send(shop, "price of the hiker?").json()

    assert reply["products"][0]["price"] == 79.0


def test_product_limit_of_the_chatbot(fake_llm, shop):
    shop.tenant.chatbot.max_products = 1
    shop.tenant.chatbot.save()
    fake_llm.add(
        tools(("compare_products", {"gtins": [shop.runner.gtin, shop.hiker.gtin]})),
        text("Compared.", block([shop.runner.gtin, shop.hiker.gtin], ["x?", "y?"])),
    )

    reply = send(shop, "compare").json()

    assert [p["gtin"] for p in reply["products"]] == [shop.runner.gtin]


def test_structured_block_split_anywhere_never_reaches_the_shopper(fake_llm, shop):
    fake_llm.add(
        text(
            "Hello",
            "! How can I help? ",
            "\n``",
            "`JS",
            'ON\n{"products": [], "suggestions": ["Show running shoes", "What is on sale?"]}',
            "\n```\n",
        )
    )

    reply = send(shop, "hi").json()

    assert reply["content"] == "Hello! How can I help?"
    assert "products" not in reply
    assert reply["suggestions"] == ["Show running shoes", "What is on sale?"]
    events = stream_events(shop)
    assert chunks_text(events) == "Hello! How can I help?"
    assert "```" not in "".join(e.get("content", "") for e in events)


def test_without_a_structured_block_suggestions_come_from_the_catalog_engine(fake_llm, shop):
    fake_llm.add(text("Hello! Ask me about our shoes."))

    reply = send(shop, "hello").json()

    assert reply["content"] == "Hello! Ask me about our shoes."
    assert "products" not in reply
    assert 2 <= len(reply["suggestions"]) <= 4


def test_code_fences_that_are_not_the_block_stay_in_the_text(fake_llm, shop):
    fake_llm.add(text("Use ``code`` here", " and `more`.", block([], ["a?", "b?"])))

    reply = send(shop, "format?").json()

    assert reply["content"] == "Use ``code`` here and `more`."
    assert chunks_text(stream_events(shop)) == reply["content"]


def test_text_before_a_tool_call_is_kept_and_separated(fake_llm, shop):
    # The first round has text and a tool call together
    fake_llm.add(
        tools(("get_product", {"gtin": shop.runner.gtin}), said=("Let me check.",)),
        text("It comes in blue.", block([shop.runner.gtin], ["x?", "y?"])),
    )

    reply = send(shop, "colour?").json()

    assert reply["content"] == "Let me check.\n\nIt comes in blue."
    assert chunks_text(stream_events(shop)) == reply["content"]


def test_prompt_has_system_prompt_page_context_store_and_trimmed_history(fake_llm, shop, settings):
    # Given a custom prompt, a store, and a long earlier conversation
    shop.tenant.chatbot.system_prompt = "You are Ada, the shoe expert of Peakline."
    shop.tenant.chatbot.save()
    store = StoreFactory(organization=shop.tenant.organization, code="berlin", name="Berlin")
    settings.OPENAI_HISTORY_CHARS = 300
    MessageFactory(chat=shop.chat, type=MessageType.USER, content="old question " + "x" * 400)
    MessageFactory(chat=shop.chat, type=MessageType.ANSWER, content="old answer")
    MessageFactory(chat=shop.chat, type=MessageType.USER, content="recent question")
    MessageFactory(
        chat=shop.chat,
        type=MessageType.ANSWER,
        content="recent answer",
        products=[{"gtin": shop.hiker.gtin, "brand": "Peakline", "designation": "Peak Hiker"}],
    )
    fake_llm.add(text("Sure.", block([shop.runner.gtin], ["x?", "y?"])))

    # When the shopper asks on the runner's page
    reply = send(shop, "does it come in 43?", store="berlin").json()

    # Then the model saw the prompt, the page's product, the store, the recent turns only
    messages = fake_llm.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    system = messages[0]["content"]
    assert system.startswith("You are Ada, the shoe expert of Peakline.")
    assert "```json" in system  # the answer format is always appended
    assert PAGE in system and shop.runner.gtin in system and "Trail Runner 2" in system
    assert "berlin" in system
    assert messages[1]["content"] == "recent question"
    assert messages[2]["content"].startswith("recent answer")
    assert shop.hiker.gtin in messages[2]["content"]  # earlier products, for "the first one"
    assert messages[3]["content"] == "does it come in 43?"
    assert store.code == "berlin"
    # And the page's product counts as seen: the model may recommend it directly
    assert [p["gtin"] for p in reply["products"]] == [shop.runner.gtin]


def test_default_system_prompt(fake_llm, shop):
    fake_llm.add(text("Hi.", block([], ["a?", "b?"])))

    send(shop, "hi")

    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert "shopping assistant" in system and "Never invent" in system


def test_engine_chosen_by_the_deployment_setting(fake_llm, shop, settings):
    shop.tenant.chatbot.engine = ""
    shop.tenant.chatbot.save()
    settings.ASSISTANT_ENGINE = "openai"
    fake_llm.add(text("From the model.", block([], ["a?", "b?"])))

    reply = send(shop, "hi").json()

    assert reply["content"] == "From the model."
    assert len(fake_llm.requests) == 1


def test_zero_tool_rounds_sends_no_tools(fake_llm, shop, settings):
    settings.OPENAI_MAX_TOOL_ROUNDS = 0
    fake_llm.add(text("Just talking.", block([], ["a?", "b?"])))

    reply = send(shop, "hi").json()

    assert reply["content"] == "Just talking."
    assert "tools" not in fake_llm.requests[0].body


def test_operator_selects_the_engine_and_prompt_in_the_admin(fake_llm, shop, superuser_client):
    # Given a chatbot on the catalog engine
    chatbot = shop.tenant.chatbot
    chatbot.engine = "catalog"
    chatbot.save()

    # When an operator switches it to the model with its own prompt in the admin
    response = superuser_client.post(
        f"/admin/accounts/chatbot/{chatbot.pk}/change/",
        {
            "organization": str(chatbot.organization_id),
            "name": chatbot.name,
            "is_active": "on",
            "greeting": "",
            "max_products": "4",
            "engine": "openai",
            "system_prompt": "You are Ada from Peakline.",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]

    # Then the next reply comes from the model, with that prompt
    fake_llm.add(text("Hi, Ada here.", block([], ["a?", "b?"])))
    assert send(shop, "hi").json()["content"] == "Hi, Ada here."
    system = fake_llm.requests[0].body["messages"][0]["content"]
    assert system.startswith("You are Ada from Peakline.")


def test_deltas_that_arrive_together_are_written_as_one_event(fake_llm, shop):
    # Given a model that sends 40 deltas in one burst (a reply that fell behind sees this)
    words = [f"word{n} " for n in range(40)]
    fake_llm.add(text(*words))

    # When the shopper asks
    response = send(shop, "anything?")

    # Then every delta reaches the stream, in order, in fewer events than deltas
    assert response.status_code == 201, response.content
    events = stream_events(shop)
    pieces = [e for e in events[1:-1] if "content" in e]
    assert chunks_text(pieces) == events[-1]["content"] == "".join(words).strip()
    assert 1 <= len(pieces) < len(words)
