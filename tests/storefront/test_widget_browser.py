"""The chat widget in real Chromium (docs/api.md, "Shop front-ends"), on the demo shop that
`make run` serves and on a shop of another origin (examples/widget-session/server.py).

Needs Debian's chromium (never a downloaded browser). The server answers
with the catalog engine, typing at a pace, so a reply can be watched as it is written.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.models import Organization
from chats.models import Message
from tests.browser import LAPTOP, PHONE, chromium, needs_chromium, overflow_px, screenshot
from tests.server import ROOT, LiveServer, free_port, start_server, wait_until_up
from tests.storefront.widget_page import state, type_message, wait_for, widget

pytestmark = [pytest.mark.browser, pytest.mark.e2e, needs_chromium]

DEMO_ENV = {"DEMO_SHOP": "1", "ASSISTANT_STREAM_CHUNK_DELAY_MS": "300", "SSE_POLL_SECONDS": "0.1"}
PRODUCT_PAGE = "/demo/products/SNK-AIR-WHI-40"


def seed_demo() -> dict[str, str]:
    out = io.StringIO()
    call_command("seed_demo", "--json", stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.fixture
def demo(transactional_db) -> dict[str, str]:
    return seed_demo()


def answers(chat_filter: dict) -> list[str]:
    return list(
        Message.objects.filter(type="answer", **chat_filter)
        .order_by("seq")
        .values_list("content", flat=True)
    )


def streamed(seen: list[dict], final: str) -> bool:
    """Whether some state showed a part of the final reply while it was being written."""
    return any(
        s["busy"] and s["assistant"] and 0 < len(s["assistant"][-1]) < len(final) for s in seen
    )


def test_a_conversation_on_the_demo_product_page(demo):
    with start_server(**DEMO_ENV) as server, chromium() as page:
        page.goto(server.url + PRODUCT_PAGE)
        root = widget(page)
        root.locator(".launcher").click()

        # The product page's questions are offered before anything is asked.
        first = wait_for(page, lambda s: s["chips"])[-1]
        assert any("Stride Air Sneaker" in chip for chip in first["chips"])
        assert first["assistant"] == [
            "Hi! I'm the Demo Shop assistant. What are you looking for today?"
        ]

        # The shopper asks; the reply appears as it is written, then products and suggestions.
        type_message(page, "Do you have sneakers under 100 euros?")
        seen = wait_for(page, lambda s: not s["busy"] and s["cards"] and s["chips"])
        done = seen[-1]
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        assert done["assistant"][-1] == answer
        assert streamed(seen, answer)
        assert done["announced"] == answer  # read out once, when whole
        card = done["cards"][0]
        assert card["name"].startswith("Stride Air Sneaker")
        assert card["price"] == "€89.00"  # Intl.NumberFormat, the product's currency
        assert card["stock"] == "In stock"
        assert card["href"].startswith("https://demo-shop.example/products/stride-air-sneaker")
        # The demo's image addresses do not resolve: each card falls back to a drawn picture.
        expect(root.locator(".card .noimg")).to_have_count(len(done["cards"]), timeout=20_000)
        screenshot(page, "widget-conversation")

        # A suggestion chip sends itself.
        chip = done["chips"][0]
        root.locator(".chip").first.click()
        after = wait_for(
            page, lambda s: not s["busy"] and s["user"][-1] == chip and len(s["user"]) == 2
        )
        assert (
            after[-1]["assistant"][-1]
            == answers({"chat__organization_id": demo["organizationId"]})[-1]
        )


def test_the_widget_fits_a_phone_and_works_by_keyboard(demo):
    phone = chromium(375, 740, mobile=True, scale=2)
    with start_server(**DEMO_ENV) as server, phone as page:
        page.goto(server.url + "/demo/")
        root = widget(page)
        launcher = root.locator(".launcher")
        # Keyboard only: focus the launcher, open it, type, send with Enter, close with Escape.
        launcher.focus()
        page.keyboard.press("Enter")
        expect(root.locator("textarea")).to_be_focused()
        panel = root.locator(".panel")
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375 and box["width"] >= 300
        type_message(page, "Show me t-shirts")
        wait_for(page, lambda s: not s["busy"] and len(s["assistant"]) == 2)
        screenshot(page, "widget-phone")
        page.keyboard.press("Escape")
        expect(panel).to_be_hidden()
        expect(launcher).to_have_attribute("aria-expanded", "false")


def test_the_widget_survives_a_server_restart_mid_reply(demo):
    port = free_port()
    organization = {"chat__organization_id": demo["organizationId"]}
    with chromium() as page:
        with start_server(port=port, **DEMO_ENV) as server:
            page.goto(server.url + PRODUCT_PAGE)
            widget(page).locator(".launcher").click()
            wait_for(page, lambda s: s["streamOpen"] and s["chips"])
            type_message(page, "Do you have sneakers under 100 euros?")
            # Given a reply partly shown
            wait_for(page, lambda s: s["busy"] and s["assistant"][-1])
            # When the server restarts (a deploy: SIGTERM, then a new server on the address)
        with start_server(port=port, **DEMO_ENV):
            # Then the reply ends whole, exactly as stored, once
            done = wait_for(page, lambda s: not s["busy"] and s["chips"], timeout=60)[-1]
            (answer,) = answers(organization)
            assert done["assistant"][-1] == answer
            assert Message.objects.filter(type="user", **organization).count() == 1
            # and the event stream is back (the browser reconnected with Last-Event-ID): the
            # next reply streams live again.
            wait_for(page, lambda s: s["streamOpen"], timeout=30)
            type_message(page, "Is it in stock?")
            seen = wait_for(page, lambda s: not s["busy"] and len(s["user"]) == 2, timeout=60)
            second = answers(organization)[-1]
            assert seen[-1]["assistant"][-1] == second
            assert streamed(seen, second)
            screenshot(page, "widget-after-restart")


@pytest.fixture
def shop_backend(demo) -> Iterator[tuple[str, LiveServer]]:
    """The assistant server, and the example shop backend on another origin."""
    with start_server(**DEMO_ENV) as server:
        port = free_port()
        env = {
            **os.environ,
            "PORT": str(port),
            "ASSISTANT_URL": server.url,
            "ASSISTANT_API_KEY": demo["apiKey"],
            "ASSISTANT_CHATBOT_ID": demo["chatbotId"],
        }
        shop = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "widget-session" / "server.py")],
            env=env,
            stderr=subprocess.DEVNULL,
        )
        shop_url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(shop_url, shop)  # its page answers any GET
            yield shop_url, server
        finally:
            shop.terminate()
            shop.wait(timeout=10)


def allow(demo, origins: list[str]) -> None:
    Organization.objects.filter(pk=demo["organizationId"]).update(allowed_origins=origins)


def test_a_shop_on_an_allowed_origin_chats_across_origins(demo, shop_backend):
    shop_url, _server = shop_backend
    allow(demo, [shop_url])
    with chromium() as page:
        page.goto(shop_url + "/")
        widget(page).locator(".launcher").click()
        # The event stream opens across origins (EventSource, the token in its query).
        wait_for(page, lambda s: s["streamOpen"] and s["assistant"])
        type_message(page, "Do you have a laptop?")
        seen = wait_for(page, lambda s: not s["busy"] and len(s["assistant"]) >= 2)
        done = seen[-1]
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        assert done["assistant"][-1] == answer
        assert streamed(seen, answer)


def test_a_page_on_a_disallowed_origin_gets_nothing(demo, shop_backend):
    shop_url, server = shop_backend
    allow(demo, ["https://the-real-shop.example"])
    with chromium() as page:
        page.goto(shop_url + "/")
        widget(page).locator(".launcher").click()
        type_message(page, "Do you have a laptop?")
        # Nothing to wait for: the widget keeps retrying and nothing may get through meanwhile.
        page.wait_for_timeout(4000)
        shown = state(page)
        # The page read nothing: no greeting, no reply, no event; the server stored nothing.
        assert shown["assistant"] == [""] and shown["busy"]
        assert shown["lastEventId"] == ""
        organization = {"chat__organization_id": demo["organizationId"]}
        assert not Message.objects.filter(type="user", **organization).exists()
        # What the page's own script gets from a direct call: a failed fetch, no response.
        session = page.evaluate("() => JSON.parse(Object.values(sessionStorage)[0])")
        outcome = page.evaluate(
            """
            ([url, token]) => fetch(url, {headers: {Authorization: 'Bearer ' + token}})
              .then((r) => 'status ' + r.status)
              .catch((e) => 'failed: ' + e.name)
            """,
            [f"{server.url}/v1/chats/{session['chatId']}", session["token"]],
        )
        assert outcome == "failed: TypeError"
        screenshot(page, "widget-disallowed-origin")


SALE_PAGE = "/demo/products/SHO-TRL-41"  # 99.00 EUR, on sale from 129.00 EUR


PRICES = "() => Array.from(document.querySelectorAll('data.money'), (p) => p.textContent)"


def shown_prices(page) -> list[str]:
    """The shop's own prices as the page shows them, once the widget has formatted them."""
    page.wait_for_function(
        f"() => {{ const p = ({PRICES})(); return p.length && !p.join('').includes('EUR'); }}",
        timeout=20_000,
    )
    return page.evaluate(PRICES)


@pytest.mark.parametrize(("name", "size"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_the_demo_shops_prices_are_formatted_as_the_widgets_cards(demo, name, size):
    with start_server(**DEMO_ENV) as server, chromium(*size, mobile=name == "phone") as page:
        # The list: every price in the page's locale (English) and the product's currency
        page.goto(server.url + "/demo/")
        listed = shown_prices(page)
        assert len(listed) > 10
        assert all(re.fullmatch(r"€\d{1,3}(,\d{3})*\.\d\d", price) for price in listed), listed
        assert overflow_px(page) == 0
        screenshot(page, f"demo-list-{name}")
        # A product on sale: its price and the struck-through list price, as a card shows them
        page.goto(server.url + SALE_PAGE)
        assert shown_prices(page) == ["€99.00", "€129.00"]
        expect(page.locator(".price s")).to_have_text("€129.00")
        assert overflow_px(page) == 0
        screenshot(page, f"demo-sale-{name}")
        # The widget's formatter follows the locale it is given, as the cards do (`locale`)
        german = page.evaluate(
            "() => customElements.get('shop-assistant').formatPrice('129.00', 'EUR', 'de-DE')"
        )
        assert german == "129,00\u00a0€"
