"""What a catalog change renews in a worker, and what it leaves: the catalog's words, the
generated PDP question sets (edited ones stay as edited)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.services import api_key_issue
from knowledge.models import PdpQuestionSet, Product, StoreInventory
from tests.factories import StoreFactory
from tests.knowledge.catalog_files import item, run_import, tsv, write

pytestmark = pytest.mark.django_db

PAGE = "https://shop.example/products/trail-runner-1"
DISCOUNT = "How much is the discount on the Trail Runner 1?"


@pytest.fixture
def catalog(tenant) -> APIClient:
    client = APIClient()
    client.credentials(
        HTTP_X_API_KEY=api_key_issue(organization=tenant.organization, scope="catalog").key
    )
    return client


def put(catalog: APIClient, number: int, **overrides: str) -> None:
    values = {name: value for name, value in item(number, **overrides).items() if value}
    response = catalog.put(f"/v1/catalog/products/SKU-{number}", values, format="json")
    assert response.status_code in (200, 201), response.content


def patch(catalog: APIClient, number: int, **values) -> None:
    response = catalog.patch(f"/v1/catalog/products/SKU-{number}", values, format="json")
    assert response.status_code == 200, response.content


def spelling_lookups(tenant, message: str) -> tuple[dict, list[str]]:
    """The reply to `message` in a new chat, and the queries of the catalog's words it ran."""
    client = tenant.client
    chat = client.post("/v1/chats", {"chatbotId": str(tenant.chatbot.id)}, format="json").json()
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            f"/v1/chats/{chat['id']}/messages",
            {"message": message, "currentUrl": "https://shop.example/"},
            format="json",
        )
    assert response.status_code == 201
    lookups = [query["sql"] for query in queries if "knowledge_searchterm" in query["sql"]]
    return response.json(), lookups


def test_new_words_are_looked_up_again_but_a_price_change_keeps_them(tenant, catalog):
    put(catalog, 1, title="Velvet Mascara", product_type="Beauty > Eyes")
    first, first_lookups = spelling_lookups(tenant, "any mascra?")
    assert "Velvet Mascara" in first["products"][0]["designation"]
    assert first_lookups
    assert not spelling_lookups(tenant, "any mascra?")[1]

    # A price or stock change leaves the catalog's words as they were: nothing read again
    patch(catalog, 1, price="12.00 EUR", availability="out_of_stock")
    again, again_lookups = spelling_lookups(tenant, "any mascra?")
    assert not again_lookups and again["products"][0]["price"] == 12.0

    # A new product may bring new words: they are read again
    put(catalog, 2, title="Silk Mascara", product_type="Beauty > Eyes")
    after, after_lookups = spelling_lookups(tenant, "any mascra?")
    assert after_lookups
    assert "Silk Mascara" in {product["designation"] for product in after["products"]}


def generated_set(tenant) -> dict:
    response = APIClient().post(
        "/v1/knowledge/pdp-questions/public/get-questions",
        {"organizationId": str(tenant.organization.pk), "url": PAGE},
        format="json",
    )
    assert response.status_code == 200
    return response.json()


def public_questions(tenant) -> list[str]:
    response = APIClient().get(
        f"/v1/knowledge/pdp-questions/{tenant.organization.pk}/public", {"url": PAGE}
    )
    return [question["text"] for question in response.json()["questions"]]


def test_a_generated_question_set_follows_the_product_and_keeps_its_count(tenant, catalog):
    put(catalog, 1)
    before = generated_set(tenant)
    assert DISCOUNT not in [question["text"] for question in before["questions"]]

    patch(catalog, 1, sale_price="59.90 EUR")

    assert DISCOUNT in public_questions(tenant)
    after = generated_set(tenant)
    assert after["id"] == before["id"] and after["requests"] == before["requests"] + 2


