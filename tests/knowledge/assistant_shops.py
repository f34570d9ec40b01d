"""Shops for the assistant's tests: the demo-shop feed (catalogs/) and the eval's fashion feed, imported
with the operators' `import_catalog` command, each with a chatbot, an API key and a client.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from rest_framework.test import APIClient

from accounts.models import Chatbot, Organization
from accounts.services import api_key_issue
from tests.factories import ChatbotFactory, OrganizationFactory
from tests.knowledge.catalog_files import DEMO_CATALOGS, ROOT, run_import

DEMO_FILES = (
    DEMO_CATALOGS / "demo-shop-products.tsv",
    DEMO_CATALOGS / "demo-shop-local-inventory.tsv",
    DEMO_CATALOGS / "demo-shop-stores.tsv",
)
FASHION_FILES = (
    ROOT / "eval" / "catalogs" / "fashion-products.tsv",
    ROOT / "eval" / "catalogs" / "fashion-local-inventory.tsv",
    ROOT / "eval" / "catalogs" / "fashion-stores.tsv",
)
# A French grocery (Organization.language "fr").
GROCERY_FILES = (
    ROOT / "eval" / "catalogs" / "epicerie-products.tsv",
    ROOT / "eval" / "catalogs" / "epicerie-local-inventory.tsv",
    ROOT / "eval" / "catalogs" / "epicerie-stores.tsv",
)


@dataclass
class Shop:
    organization: Organization
    chatbot: Chatbot
    client: APIClient
    key: str

    def chat(self) -> str:
        response = self.client.post("/v1/chats", {"chatbotId": str(self.chatbot.id)}, format="json")
        assert response.status_code == 201
        return response.json()["id"]

    def say(self, chat_id: str, message: str, url: str = "https://shop.example/", store: str = ""):
        path = f"/v1/chats/{chat_id}/messages" + (f"?store={store}" if store else "")
        return self.client.post(path, {"message": message, "currentUrl": url}, format="json")


def shop_import(name: str, files: tuple[Path, Path, Path], language: str = "en") -> Shop:
    organization = OrganizationFactory(name=name, language=language)
    products, inventory, stores = files
    summary, failed = run_import(
        str(organization.id),
        str(products),
        "--stores",
        str(stores),
        "--inventory",
        str(inventory),
    )
    assert not failed, summary
    chatbot = ChatbotFactory(organization=organization)
    key = api_key_issue(organization=organization).key
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key)
    return Shop(organization, chatbot, client, key)


@contextmanager
def imported_shop(django_db_blocker, name: str, files, language: str = "en") -> Iterator[Shop]:
    """A shop imported once for a test module, rolled back at its end; its catalog in
    `language`."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield shop_import(name, files, language)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


# The catalog `make run` seeds (knowledge/demo/), which ships with the repository.
MAKE_RUN_DEMO_FILES = (
    ROOT / "knowledge" / "demo" / "products.tsv",
    ROOT / "knowledge" / "demo" / "inventory.tsv",
    ROOT / "knowledge" / "demo" / "stores.tsv",
)
