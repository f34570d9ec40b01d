"""Support's view of a chat: a readable, escaped transcript with products and suggestions."""

from __future__ import annotations

import pytest

from chats.events import EventPublisher
from tests.factories import ChatFactory, MessageFactory

pytestmark = pytest.mark.django_db

PRODUCT = {
    "gtin": "4006381333931",
    "brand": "Acme",
    "designation": "Trail Runner 2",
    "url": "https://shop.example/p/trail-runner-2",
    "image": "https://cdn.shop.example/trail.jpg",
    "price": 89.9,
    "currency": "EUR",
    "availability": {"status": "in_stock", "quantity": 4},
}


def test_transcript_shows_who_said_what_with_product_cards_and_chips(support_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, type="user", content="Trail shoes under 100?")
    MessageFactory(
        chat=chat,
        type="answer",
        content="Here is one that fits.",
        products=[PRODUCT],
        suggestions=["Show cheaper ones"],
    )

    page = support_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()

    assert page.index("Trail shoes under 100?") < page.index("Here is one that fits.")
    assert "Shopper" in page and "Assistant (reply)" in page
    assert "Trail Runner 2" in page and "€89.90" in page and "In stock (4)" in page
    assert 'src="https://cdn.shop.example/trail.jpg"' in page
    assert 'class="thumb">No image<img' in page  # what shows when the image cannot load
    assert '<span class="chip">Show cheaper ones</span>' in page


def test_transcript_escapes_message_text(superuser_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, content="<script>alert(1)</script>'; DROP TABLE chats_chat; --")

    page = superuser_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()

    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_search_by_chat_id_and_user_id(support_client, tenant):
    wanted, other = ChatFactory(chatbot=tenant.chatbot), ChatFactory(chatbot=tenant.chatbot)
    for term in (wanted.id, wanted.user_id):
        page = support_client.get("/admin/chats/chat/", {"q": str(term)}).content.decode()
        assert str(wanted.id) in page and str(other.id) not in page
    assert support_client.get("/admin/chats/chat/", {"q": "not-a-uuid"}).status_code == 200


def test_filter_by_organization_and_chatbot(support_client, tenant, other_tenant):
    mine, theirs = ChatFactory(chatbot=tenant.chatbot), ChatFactory(chatbot=other_tenant.chatbot)
    for query in (
        {"organization__id__exact": tenant.organization.pk},
        {"chatbot__id__exact": tenant.chatbot.pk},
    ):
        page = support_client.get("/admin/chats/chat/", query).content.decode()
        assert str(mine.id) in page and str(theirs.id) not in page


def test_support_sees_the_tools_the_assistant_ran_and_why_a_reply_failed(support_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    publisher = EventPublisher(chat_id=chat.id)
    publisher.typing()
    args = {"query": "trail shoes", "maxPrice": 100}
    publisher.tool_started("search_products", args)
    publisher.tool_finished("search_products", args, {"total": 0, "products": []})
    publisher.tool_failed("get_product", {"gtin": "123"}, "no product with gtin 123")
    publisher.chunk("Sorry, ")
    publisher.failed("The assistant could not complete the response")

    page = support_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()

    activity = page[page.index("Assistant activity") :]
    assert activity.index("search_products") < activity.index("get_product (failed)")
    # One line per step (query: “trail shoes”, maxPrice: 100 → nothing found), the JSON folded
    assert "maxPrice: 100" in activity and "nothing found" in activity
    assert "&quot;maxPrice&quot;: 100" in activity and "&quot;total&quot;: 0" in activity
    assert activity.index("<details") < activity.index("&quot;maxPrice&quot;")
    assert "no product with gtin 123" in activity
    assert "reply failed" in activity and "could not complete the response" in activity
    assert "Sorry, " not in activity  # text chunks are the reply's, not activity
    assert activity.count("search_products") == 1  # its start and end make one row


def test_transcript_shows_the_shoppers_feedback_on_the_reply(support_client, tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(chat=chat, type="user", content="Trail shoes under 100?")
    reply = MessageFactory(chat=chat, type="answer", content="Here is one that fits.")
    MessageFactory(chat=chat, type="answer", content="And another.")
    rated = tenant.client.put(
        f"/v1/chats/{chat.id}/messages/{reply.uuid}/feedback",
        {"rating": "down", "reason": "wrong_products", "comment": "<b>too pricey</b>"},
        format="json",
    )
    assert rated.status_code == 200

    page = support_client.get(f"/admin/chats/chat/{chat.pk}/change/").content.decode()

    assert page.count('class="feedback down"') == 1
    shown = page[page.index('class="feedback down"') :]
    assert "not helpful" in shown and "Wrong products" in shown
    assert "&lt;b&gt;too pricey&lt;/b&gt;" in shown
    assert page.index("Here is one that fits.") < page.index('class="feedback down"')
    assert page.index('class="feedback down"') < page.index("And another.")


@pytest.mark.parametrize(
    ("price", "currency", "shown"),
    [
        (12.5, "JPY", "¥12"),  # the currency's own decimals (babel rounds half to even)
        (3, "", "3.00"),
        ("1e400", "EUR", "1e400 EUR"),  # too many digits to round: shown as stored
        ("cheap", "EUR", "cheap EUR"),
    ],
)
def test_odd_snapshot_prices_are_shown_not_a_server_error(
    support_client, tenant, price, currency, shown
):
    chat = ChatFactory(chatbot=tenant.chatbot)
    MessageFactory(
        chat=chat,
        type="answer",
        content="One.",
        products=[{**PRODUCT, "price": price, "currency": currency}],
    )

    response = support_client.get(f"/admin/chats/chat/{chat.pk}/change/")

    assert response.status_code == 200
    assert f'<div class="meta price">{shown}</div>' in response.content.decode()
