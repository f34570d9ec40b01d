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
import threading
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.models import Chatbot, Organization
from chats.models import Message
from knowledge.demo import DEMO_CHATBOT
from tests.browser import LAPTOP, PHONE, chromium, needs_chromium, overflow_px, screenshot
from tests.fake_openai import MODEL, Step, fake_openai_server
from tests.server import ROOT, LiveServer, free_port, start_server, wait_until_up
from tests.storefront.widget_page import (
    focused,
    focused_text,
    state,
    type_message,
    wait_for,
    widget,
)

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
        # "Looking that up…" (while the catalog is searched) is gone once the text comes.
        assert not any(s["status"] and s["assistant"][-1] for s in seen[1:])
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

        # The launcher opens and closes the panel.
        launcher = root.locator(".launcher")
        launcher.click()
        expect(root.locator(".panel")).to_be_hidden()
        expect(launcher).to_have_attribute("aria-expanded", "false")
        launcher.click()
        expect(root.locator(".panel")).to_be_visible()
        expect(root.locator("textarea")).to_be_focused()


def tab_until(page, target: str, key: str = "Tab", limit: int = 40) -> int:
    """Presses `key` until `target` (see `focused`) has the keyboard; how many presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press(key)
        if focused(page) == target:
            return presses
    raise AssertionError(f"{key} never reached {target}; focus on {focused(page)}")


def test_the_widget_fits_a_phone_and_works_by_keyboard_alone(demo):
    errors: list[str] = []
    with start_server(**DEMO_ENV) as server, chromium(*PHONE, mobile=True, scale=2) as page:
        page.on("console", lambda m: errors.append(m) if m.type == "error" else None)
        page.goto(server.url + "/demo/")
        root = widget(page)
        launcher = root.locator(".launcher")
        # Keyboard only: Tab from the top of the page reaches the launcher; Enter opens it.
        tab_until(page, "launcher")
        page.keyboard.press("Enter")
        expect(root.locator("textarea")).to_be_focused()
        panel = root.locator(".panel")
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0] and box["width"] >= 300
        # The close button is a finger's size, and its focus ring shows on the coloured header.
        tab_until(page, "Close the assistant", key="Shift+Tab")
        close = root.locator("header button")
        close_box = close.bounding_box()
        assert close_box is not None and min(close_box["width"], close_box["height"]) >= 40
        ring, header = close.evaluate(
            "(b) => [getComputedStyle(b).outlineColor, getComputedStyle(b.parentNode).backgroundColor]"
        )
        assert ring != header and ring == "rgb(255, 255, 255)"
        tab_until(page, "Your message")
        type_message(page, "Show me t-shirts")
        wait_for(page, lambda s: not s["busy"] and len(s["assistant"]) == 2 and s["chips"])
        assert overflow_px(page) == 0
        screenshot(page, "widget-phone")
        # A suggestion chip tapped: it sends itself; the panel keeps the focus (the chip is
        # gone) without popping the on-screen keyboard up over the reply.
        chip = root.locator(".chip").first.inner_text()
        root.locator(".chip").first.tap()
        assert focused(page) == "panel"
        wait_for(page, lambda s: not s["busy"] and s["user"][-1] == chip and s["chips"])
        # A chip by keyboard: the message box has the keyboard again, so typing and Escape work.
        tab_until(page, "chip")
        chip = focused_text(page)
        page.keyboard.press("Enter")
        expect(root.locator("textarea")).to_be_focused()
        wait_for(page, lambda s: not s["busy"] and s["user"][-1] == chip)
        # Closed while a reply is being written: the reply is still announced when it is whole.
        type_message(page, "Do you have sneakers under 100 euros?")
        page.keyboard.press("Escape")
        expect(panel).to_be_hidden()
        expect(launcher).to_have_attribute("aria-expanded", "false")
        expect(launcher).to_be_focused()
        done = wait_for(page, lambda s: not s["busy"] and len(s["user"]) == 4)[-1]
        (*_, answer) = answers({"chat__organization_id": demo["organizationId"]})
        assert done["announced"] == answer and not done["liveRegionHidden"]
        # The demo's product images do not resolve (the cards draw a fallback); nothing else
        # may fail on the page.
        assert [e.text for e in errors if "demo-shop.example" not in e.location["url"]] == []


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
            # next reply streams live again (one long enough to come in several pieces).
            wait_for(page, lambda s: s["streamOpen"], timeout=30)
            type_message(page, "Tell me more about it")
            seen = wait_for(page, lambda s: not s["busy"] and len(s["user"]) == 2, timeout=60)
            second = answers(organization)[-1]
            assert seen[-1]["assistant"][-1] == second
            assert streamed(seen, second)
            screenshot(page, "widget-after-restart")


def test_two_tabs_of_one_visitor_show_the_same_conversation(demo):
    with start_server(**DEMO_ENV) as server, chromium() as first:
        # Two tabs of one browser: the demo's session cookie gives both the visitor's chat.
        second = first.context.new_page()
        for page in (first, second):
            page.goto(server.url + PRODUCT_PAGE)
            widget(page).locator(".launcher").click()
            wait_for(page, lambda s: s["streamOpen"] and s["chips"])
        first.bring_to_front()
        type_message(first, "Do you have wireless headphones?")
        wait_for(first, lambda s: not s["busy"] and s["cards"])
        # The other tab shows the exchange once the reply is whole: the message, the stored
        # reply, its products and suggestions; the page's questions are gone.
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        other = wait_for(second, lambda s: s["user"] == ["Do you have wireless headphones?"])[-1]
        assert other["assistant"][-1] == answer
        # (a card's fallback picture is drawn when its image fails to load, whenever that is)
        cards = [{**card, "fallback": None} for card in other["cards"]]
        assert cards == [{**card, "fallback": None} for card in state(first)["cards"]]
        assert other["chips"] == state(first)["chips"]
        screenshot(second, "widget-second-tab")
        # The tab that asked draws its reply once (its stream's last event is no news to it).
        assert len(state(first)["assistant"]) == 2
        # And it works the other way round.
        second.bring_to_front()
        type_message(second, "Is it in stock?")
        wait_for(second, lambda s: not s["busy"] and len(s["assistant"]) == 3)
        back = wait_for(first, lambda s: s["user"][-1:] == ["Is it in stock?"])[-1]
        assert (
            back["assistant"][-1] == answers({"chat__organization_id": demo["organizationId"]})[-1]
        )


def test_the_widget_recovers_when_the_shops_backend_comes_back(demo):
    # Given the shop's session endpoint failing when the page loads (the demo's answers 503
    # while its chatbot cannot be found)
    chatbot = Chatbot.objects.filter(pk=demo["chatbotId"])
    chatbot.update(name="elsewhere")
    with start_server(**DEMO_ENV) as server, chromium() as page:
        page.goto(server.url + PRODUCT_PAGE)
        widget(page).locator(".launcher").click()
        first = wait_for(page, lambda s: s["errors"])[-1]
        assert first["errors"] == ["The assistant is not available right now."]
        assert not first["busy"]  # the shopper may still send
        # When the backend is back, the next message gets a session and is answered, streamed
        chatbot.update(name=DEMO_CHATBOT)
        type_message(page, "Do you have sneakers under 100 euros?")
        seen = wait_for(page, lambda s: not s["busy"] and s["cards"])
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        assert seen[-1]["assistant"][-1] == answer
        assert streamed(seen, answer)


def test_a_reply_that_starts_over_is_shown_from_its_new_start(demo):
    """A language model that stops mid-sentence: the catalog answers instead, and the widget
    drops the model's words rather than writing the new reply after them."""
    Chatbot.objects.filter(pk=demo["chatbotId"]).update(engine="openai")
    gate = threading.Event()
    words = "Let me look through our shoes"
    with (
        fake_openai_server() as fake,
        start_server(
            **DEMO_ENV,
            OPENAI_BASE_URL=fake.base_url,
            OPENAI_API_KEY="sk-provider-test",
            OPENAI_MODEL=MODEL,
            ASSISTANT_FALLBACK="catalog",
        ) as server,
        chromium() as page,
    ):
        page.goto(server.url + PRODUCT_PAGE)
        widget(page).locator(".launcher").click()
        wait_for(page, lambda s: s["streamOpen"] and s["chips"])
        # Scripted only now: the page's questions asked the model too (unanswered, they came
        # from the catalog).
        # The model writes some words, waits for the test, then its connection drops.
        fake.add(
            Step(text=[words + " ", "for you"], gate_after_chunks=2, gate=gate, drop_after_chunks=3)
        )
        type_message(page, "Do you have sneakers under 100 euros?")
        wait_for(page, lambda s: s["assistant"][-1] == words)
        gate.set()
        seen = wait_for(page, lambda s: not s["busy"] and s["cards"])
        (answer,) = answers({"chat__organization_id": demo["organizationId"]})
        assert seen[-1]["assistant"][-1] == answer
        model = words + " for you"
        shown = [s["assistant"][-1] for s in seen]
        assert all(model.startswith(text) or answer.startswith(text) for text in shown), shown
        assert streamed(seen, answer)


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
