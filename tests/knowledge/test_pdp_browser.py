"""The PDP demo page in headless Chromium: a shop origin calling our server across origins.

The real server (gunicorn) and a second loopback origin serving examples/pdp-demo/ run side
by side; the page's script calls both PDP endpoints with fetch() and renders buttons, which
the test reads from the DOM. Needs Debian's chromium (no browser download).
"""

from __future__ import annotations

import functools
import io
import json
import re
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from knowledge.models import PdpQuestionSet
from tests.browser import chromium, needs_chromium, screenshot
from tests.factories import OrganizationFactory, ProductFactory

pytestmark = [pytest.mark.browser, pytest.mark.e2e, needs_chromium]

DEMO = Path(__file__).resolve().parents[2] / "examples" / "pdp-demo"
PAGE = "https://demo-shop.example/products/stride-air-sneaker?color=white&size=42"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:
        pass


@pytest.fixture(scope="module")
def shop_origin() -> Iterator[str]:
    """The shop's own web server: another origin (another port) on loopback."""
    handler = functools.partial(_QuietHandler, directory=str(DEMO))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def demo_organization_id() -> str:
    out = io.StringIO()
    call_command("seed_demo", "--json", stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])["organizationId"]


def load(page, url: str) -> dict:
    """Opens the page and waits for the script to finish; what the DOM shows."""
    page.goto(url)
    container = page.locator("#pdp-questions")
    expect(container).to_have_attribute(
        "data-state", re.compile(r"^(ready|empty|error)$"), timeout=20_000
    )
    buttons = container.locator("button.pdp-question")
    return {
        "state": container.get_attribute("data-state"),
        "via": container.get_attribute("data-via"),
        "error": container.get_attribute("data-error"),
        "questions": [
            (int(b.get_attribute("data-rank") or 0), b.inner_text()) for b in buttons.all()
        ],
        "buttons": buttons,
    }


def test_demo_page_shows_the_generated_questions_as_buttons(live, shop_origin):
    organization_id = demo_organization_id()
    url = f"{shop_origin}/index.html?api={live.url}&org={organization_id}"

    with chromium() as page:
        # First visit: the GET finds no set (404), the POST generates one from the catalog.
        first = load(page, url)
        assert first["state"] == "ready", first["error"]
        assert first["via"] == "post"
        ranks = [rank for rank, _ in first["questions"]]
        texts = [text for _, text in first["questions"]]
        assert ranks == list(range(1, len(texts) + 1))
        assert 3 <= len(texts) <= 6
        assert any("Stride Air Sneaker White" in text for text in texts)
        path = screenshot(page, "pdp-demo")
        assert path.stat().st_size > 10_000

        stored = PdpQuestionSet.objects.get(organization_id=organization_id, url=PAGE)
        assert [q.text for q in stored.questions.order_by("rank")] == texts

        # A click hands the question to the page (the shop's chat widget would send it).
        first["buttons"].first.click()
        expect(page.locator("#asked")).to_have_text(f"You asked: {texts[0]}")

    with chromium() as page:
        # Next visit, another browser: the GET answers with the stored set.
        again = load(page, url)
        assert again["state"] == "ready" and again["via"] == "get"
        assert [text for _, text in again["questions"]] == texts


def test_an_organization_that_lists_origins_is_served_only_to_those(live, shop_origin):
    listed = OrganizationFactory(allowed_origins=[shop_origin])
    other = OrganizationFactory(allowed_origins=["https://elsewhere.example"])
    for organization in (listed, other):
        ProductFactory(
            organization=organization,
            url=PAGE,
            title="Stride Air Sneaker White",
            product_type="Shoes > Sneakers",
        )

    with chromium() as page:
        allowed = load(page, f"{shop_origin}/index.html?api={live.url}&org={listed.id}")
        refused = load(page, f"{shop_origin}/index.html?api={live.url}&org={other.id}")

    assert allowed["state"] == "ready", allowed["error"]
    assert len(allowed["questions"]) >= 3
    # The browser refuses to hand the page a response that does not allow its origin.
    assert refused["state"] == "error"
    assert refused["questions"] == []
    assert not PdpQuestionSet.objects.filter(organization=other).exists()