def test_a_new_price_that_keeps_it_off_sale_leaves_the_set_alone(tenant, catalog):
    put(catalog, 1)
    generated_set(tenant)
    stored = PdpQuestionSet.objects.get(organization=tenant.organization)

    patch(catalog, 1, price="79.00 EUR", quantity=3)

    assert PdpQuestionSet.objects.get(pk=stored.pk).updated_at == stored.updated_at


def test_an_import_refreshes_generated_sets_too(tenant, tmp_path):
    feed = write(tmp_path / "feed.tsv", tsv([item(1)]))
    assert not run_import(str(tenant.organization.pk), str(feed))[1]
    generated_set(tenant)

    feed = write(tmp_path / "feed.tsv", tsv([item(1, sale_price="59.90 EUR")]))
    assert not run_import(str(tenant.organization.pk), str(feed))[1]

    assert DISCOUNT in public_questions(tenant)


STORES_QUESTION = "Which stores have the Trail Runner 1 in stock?"
STOCK_QUESTION = "Is the Trail Runner 1 in stock?"


def stock_put(catalog: APIClient, **values) -> None:
    response = catalog.put("/v1/catalog/inventory/berlin/SKU-1", values, format="json")
    assert response.status_code in (200, 201), response.content


def test_store_stock_set_through_the_api_changes_the_questions_only_when_it_comes_or_goes(
    tenant, catalog, tmp_path
):
    # Given a product, a store without stock of it, and the product page's question set
    feed = write(tmp_path / "feed.tsv", tsv([item(1)]))
    stores = write(tmp_path / "stores.tsv", "store_code\tname\nberlin\tBerlin Mitte\n")
    assert not run_import(str(tenant.organization.pk), str(feed), "--stores", str(stores))[1]
    generated_set(tenant)
    assert STORES_QUESTION not in public_questions(tenant)

    # When the store gets it in stock, the page asks which stores have it
    stock_put(catalog, availability="in_stock", quantity=4)
    questions = public_questions(tenant)
    assert STORES_QUESTION in questions and STOCK_QUESTION not in questions

    # A new quantity that stays in stock regenerates nothing
    stored = PdpQuestionSet.objects.get(organization=tenant.organization)
    with CaptureQueriesContext(connection) as queries:
        stock_put(catalog, availability="in_stock", quantity=3)
    assert PdpQuestionSet.objects.get(pk=stored.pk).updated_at == stored.updated_at
    assert not [q for q in queries if "knowledge_pdpquestion" in q["sql"]]

    # Sold out in the store: no more asking which stores have it
    stock_put(catalog, availability="out_of_stock", quantity=0)
    questions = public_questions(tenant)
    assert STORES_QUESTION not in questions and STOCK_QUESTION in questions


def test_an_inventory_import_changes_the_questions_of_the_products_it_restocks(tenant, tmp_path):
    org = str(tenant.organization.pk)
    feed = write(tmp_path / "feed.tsv", tsv([item(1), item(2, item_group_id="")]))
    stores = write(tmp_path / "stores.tsv", "store_code\tname\nberlin\tBerlin Mitte\n")

    def import_inventory(rows: str, *options: str) -> None:
        inventory = write(
            tmp_path / "inventory.tsv", "store_code\tid\tavailability\tquantity\n" + rows
        )
        args = (org, str(feed), "--stores", str(stores), "--inventory", str(inventory), *options)
        assert not run_import(*args)[1]

    import_inventory("berlin\tSKU-2\tin_stock\t9\n")
    generated_set(tenant)
    assert STORES_QUESTION not in public_questions(tenant)

    # The same product feed with new store stock: only the inventory changed
    import_inventory("berlin\tSKU-1\tin_stock\t2\nberlin\tSKU-2\tin_stock\t9\n")
    assert STORES_QUESTION in public_questions(tenant)

    import_inventory("berlin\tSKU-1\tout_of_stock\t0\nberlin\tSKU-2\tin_stock\t9\n")
    assert STORES_QUESTION not in public_questions(tenant)

    import_inventory("berlin\tSKU-1\tin_stock\t2\nberlin\tSKU-2\tin_stock\t9\n")
    assert STORES_QUESTION in public_questions(tenant)

    # A full import without the product's row removes its stock, and the question
    import_inventory("berlin\tSKU-2\tin_stock\t9\n", "--full")
    assert STORES_QUESTION not in public_questions(tenant)


