"""The console's pages in headless Chromium at a laptop's and a phone's width.

Each page is opened as the role that uses it, through the real server; the assertions read
what the browser laid out (widths, heights, what is visible). Screenshots go to
var/screenshots/ for a person to look at (they are not committed).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.roles import OPERATORS, SUPPORT
from accounts.services import api_key_issue
from tests.browser import (
    LAPTOP,
    PHONE,
    chromium,
    needs_chromium,
    overflow_px,
    page_height,
    right_edge,
    screenshot,
    sign_in,
    window_width,
)
from tests.console.staff import PASSWORD, staff_member
from tests.factories import ChatbotFactory, ChatFactory, MessageFactory, OrganizationFactory

pytestmark = [pytest.mark.browser, pytest.mark.e2e, needs_chromium]

SIZES = {"laptop": LAPTOP, "phone": PHONE}


@pytest.fixture(params=list(SIZES))
def size(request) -> str:
    return request.param


def test_key_list_shows_status_in_view_and_revoking_asks_first(live, size):
    organization = OrganizationFactory(name="Keys Shop With A Rather Long Organization Name")
    kept = api_key_issue(organization=organization, name="storefront backend server").api_key
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "operators", PASSWORD)
        page.goto(f"{live.url}/admin/accounts/apikey/")
        screenshot(page, f"console-keys-{size}")
        expect(page.locator("td.field-status")).to_have_text("Active")
        if size == "laptop":
            assert right_edge(page, "th.column-status") <= window_width(page)

        page.goto(f"{live.url}/admin/accounts/apikey/{kept.pk}/change/")
        expect(page.locator("a.deletelink")).to_have_count(0)
        page.locator("a.revoke-link").click()
        expect(page.locator("#content-main")).to_contain_text("cannot be restored")
        screenshot(page, f"console-key-revoke-{size}")
        kept.refresh_from_db()
        assert kept.revoked_at is None  # asked, not yet done
        page.locator("input.revoke-confirm-button").click()
        expect(page.locator("td.field-status")).to_have_text("Revoked")
        kept.refresh_from_db()
        assert kept.revoked_at is not None


def test_organization_page_fits_the_window_and_links_its_pages(live, size):
    organization = OrganizationFactory(name="Wide Shop")
    for n in range(3):
        ChatbotFactory(organization=organization, name=f"Chatbot {n}", greeting="Hello! " * 80)
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "operators", PASSWORD)
        page.goto(f"{live.url}/admin/accounts/organization/{organization.pk}/change/")
        screenshot(page, f"console-organization-{size}")
        labels = page.locator("a.organization-link").all_text_contents()
        assert labels[:6] == [
            "API keys",
            "Chatbots",
            "Catalog",
            "Catalog imports",
            "Chats",
            "Usage",
        ]
        if size == "laptop":
            assert overflow_px(page) == 0
        header = page.locator("#header")
        expect(header).to_contain_text("Shopping assistant console")
        box = header.bounding_box()
        assert box is not None and box["width"] >= window_width(page)


def test_transcript_is_compact_with_image_fallback_prices_and_folded_activity(live, size):
    from chats.events import EventPublisher

    chatbot = ChatbotFactory()
    chat = ChatFactory(chatbot=chatbot)
    product = {
        "gtin": "4006381333931",
        "brand": "Acme",
        "designation": "Trail Runner 2 with a long designation",
        "url": "https://shop.example/p/trail-runner-2",
        "image": f"{live.url}/no-such-image.jpg",  # answers 404: the fallback must show
        "price": 499.0,
        "currency": "EUR",
        "availability": {"status": "in_stock", "quantity": 10},
    }
    for turn in range(6):
        MessageFactory(chat=chat, type="user", content=f"Trail shoes, question {turn}?")
        MessageFactory(
            chat=chat,
            type="answer",
            content="Here are some that fit.",
            products=[product] * 6,
            suggestions=["Show cheaper ones", "Only waterproof"],
        )
        publisher = EventPublisher(chat_id=chat.id)
        args = {"query": "trail shoes", "maxPrice": 500}
        publisher.tool_finished("search_products", args, {"total": 6, "products": [product] * 6})
    staff_member(SUPPORT)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "support", PASSWORD)
        page.goto(f"{live.url}/admin/chats/chat/{chat.pk}/change/")
        page.evaluate("() => window.scrollTo(0, 0)")
        cards = page.locator(".transcript .card")
        expect(cards).to_have_count(36)
        # The broken image is gone (lazily loaded: the cards in view), and the card says so
        # instead of a broken icon.
        card = cards.first
        expect(card.locator("img")).to_have_count(0, timeout=10_000)
        expect(card.locator(".thumb")).to_have_text("No image")
        expect(card.locator(".price")).to_have_text("€499.00")
        expect(card.locator(".stock")).to_have_text("In stock (10)")
        screenshot(page, f"console-transcript-{size}")
        # Activity is folded: one summary line, the JSON hidden until opened.
        folded = page.locator("details.activity").first
        assert folded.get_attribute("open") is None
        expect(page.locator(".activity pre").first).to_be_hidden()
        assert page_height(page) < 4000
        if size == "laptop":
            assert overflow_px(page) == 0


def test_chat_search_by_words_and_filters_in_the_browser(live, size):
    from chats.models import Feedback

    chatbot = ChatbotFactory()
    wanted = ChatFactory(chatbot=chatbot)
    MessageFactory(chat=wanted, type="user", content="Do you have waterproof boots?")
    reply = MessageFactory(chat=wanted, type="answer", content="These two.")
    Feedback.objects.create(message=reply, chat=wanted, rating="down")
    other = ChatFactory(chatbot=chatbot)
    MessageFactory(chat=other, type="user", content="A coffee mug")
    staff_member(SUPPORT)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "support", PASSWORD)
        page.goto(f"{live.url}/admin/chats/chat/")
        box = page.locator("#searchbar")
        box.fill("waterproof")
        box.press("Enter")
        page.wait_for_url(re.compile(r"q=waterproof"))
        listed = page.locator("#result_list").inner_text()
        assert str(wanted.id) in listed and str(other.id) not in listed
        # The date form keeps the words; the down-rated filter narrows further
        page.locator("[name=started_from]").fill("2020-01-01")
        page.locator(".date-range-filter input[type=submit]").click()
        page.wait_for_url(re.compile(r"started_from=2020-01-01"))
        assert "q=waterproof" in page.url
        page.goto(f"{live.url}/admin/chats/chat/?replies=down")
        screenshot(page, f"console-chat-search-{size}")
        listed = page.locator("#result_list").inner_text()
        assert str(wanted.id) in listed and str(other.id) not in listed
        if size == "laptop":
            assert overflow_px(page) == 0


def test_insights_page_with_charts_and_tables(live, size):
    import datetime as dt

    from chats.events import EventPublisher
    from insights.rollup import insights_refresh

    chatbot = ChatbotFactory()
    today = dt.datetime.now(dt.UTC).date()
    for n in range(12):
        chat = ChatFactory(chatbot=chatbot)
        MessageFactory(chat=chat, type="user", content=f"trail shoes size {n}")
        EventPublisher(chat_id=chat.id).tool_finished(
            "search_products",
            {"category": "Shoes", "brands": ["Stride"], "maxPrice": 100},
            {"total": n % 3, "products": []},
        )
        MessageFactory(
            chat=chat,
            type="answer",
            content="Here.",
            products=[{"gtin": "1", "designation": "Trail Runner"}],
        )
    insights_refresh(day=today)
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "operators", PASSWORD)
        page.goto(f"{live.url}/admin/insights/insightday/organization/{chatbot.organization_id}/")
        screenshot(page, f"console-insights-{size}")
        expect(page.locator("#tile-conversations")).to_have_text("12")
        charts = page.locator("svg.insights-chart")
        expect(charts).to_have_count(3)
        widths = [(chart.bounding_box() or {"width": 0})["width"] for chart in charts.all()]
        assert all(0 < width <= window_width(page) for width in widths), widths
        empty = page.locator("#table-empty_searches").inner_text()
        assert "trail shoes size 0" in empty and "maxPrice: 100" in empty
        assert overflow_px(page) == 0


def test_products_list_and_an_import_with_rejected_rows(live, size):
    from decimal import Decimal

    from knowledge.models import ImportRun, ImportStatus
    from tests.factories import ProductFactory

    organization = OrganizationFactory()
    ProductFactory(
        organization=organization, title="Trail Runner", price=Decimal("499"), currency="EUR"
    )
    run = ImportRun.objects.create(
        organization=organization,
        feed_name="products.tsv",
        status=ImportStatus.SUCCEEDED,
        created=10,
        error_count=2,
        summary={"errors": [{"file": "feed", "line": 3, "id": "SKU-3", "message": "bad price"}]},
    )
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "operators", PASSWORD)
        page.goto(f"{live.url}/admin/knowledge/product/")
        screenshot(page, f"console-products-{size}")
        headers = page.locator("#result_list thead").text_content() or ""
        assert "Price" in headers and "paid" not in headers.lower()
        expect(page.locator("td.field-price_shown")).to_have_text("€499.00")
        page.goto(f"{live.url}/admin/knowledge/importrun/{run.pk}/change/")
        screenshot(page, f"console-import-{size}")
        outcome = page.locator(".field-outcome .readonly")
        expect(outcome).to_have_text("Imported with 2 rejected rows")


def test_erasing_a_shopper_asks_first_in_the_browser(live, size):
    from chats.models import Chat

    chat = ChatFactory()
    MessageFactory(chat=chat, content="My email is ann@example.com")
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as page:
        sign_in(page, live.url, "operators", PASSWORD)
        page.goto(f"{live.url}/admin/chats/chat/")
        page.locator("input.action-select").click()
        page.locator("select[name=action]").select_option("erase_users")
        page.locator("button[name=index]").click()
        confirm = page.locator("input.erase-confirm-button")
        expect(confirm).to_be_visible()
        screenshot(page, f"console-erase-confirm-{size}")
        expect(page.locator("#content-main")).to_contain_text(str(chat.user_id))
        assert Chat.objects.filter(pk=chat.pk).exists()
        confirm.click()
        expect(page.locator("body")).to_contain_text("Erased 1 shopper")
        assert not Chat.objects.filter(pk=chat.pk).exists()
