"""The chat widget in real Chromium (docs/api.md, "Shop front-ends"), on the demo shop that
`make run` serves and on a shop of another origin (examples/widget-session/server.py).

Needs Debian's chromium and chromium-driver (never a downloaded browser). The server answers
with the catalog engine, typing at a pace, so a reply can be watched as it is written.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from django.core.management import call_command

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
    with start_server(**DEMO_ENV) as server, chromium() as driver:
        driver.get(server.url + PRODUCT_PAGE)
        root = widget(driver)
        root.find_element("css selector", ".launcher").click()

        # The product page's questions are offered before anything is asked.
        first = wait_for(driver, lambda s: s["chips"])[-1]
        assert any("Stride Air Sneaker" in chip for chip in first["chips"])
        assert first["assistant"] == [
            "Hi! I'm the Demo Shop assistant. What are you looking for today?"
        ]

        # The shopper asks; the reply appears as it is written, then products and suggestions.
        type_message(driver, "Do you have sneakers under 100 euros?")
        seen = wait_for(driver, lambda s: not s["busy"] and s["cards"] and s["chips"])
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
        wait_for(driver, lambda s: all(card["fallback"] for card in s["cards"]), timeout=20)
        screenshot(driver, "widget-conversation")

        # A suggestion chip sends itself.
        chip = done["chips"][0]
        root.find_elements("css selector", ".chip")[0].click()
        after = wait_for(
            driver, lambda s: not s["busy"] and s["user"][-1] == chip and len(s["user"]) == 2
        )
        assert (
            after[-1]["assistant"][-1]
            == answers({"chat__organization_id": demo["organizationId"]})[-1]
        )


def test_the_widget_fits_a_phone_and_works_by_keyboard(demo):
    from selenium.webdriver.common.keys import Keys

    with start_server(**DEMO_ENV) as server, chromium(width=500, height=900) as driver:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 375, "height": 740, "deviceScaleFactor": 2, "mobile": True},
        )
        driver.get(server.url + "/demo/")
        root = widget(driver)
        launcher = root.find_element("css selector", ".launcher")
        # Keyboard only: focus the launcher, open it, type, send with Enter, close with Escape.
        driver.execute_script("arguments[0].focus()", launcher)
        launcher.send_keys(Keys.ENTER)
        assert (
            driver.execute_script(
                "return document.querySelector('shop-assistant').shadowRoot.activeElement.tagName"
            )
            == "TEXTAREA"
        )
        panel = driver.execute_script(
            "var r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.width];",
            root.find_element("css selector", ".panel"),
        )
        assert panel[0] >= 0 and panel[1] <= 375 and panel[2] >= 300
        type_message(driver, "Show me t-shirts")
        wait_for(driver, lambda s: not s["busy"] and len(s["assistant"]) == 2)
        screenshot(driver, "widget-phone")
        root.find_element("css selector", "textarea").send_keys(Keys.ESCAPE)
        assert root.find_element("css selector", ".panel").get_attribute("hidden") == "true"
        assert launcher.get_attribute("aria-expanded") == "false"


def test_the_widget_survives_a_server_restart_mid_reply(demo):
    port = free_port()
    organization = {"chat__organization_id": demo["organizationId"]}
    with chromium() as driver:
        with start_server(port=port, **DEMO_ENV) as server:
            driver.get(server.url + PRODUCT_PAGE)
            widget(driver).find_element("css selector", ".launcher").click()
            wait_for(driver, lambda s: s["streamOpen"] and s["chips"])
            type_message(driver, "Do you have sneakers under 100 euros?")
            # Given a reply partly shown
            wait_for(driver, lambda s: s["busy"] and s["assistant"][-1])
            # When the server restarts (a deploy: SIGTERM, then a new server on the address)
        with start_server(port=port, **DEMO_ENV):
            # Then the reply ends whole, exactly as stored, once
            done = wait_for(driver, lambda s: not s["busy"] and s["chips"], timeout=60)[-1]
            (answer,) = answers(organization)
            assert done["assistant"][-1] == answer
            assert Message.objects.filter(type="user", **organization).count() == 1
            # and the event stream is back (the browser reconnected with Last-Event-ID): the
            # next reply streams live again.
            wait_for(driver, lambda s: s["streamOpen"], timeout=30)
            type_message(driver, "Is it in stock?")
            seen = wait_for(driver, lambda s: not s["busy"] and len(s["user"]) == 2, timeout=60)
            second = answers(organization)[-1]
            assert seen[-1]["assistant"][-1] == second
            assert streamed(seen, second)
            screenshot(driver, "widget-after-restart")


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
    with chromium() as driver:
        driver.get(shop_url + "/")
        widget(driver).find_element("css selector", ".launcher").click()
        # The event stream opens across origins (EventSource, the token in its query).
        wait_for(driver, lambda s: s["streamOpen"] and s["assistant"])
        type_message(driver, "Do you have a laptop?")
        seen = wait_for(driver, lambda s: not s["busy"] and len(s["assistant"]) >= 2)
        done = seen[-1]
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        assert done["assistant"][-1] == answer
        assert streamed(seen, answer)


def test_a_page_on_a_disallowed_origin_gets_nothing(demo, shop_backend):
    shop_url, server = shop_backend
    allow(demo, ["https://the-real-shop.example"])
    with chromium() as driver:
        driver.get(shop_url + "/")
        widget(driver).find_element("css selector", ".launcher").click()
        type_message(driver, "Do you have a laptop?")
        time.sleep(4)  # the widget keeps retrying; nothing gets through meanwhile
        shown = state(driver)
        # The page read nothing: no greeting, no reply, no event; the server stored nothing.
        assert shown["assistant"] == [""] and shown["busy"]
        assert shown["lastEventId"] == ""
        organization = {"chat__organization_id": demo["organizationId"]}
        assert not Message.objects.filter(type="user", **organization).exists()
        # What the page's own script gets from a direct call: a failed fetch, no response.
        token = driver.execute_script("return JSON.parse(Object.values(sessionStorage)[0]).token")
        chat_id = driver.execute_script(
            "return JSON.parse(Object.values(sessionStorage)[0]).chatId"
        )
        outcome = driver.execute_async_script(
            """
            var done = arguments[arguments.length - 1];
            fetch(arguments[0], {headers: {Authorization: 'Bearer ' + arguments[1]}})
              .then(function (r) { done('status ' + r.status); })
              .catch(function (e) { done('failed: ' + e.name); });
            """,
            f"{server.url}/v1/chats/{chat_id}",
            token,
        )
        assert outcome == "failed: TypeError"
        screenshot(driver, "widget-disallowed-origin")


SALE_PAGE = "/demo/products/SHO-TRL-41"  # 99.00 EUR, on sale from 129.00 EUR


def shown_prices(driver) -> list[str]:
    """The shop's own prices as the page shows them, once the widget has formatted them."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = "return Array.from(document.querySelectorAll('data.money'), p => p.textContent)"
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script(script) and "EUR" not in "".join(d.execute_script(script))
    )
    return driver.execute_script(script)