def test_a_set_an_operator_edited_stays_as_edited(tenant, catalog, operator_client):
    put(catalog, 1)
    question_set = PdpQuestionSet.objects.get(pk=generated_set(tenant)["id"])
    question = question_set.questions.first()
    form = {
        "organization": tenant.organization.pk,
        "url": PAGE,
        "product_title": "Trail Runner 1",
        "questions-TOTAL_FORMS": "1",
        "questions-INITIAL_FORMS": "1",
        "questions-0-id": question.pk,
        "questions-0-question_set": question_set.pk,
        "questions-0-rank": "1",
        "questions-0-text": "Our own question?",
    }
    response = operator_client.post(
        f"/admin/knowledge/pdpquestionset/{question_set.pk}/change/", form
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    edited = public_questions(tenant)
    assert edited[0] == "Our own question?"

    patch(catalog, 1, sale_price="59.90 EUR")

    assert public_questions(tenant) == edited


def test_a_product_edited_in_the_console_updates_its_question_set(tenant, catalog, operator_client):
    put(catalog, 1)
    generated_set(tenant)
    product = Product.objects.get(organization=tenant.organization, item_id="SKU-1")
    change = f"/admin/knowledge/product/{product.pk}/change/"
    form = {
        name: ("" if value is None else value)
        for name, value in model_to_dict(product).items()
        if name != "id"
    }
    form.update(
        sale_price="59.90",
        **{
            "inventory-TOTAL_FORMS": "0",
            "inventory-INITIAL_FORMS": "0",
            "inventory-MIN_NUM_FORMS": "0",
            "inventory-MAX_NUM_FORMS": "1000",
        },
    )

    response = operator_client.post(change, form)

    assert response.status_code == 302, response.content.decode()[:3000]
    assert DISCOUNT in public_questions(tenant)


def test_store_stock_edited_in_the_console_updates_the_question_set(
    tenant, catalog, operator_client
):
    put(catalog, 1)
    generated_set(tenant)
    product = Product.objects.get(organization=tenant.organization, item_id="SKU-1")
    store = StoreFactory(organization=tenant.organization, code="berlin")

    # Stock added on the product's page, in its store stock rows
    form = {
        name: ("" if value is None else value)
        for name, value in model_to_dict(product).items()
        if name != "id"
    }
    form.update(
        {
            "inventory-TOTAL_FORMS": "1",
            "inventory-INITIAL_FORMS": "0",
            "inventory-MIN_NUM_FORMS": "0",
            "inventory-MAX_NUM_FORMS": "1000",
            "inventory-0-store": store.pk,
            "inventory-0-availability": "in_stock",
            "inventory-0-quantity": "2",
            "inventory-0-location": "[]",
        }
    )
    response = operator_client.post(f"/admin/knowledge/product/{product.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert STORES_QUESTION in public_questions(tenant)

    # Sold out, on the store stock page
    stock = StoreInventory.objects.get(product=product)
    response = operator_client.post(
        f"/admin/knowledge/storeinventory/{stock.pk}/change/",
        {
            "product": product.pk,
            "store": store.pk,
            "availability": "out_of_stock",
            "quantity": "0",
            "location": "[]",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    assert STORES_QUESTION not in public_questions(tenant)


def test_importing_more_products_than_a_statement_takes_parameters_succeeds(tenant, tmp_path):
    # Given a catalog of 66,000 items (more URLs than PostgreSQL's 65,535 statement parameters)
    feed = write(tmp_path / "feed.tsv", tsv([item(number) for number in range(66_000)]))

    # When it is imported, every item's URL counting as changed for the question sets
    summary, failed = run_import(str(tenant.organization.pk), str(feed))

    # Then the import succeeds whole
    assert not failed, summary
    assert summary["created"] == 66_000
