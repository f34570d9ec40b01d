"""Operation 3, `POST /v1/chats/{chatId}/messages` (docs/api.md#add-a-message): validation, storage,
replies."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import ApiKey
from chats.models import Event, Message
from chats.selectors import CHAT_NOT_FOUND
from chats.services_messages import ASSISTANT_FAILED, UNKNOWN_STORE
from knowledge.models import Product
from tests.factories import ChatbotFactory, ChatFactory
from tests.knowledge.assistant_shops import DEMO_FILES, imported_shop
from tests.knowledge.catalog_files import run_import
from tests.openapi_validation import SchemaChecker

pytestmark = pytest.mark.django_db
PRODUCT_KEYS = {"gtin", "brand", "designation", "url", "image", "price", "currency"}
OPTIONAL_KEYS = {
    "priceInfo",
    "location",
    "availability",
    "category",
    "query",
    "description",
    "recommendationText",
    "flags",
}
PDP = "https://demo-shop.example/products/essence-mascara-lash-princess-1"


@pytest.fixture(scope="module")
def shop(committed_database, django_db_blocker):
    with imported_shop(django_db_blocker, "Messages Shop", DEMO_FILES) as imported:
        yield imported


def test_reply_is_201_message_with_products_and_suggestions(shop):
    chat_id = shop.chat()

    response = shop.say(chat_id, "Show me phones under 300")

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {
        "id",
        "chatId",
        "type",
        "content",
        "suggestions",
        "products",
        "createdAt",
        "feedback",
    }
    assert body["feedback"] is None  # a new reply has none yet
    assert body["type"] == "answer" and body["chatId"] == chat_id
    assert uuid.UUID(body["id"]).version == 4 and body["createdAt"].endswith("Z")
    assert 1 <= len(body["products"]) <= shop.chatbot.max_products
    assert 2 <= len(body["suggestions"]) <= 4
    for product in body["products"]:
        assert PRODUCT_KEYS <= set(product) <= PRODUCT_KEYS | OPTIONAL_KEYS
        assert isinstance(product["price"], int | float) and product["price"] <= 300
        assert product["designation"] in body["content"]
        catalog = Product.objects.get(organization=shop.organization, url=product["url"])
        assert Decimal(str(product["price"])) == catalog.current_price
        assert product["gtin"] == (catalog.gtin or catalog.item_id)


def test_user_message_then_reply_in_history(shop):
    chat_id = shop.chat()
    reply = shop.say(chat_id, "  laptops  ").json()

    history = shop.client.get(f"/v1/chats/{chat_id}/messages").json()["items"]

    assert [(m["type"], m["content"]) for m in history] == [
        ("user", "laptops"),
        ("answer", reply["content"]),
    ]
    assert history[1] == reply


@pytest.mark.parametrize(
    ("message", "url", "store"),
    [
        ("Show me phones under 300", "https://shop.example/", ""),
        ("Hello!", "https://shop.example/", ""),
        ("Is it in stock?", PDP, "store-berlin-mitte"),
        ("Rolex under $100", "https://shop.example/", ""),
    ],
)
def test_replies_match_the_served_schema(shop, message, url, store):
    checker = SchemaChecker(shop.client.get("/v1/openapi.json").json())
    chat_id = shop.chat()
    path = f"/v1/chats/{chat_id}/messages"

    response = shop.say(chat_id, message, url=url, store=store)

    checker.validate("POST", path, response.status_code, response.json())
    bad = shop.client.post(path, {"message": ""}, format="json")
    checker.validate("POST", path, bad.status_code, bad.json())


def test_small_talk_has_suggestions_and_no_products(shop):
    body = shop.say(shop.chat(), "Hello!").json()

    assert "products" not in body
    assert 2 <= len(body["suggestions"]) <= 4


def test_max_products_is_a_chatbot_setting(shop):
    chatbot = ChatbotFactory(organization=shop.organization, max_products=2)
    chat_id = shop.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json").json()[
        "id"
    ]

    body = shop.say(chat_id, "perfumes").json()

    assert len(body["products"]) == 2


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"currentUrl": "https://shop.example/"},
        {"message": "", "currentUrl": "https://shop.example/"},
        {"message": " \n\t ", "currentUrl": "https://shop.example/"},
        {"message": "a" * 4001, "currentUrl": "https://shop.example/"},
        {"message": "hi\x00there", "currentUrl": "https://shop.example/"},
        {"message": 5, "currentUrl": "https://shop.example/"},
        {"message": None, "currentUrl": "https://shop.example/"},
        {"message": ["hi"], "currentUrl": "https://shop.example/"},
        {"message": "hi"},
        {"message": "hi", "currentUrl": None},
        {"message": "hi", "currentUrl": "/products/1"},
        {"message": "hi", "currentUrl": "shop.example/products/1"},
        {"message": "hi", "currentUrl": "ftp://shop.example/file"},
        {"message": "hi", "currentUrl": "javascript:alert(1)"},
        {"message": "hi", "currentUrl": "https://"},
        {"message": "hi", "currentUrl": "https://shop.example/" + "a" * 2030},
        {"message": "hi", "currentUrl": "https://shop.example/a b"},
        [],
        "hello",
    ],
)
def test_invalid_body_is_422_and_stores_nothing(shop, body):
    chat_id = shop.chat()

    response = shop.client.post(f"/v1/chats/{chat_id}/messages", body, format="json")

    assert response.status_code == 422
    assert isinstance(response.json()["message"], str)
    assert not Message.objects.filter(chat_id=chat_id).exists()
    assert not Event.objects.filter(chat_id=chat_id).exists()


def test_longest_message_and_url_are_accepted(shop):
    url = "https://shop.example/" + "a" * (2048 - len("https://shop.example/"))
    response = shop.say(shop.chat(), "  " + "a" * 4000 + "  ", url=url)

    assert response.status_code == 201


def test_unknown_store_is_422_and_stores_nothing(shop):
    chat_id = shop.chat()

    response = shop.say(chat_id, "is it in stock?", url=PDP, store="nowhere")

    assert response.status_code == 422
    assert response.json()["message"] == UNKNOWN_STORE
    assert not Message.objects.filter(chat_id=chat_id).exists()


def test_unknown_malformed_and_foreign_chats_are_404(shop, other_tenant):
    foreign = ChatFactory(chatbot=other_tenant.chatbot)
    for chat_id in (str(uuid.uuid4()), "not-a-uuid", str(foreign.id)):
        response = shop.say(chat_id, "laptops")
        assert response.status_code == 404
        assert response.json() == {"message": CHAT_NOT_FOUND}
    assert not Message.objects.filter(chat=foreign).exists()


def test_store_gives_availability_and_location_of_that_store(shop):
    body = shop.say(shop.chat(), "Is it in stock?", url=PDP, store="store-berlin-mitte").json()

    product = body["products"][0]
    assert product["designation"] == "Essence Mascara Lash Princess"
    assert product["availability"] == {"status": "in_stock", "quantity": 20}
    assert product["location"] == [{"key": "aisle", "value": "8"}, {"key": "shelf", "value": "F4"}]
    assert "Berlin Mitte" in body["content"] and "20" in body["content"]


def test_history_keeps_products_as_recommended(shop):
    chat_id = shop.chat()
    first = shop.say(chat_id, "How much is it?", url=PDP).json()["products"][0]
    Product.objects.filter(organization=shop.organization, url=PDP).update(price=Decimal("1.00"))

    stored = shop.client.get(f"/v1/chats/{chat_id}/messages").json()["items"][1]["products"][0]
    fresh = shop.say(chat_id, "How much is it?", url=PDP).json()["products"][0]

    assert stored == first and first["price"] == 9.99
    assert fresh["price"] == 1.0


def test_the_same_search_again_reads_the_catalog_anew(shop):
    # Given a search whose SQL the worker now keeps (knowledge/search/service.py) ...
    first = shop.say(shop.chat(), "Show me phones under 300").json()["products"]
    top = Product.objects.get(organization=shop.organization, url=first[0]["url"])
    # ... when the top product's price leaves the range and the last one's rises to its top
    Product.objects.filter(pk=top.pk).update(price=Decimal("999.00"), sale_price=None)
    other = Product.objects.get(organization=shop.organization, url=first[-1]["url"])
    Product.objects.filter(pk=other.pk).update(price=Decimal("300.00"), sale_price=None)

    again = shop.say(shop.chat(), "Show me phones under 300").json()["products"]

    # then the same words and filters find what the catalog holds now (the most the budget
    # buys first)
    assert top.url not in [product["url"] for product in again]
    assert (again[0]["url"], again[0]["price"]) == (other.url, 300.0)


@pytest.mark.parametrize(
    ("engine", "failure"),
    [
        ("tests.chats.engines.BrokenEngine", ASSISTANT_FAILED),
        ("tests.chats.engines.UnavailableEngine", "The product catalog is being rebuilt"),
    ],
)
def test_engine_failure_is_503_keeps_the_message_and_ends_with_failed(
    shop, settings, engine, failure
):
    # Given a chatbot whose engine fails, plugged in through the engines registry setting
    settings.ASSISTANT_ENGINES = {"failing": engine}
    chatbot = ChatbotFactory(organization=shop.organization, engine="failing")
    chat = ChatFactory(chatbot=chatbot)

    # When the shopper writes
    response = shop.say(str(chat.id), "laptops")

    # Then the request fails cleanly, the user's message stays and `failed` is the last event
    assert response.status_code == 503
    assert response.json() == {"message": ASSISTANT_FAILED}
    assert [(m.type, m.content) for m in Message.objects.filter(chat=chat)] == [("user", "laptops")]
    events = list(Event.objects.filter(chat=chat).order_by("seq"))
    assert [e.status for e in events] == ["inProgress", "failed"]
    assert events[-1].content == failure
    assert "hunter2" not in response.content.decode() + (events[-1].content or "")


def test_reply_events_in_order(shop):
    chat_id = shop.chat()
    body = shop.say(chat_id, "Show me perfumes under 100", url=PDP).json()

    events = list(Event.objects.filter(chat_id=chat_id).order_by("seq"))

    typing, *middle, completed = events
    assert (typing.status, typing.tool_name, typing.content) == ("inProgress", "", None)
    assert (completed.status, completed.tool_name, completed.content) == (
        "completed",
        "",
        body["content"],
    )
    tools = [e for e in middle if e.tool_name]
    chunks = [e for e in middle if not e.tool_name]
    assert middle == tools + chunks  # every tool call ends before the text starts
    assert [e.tool_name for e in tools] == [
        "get_page_context",
        "get_page_context",
        "search_products",
        "search_products",
    ]
    for started, finished in zip(tools[::2], tools[1::2], strict=True):
        assert (started.status, finished.status) == ("inProgress", "completed")
        assert started.tool_args == finished.tool_args and isinstance(started.tool_args, dict)
        assert started.tool_response is None and isinstance(finished.tool_response, dict)
    search = tools[-1]
    assert search.tool_args["maxPrice"] == 100 and search.tool_args["category"] == "perfumes"
    assert search.tool_response["filtersApplied"]["maxPrice"] == 100
    assert search.tool_response["filtersRelaxed"] == []
    assert all(c.status == "inProgress" and c.content for c in chunks)
    assert "".join(c.content for c in chunks) == body["content"]
    assert len(chunks) >= 3 and all(len(c.content) <= 80 for c in chunks)


def test_post_query_count(shop, settings, django_assert_num_queries):
    settings.API_KEY_CACHE_SECONDS = 0  # one key lookup per request, whatever the timing
    # Given a warm chat (cached catalog words) and the number of events one such reply writes
    warm = shop.chat()
    shop.say(warm, "hello")
    before = Event.objects.filter(chat_id=warm).count()
    shop.say(warm, "laptops under 1500")
    events = Event.objects.filter(chat_id=warm).count() - before
    chat_id = shop.chat()
    shop.say(chat_id, "hello")
    # The key's last use is written at most once a minute: make sure it is not due now.
    ApiKey.objects.filter(organization=shop.organization).update(last_used_at=timezone.now())

    # Then a reply costs a fixed number of queries, and its events are written together: one
    # statement on PostgreSQL (SQLite: each row, between a savepoint and its release)
    assert events >= 6
    event_writes = 1 if connection.vendor == "postgresql" else events + 2
    # The user message: on PostgreSQL, without a quota, one statement (chats/message_insert.py);
    # else its transaction (savepoint, quota read, usage update, insert, release; no quota, so
    # no monthly sum)
    user_message = 1 if connection.vendor == "postgresql" else 5
    with django_assert_num_queries(FIXED_QUERIES + user_message + event_writes):
        response = shop.say(chat_id, "laptops under 1500")
    assert response.status_code == 201


def sql_of(queries: CaptureQueriesContext, *fragments: str) -> list[str]:
    return [q["sql"] for q in queries if all(fragment in q["sql"] for fragment in fragments)]


@pytest.mark.parametrize("url", [PDP, PDP + "?shade=black"], ids=["page", "variant-page"])
def test_the_shoppers_page_is_looked_up_in_one_query(shop, url):
    chat_id = shop.chat()

    with CaptureQueriesContext(connection) as queries:
        response = shop.say(chat_id, "is it in stock?", url=url)

    assert response.status_code == 201
    page = Event.objects.filter(chat_id=chat_id, tool_name="get_page_context", status="completed")
    assert page.get().tool_response["product"]["designation"] == "Essence Mascara Lash Princess"
    # the page, or the page without its query when no product has it: one query either way
    assert len(sql_of(queries, 'FROM "knowledge_product"', '"knowledge_product"."url"')) == 1


def test_a_misspelt_word_is_looked_up_once_per_catalog_import(tenant):
    files = [str(path) for path in DEMO_FILES]
    shop_files = ["--stores", files[2], "--inventory", files[1]]
    assert not run_import(str(tenant.organization.id), files[0], *shop_files)[1]
    client, chatbot = tenant.client, tenant.chatbot

    def reply(message: str) -> tuple[dict, list[str]]:
        chat = client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json").json()
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                f"/v1/chats/{chat['id']}/messages",
                {"message": message, "currentUrl": "https://shop.example/"},
                format="json",
            )
        assert response.status_code == 201
        return response.json(), sql_of(queries, "knowledge_searchterm")

    first, first_lookups = reply("any mascra?")
    again, again_lookups = reply("do you have mascra")

    assert first["products"] and again["products"] == first["products"]
    assert "Mascara" in first["products"][0]["designation"]
    assert first_lookups and not again_lookups  # the catalog's words for "mascra": once
    # A new import may bring new words: they are looked up again.
    assert not run_import(str(tenant.organization.id), files[0], *shop_files)[1]
    _, after_import = reply("any mascra?")
    assert after_import


# key, chat, chatbot, history, catalog import stamp, search, answer insert (a home page needs
# no lookup)
FIXED_QUERIES = 7
