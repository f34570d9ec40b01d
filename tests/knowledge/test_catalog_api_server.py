"""The catalog API on the real server: concurrent batches over the same items all succeed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from accounts.services import api_key_issue
from knowledge.models import Product
from tests.factories import OrganizationFactory
from tests.knowledge.catalog_files import item

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ITEMS = 200
ROUNDS = 6


def test_concurrent_batches_over_the_same_items_in_opposite_orders_all_succeed(live):
    organization = OrganizationFactory()
    key = api_key_issue(organization=organization, scope="catalog").key
    client = httpx.Client(base_url=live.url, headers={"x-api-key": key}, timeout=60)
    ids = [f"SKU-{number}" for number in range(ITEMS)]
    products = [
        {"method": "PUT", "id": f"SKU-{n}", "product": {k: v for k, v in item(n).items() if v}}
        for n in range(ITEMS)
    ]
    assert client.post("/v1/catalog/products/batch", json={"items": products}).status_code == 200

    def batch(round_number: int) -> list[int]:
        order = ids if round_number % 2 else list(reversed(ids))
        price = f"{10 + round_number}.00 EUR"
        items = [{"method": "PATCH", "id": i, "product": {"price": price}} for i in order]
        response = client.post("/v1/catalog/products/batch", json={"items": items})
        assert response.status_code == 200, response.text
        return [result["status"] for result in response.json()["results"]]

    with ThreadPoolExecutor(max_workers=ROUNDS) as pool:
        statuses = list(pool.map(batch, range(ROUNDS)))

    assert all(status == [200] * ITEMS for status in statuses)
    # Each batch is one transaction: every item has the price of one and the same batch.
    assert Product.objects.filter(organization=organization).values("price").distinct().count() == 1
