"""The console's pages in headless Chromium at a laptop's and a phone's width.

Each page is opened as the role that uses it, through the real server; the assertions read
what the browser laid out (widths, heights, what is visible). Screenshots go to
var/screenshots/ for a person to look at (they are not committed).
"""

from __future__ import annotations

import pytest

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
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    organization = OrganizationFactory(name="Keys Shop With A Rather Long Organization Name")
    kept = api_key_issue(organization=organization, name="storefront backend server").api_key
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "operators", PASSWORD)
        driver.get(f"{live.url}/admin/accounts/apikey/")
        screenshot(driver, f"console-keys-{size}")
        status = driver.find_element(By.CSS_SELECTOR, "td.field-status").text
        assert status == "Active"
        if size == "laptop":
            assert right_edge(driver, "th.column-status") <= window_width(driver)

        driver.get(f"{live.url}/admin/accounts/apikey/{kept.pk}/change/")
        assert not driver.find_elements(By.CSS_SELECTOR, "a.deletelink")
        driver.find_element(By.CSS_SELECTOR, "a.revoke-link").click()
        screenshot(driver, f"console-key-revoke-{size}")
        assert "cannot be restored" in driver.find_element(By.ID, "content-main").text
        kept.refresh_from_db()
        assert kept.revoked_at is None  # asked, not yet done
        driver.find_element(By.CSS_SELECTOR, "input.revoke-confirm-button").click()
        WebDriverWait(driver, 10).until(
            lambda _: driver.find_elements(By.CSS_SELECTOR, "td.field-status")
        )
        assert driver.find_element(By.CSS_SELECTOR, "td.field-status").text == "Revoked"
        kept.refresh_from_db()
        assert kept.revoked_at is not None


def test_organization_page_fits_the_window_and_links_its_pages(live, size):
    from selenium.webdriver.common.by import By

    organization = OrganizationFactory(name="Wide Shop")
    for n in range(3):
        ChatbotFactory(organization=organization, name=f"Chatbot {n}", greeting="Hello! " * 80)
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "operators", PASSWORD)
        driver.get(f"{live.url}/admin/accounts/organization/{organization.pk}/change/")
        screenshot(driver, f"console-organization-{size}")
        links = driver.find_elements(By.CSS_SELECTOR, "a.organization-link")
        labels = [a.get_attribute("textContent") for a in links]
        assert labels[:6] == [
            "API keys",
            "Chatbots",
            "Catalog",
            "Catalog imports",
            "Chats",
            "Usage",
        ]
        if size == "laptop":
            assert overflow_px(driver) == 0
        header = driver.find_element(By.ID, "header")
        assert "Shopping assistant console" in header.text
        assert header.size["width"] >= window_width(driver)


def test_transcript_is_compact_with_image_fallback_prices_and_folded_activity(live, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

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

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "support", PASSWORD)
        driver.get(f"{live.url}/admin/chats/chat/{chat.pk}/change/")
        driver.execute_script("window.scrollTo(0, 0)")
        screenshot(driver, f"console-transcript-{size}")
        cards = driver.find_elements(By.CSS_SELECTOR, ".transcript .card")
        assert len(cards) == 36
        # The broken image is gone (lazily loaded: the cards in view), and the card says so
        # instead of a broken icon.
        WebDriverWait(driver, 10).until(lambda _: not cards[0].find_elements(By.TAG_NAME, "img"))
        assert cards[0].find_element(By.CSS_SELECTOR, ".thumb").text == "No image"
        assert cards[0].find_element(By.CSS_SELECTOR, ".price").text == "€499.00"
        assert cards[0].find_element(By.CSS_SELECTOR, ".stock").text == "In stock (10)"
        # Activity is folded: one summary line, the JSON hidden until opened.
        folded = driver.find_element(By.CSS_SELECTOR, "details.activity")
        assert folded.get_attribute("open") is None
        assert not driver.find_element(By.CSS_SELECTOR, ".activity pre").is_displayed()
        assert page_height(driver) < 4000
        if size == "laptop":
            assert overflow_px(driver) == 0


