"""The demo shop `make run` serves at /demo/ (docs/api.md, "Shop front-ends")."""

from __future__ import annotations

import io
import re

import httpx
import pytest
from django.core.management import call_command
from django.test import override_settings

from assistant_api.checks import check_environment
from knowledge.demo import DEMO_ORGANIZATION
from knowledge.models import Product
from tests.server import start_server


def test_the_demo_shop_is_off_unless_asked_for(client, db):
    for path in ("/demo/", "/demo/products/SNK-AIR-WHI-40"):
        assert client.get(path).status_code == 404
    assert client.post("/demo/session").status_code == 404


@override_settings(ASSISTANT_ENVIRONMENT="production", DEMO_SHOP=True, DEBUG=False)
def test_production_refuses_the_demo_shop():
    assert "assistant.E006" in {problem.id for problem in check_environment(None)}


@pytest.mark.e2e
def test_the_demo_shop_lists_products_and_hands_the_widget_a_session(transactional_db):
    out = io.StringIO()
    call_command("seed_demo", "--banner", stdout=out)
    assert re.search(r"http://[^ ]+/demo/", out.getvalue())  # the banner says where it is

    with start_server(DEMO_SHOP="1") as server, httpx.Client(base_url=server.url) as browser:
        listing = browser.get("/demo/")
        assert listing.status_code == 200
        # One tile per product family (variants share item_group_id).
        products = Product.objects.filter(organization__name=DEMO_ORGANIZATION)
        families = {product.item_group_id or product.item_id for product in products}
        assert listing.text.count('<li class="tile">') == len(families) > 10
        assert "shop-assistant/shop-assistant.js" in listing.text
        page = browser.get("/demo/products/SNK-AIR-WHI-40")
        assert page.status_code == 200
        # The widget sends the catalog's address of the product as the page.
        assert (
            '<link rel="canonical" '
            'href="https://demo-shop.example/products/stride-air-sneaker?color=white&amp;size=40">'
        ) in page.text
        assert browser.get("/demo/products/NO-SUCH-ITEM").status_code == 404

        first = browser.post("/demo/session").json()
        again = browser.post("/demo/session").json()  # the same visitor (session cookie)
        assert set(first) == {"chatId", "token", "expiresAt"}
        assert again["chatId"] == first["chatId"]
        chat = browser.get(
            f"/v1/chats/{first['chatId']}", headers={"Authorization": f"Bearer {again['token']}"}
        )
        assert chat.status_code == 200
        other_visitor = httpx.post(f"{server.url}/demo/session").json()
        assert other_visitor["chatId"] != first["chatId"]