@pytest.mark.parametrize(("name", "size"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_the_demo_shops_prices_are_formatted_as_the_widgets_cards(demo, name, size):
    with start_server(**DEMO_ENV) as server, chromium(*size) as driver:
        width, height = size
        # Chromium's window is at least 500 px wide: a phone's width is emulated.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": name == "phone"},
        )
        # The list: every price in the page's locale (English) and the product's currency
        driver.get(server.url + "/demo/")
        listed = shown_prices(driver)
        assert len(listed) > 10
        assert all(re.fullmatch(r"€\d{1,3}(,\d{3})*\.\d\d", price) for price in listed), listed
        assert overflow_px(driver) == 0
        screenshot(driver, f"demo-list-{name}")
        # A product on sale: its price and the struck-through list price, as a card shows them
        driver.get(server.url + SALE_PAGE)
        assert shown_prices(driver) == ["€99.00", "€129.00"]
        assert driver.find_element("css selector", ".price s").text == "€129.00"
        assert overflow_px(driver) == 0
        screenshot(driver, f"demo-sale-{name}")
        # The widget's formatter follows the locale it is given, as the cards do (`locale`)
        german = driver.execute_script(
            "return customElements.get('shop-assistant').formatPrice('129.00', 'EUR', 'de-DE')"
        )
        assert german == "129,00\u00a0€"