def test_chat_search_by_words_and_filters_in_the_browser(live, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from chats.models import Feedback

    chatbot = ChatbotFactory()
    wanted = ChatFactory(chatbot=chatbot)
    MessageFactory(chat=wanted, type="user", content="Do you have waterproof boots?")
    reply = MessageFactory(chat=wanted, type="answer", content="These two.")
    Feedback.objects.create(message=reply, chat=wanted, rating="down")
    other = ChatFactory(chatbot=chatbot)
    MessageFactory(chat=other, type="user", content="A coffee mug")
    staff_member(SUPPORT)

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "support", PASSWORD)
        driver.get(f"{live.url}/admin/chats/chat/")
        box = driver.find_element(By.ID, "searchbar")
        box.send_keys("waterproof")
        box.submit()
        WebDriverWait(driver, 10).until(lambda _: "q=waterproof" in driver.current_url)
        listed = driver.find_element(By.ID, "result_list").text
        assert str(wanted.id) in listed and str(other.id) not in listed
        # The date form keeps the words; the down-rated filter narrows further
        driver.find_element(By.NAME, "started_from").send_keys("01012020")
        driver.find_element(By.CSS_SELECTOR, ".date-range-filter input[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda _: "started_from=2020-01-01" in driver.current_url)
        assert "q=waterproof" in driver.current_url
        driver.get(f"{live.url}/admin/chats/chat/?replies=down")
        screenshot(driver, f"console-chat-search-{size}")
        listed = driver.find_element(By.ID, "result_list").text
        assert str(wanted.id) in listed and str(other.id) not in listed
        if size == "laptop":
            assert overflow_px(driver) == 0


def test_insights_page_with_charts_and_tables(live, size):
    import datetime as dt

    from selenium.webdriver.common.by import By

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

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "operators", PASSWORD)
        driver.get(f"{live.url}/admin/insights/insightday/organization/{chatbot.organization_id}/")
        screenshot(driver, f"console-insights-{size}")
        assert driver.find_element(By.ID, "tile-conversations").text == "12"
        charts = driver.find_elements(By.CSS_SELECTOR, "svg.insights-chart")
        assert len(charts) == 3
        assert all(0 < chart.size["width"] <= window_width(driver) for chart in charts)
        empty = driver.find_element(By.ID, "table-empty_searches").text
        assert "trail shoes size 0" in empty and "maxPrice: 100" in empty
        assert overflow_px(driver) == 0


def test_products_list_and_an_import_with_rejected_rows(live, size):
    from decimal import Decimal

    from selenium.webdriver.common.by import By

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

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "operators", PASSWORD)
        driver.get(f"{live.url}/admin/knowledge/product/")
        screenshot(driver, f"console-products-{size}")
        headers = driver.find_element(By.CSS_SELECTOR, "#result_list thead").get_attribute(
            "textContent"
        )
        assert "Price" in headers and "paid" not in headers.lower()
        assert driver.find_element(By.CSS_SELECTOR, "td.field-price_shown").text == "€499.00"
        driver.get(f"{live.url}/admin/knowledge/importrun/{run.pk}/change/")
        screenshot(driver, f"console-import-{size}")
        outcome = driver.find_element(By.CSS_SELECTOR, ".field-outcome .readonly").text
        assert outcome == "Imported with 2 rejected rows"


def test_erasing_a_shopper_asks_first_in_the_browser(live, size):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from chats.models import Chat

    chat = ChatFactory()
    MessageFactory(chat=chat, content="My email is ann@example.com")
    staff_member(OPERATORS)

    with chromium(*SIZES[size]) as driver:
        sign_in(driver, live.url, "operators", PASSWORD)
        driver.get(f"{live.url}/admin/chats/chat/")
        driver.find_element(By.CSS_SELECTOR, "input.action-select").click()
        driver.find_element(
            By.CSS_SELECTOR, "select[name=action] option[value=erase_users]"
        ).click()
        driver.find_element(By.CSS_SELECTOR, "button[name=index]").click()
        WebDriverWait(driver, 10).until(
            lambda _: driver.find_elements(By.CSS_SELECTOR, "input.erase-confirm-button")
        )
        screenshot(driver, f"console-erase-confirm-{size}")
        assert str(chat.user_id) in driver.find_element(By.ID, "content-main").text
        assert Chat.objects.filter(pk=chat.pk).exists()
        driver.find_element(By.CSS_SELECTOR, "input.erase-confirm-button").click()
        WebDriverWait(driver, 10).until(lambda _: "Erased 1 shopper" in driver.page_source)
        assert not Chat.objects.filter(pk=chat.pk).exists()
