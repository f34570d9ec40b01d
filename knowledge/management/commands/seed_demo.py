"""Demo organization, chatbot, catalog and a new staging key
(docs/api.md#operators-command-line)."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.management.base import CommandError

from accounts.management.json_command import JsonCommand
from accounts.models import Chatbot, Organization
from accounts.services import api_key_issue
from knowledge import demo
from knowledge.catalog.report import ImportReport
from knowledge.catalog.services import ImportFile, catalog_import
from knowledge.demo import DEMO_CHATBOT, DEMO_ORGANIZATION

DEMO_GREETING = "Hi! I'm the Demo Shop assistant. What are you looking for today?"


class Command(JsonCommand):
    help = "Create (or refresh) the demo shop and issue a new staging API key for it."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("--banner", action="store_true", help="print how to call the server")

    def run(self, *, banner: bool = False, **options):
        organization, _ = Organization.objects.get_or_create(name=DEMO_ORGANIZATION)
        chatbot, _ = Chatbot.objects.get_or_create(
            organization=organization, name=DEMO_CHATBOT, defaults={"greeting": DEMO_GREETING}
        )
        catalog = demo_catalog_import(organization)
        issued = api_key_issue(
            organization=organization, environment=settings.ASSISTANT_ENVIRONMENT, name="demo"
        )
        result = {
            "organizationId": str(organization.id),
            "chatbotId": str(chatbot.id),
            "apiKey": issued.key,
        }
        catalog_line = (
            f"{catalog.products.created} products created, {catalog.products.updated} updated,"
            f" {catalog.products.removed} removed; {organization.products.count()} in the catalog"
        )
        text = (
            banner_text(result, catalog_line)
            if banner
            else (
                f"Demo organization {organization.id}, chatbot {chatbot.id}, API key {issued.key}"
                f"\nCatalog: {catalog_line}"
            )
        )
        return result, text


def demo_catalog_import(organization: Organization) -> ImportReport:
    """Brings the demo catalog to exactly the shipped files (a full, strict import)."""
    with (
        demo.PRODUCTS.open("rb") as products,
        demo.STORES.open("rb") as stores,
        demo.INVENTORY.open("rb") as inventory,
    ):
        report, _ = catalog_import(
            organization=organization,
            feed=ImportFile(products, demo.PRODUCTS.name),
            stores=ImportFile(stores, demo.STORES.name),
            inventory=ImportFile(inventory, demo.INVENTORY.name),
            full=True,
            strict=True,
            source="seed",
        )
    if not report.succeeded:  # the shipped files are ours: a failure is a bug, say so
        raise CommandError(f"the demo catalog did not import: {report.as_text()}")
    return report


def banner_text(result: dict[str, str], catalog_line: str = "") -> str:
    base = f"http://{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
    return f"""
==========================================================================================
 Demo shop ready.
   Organization id : {result["organizationId"]}
   Chatbot id      : {result["chatbotId"]}
   API key         : {result["apiKey"]}   (staging; shown once)
   Catalog         : {catalog_line}

 Try it:
   curl -s -X POST {base}/v1/chats -H 'x-api-key: {result["apiKey"]}' \\
        -H 'content-type: application/json' -d '{{"chatbotId": "{result["chatbotId"]}"}}'
   curl -s {base}/v1/chats/<chatId>/messages -H 'x-api-key: {result["apiKey"]}'

 Chat with the assistant in the demo shop: {base}/demo/
 API docs: {base}/docs/    Admin: {base}/admin/ (make createsuperuser)
==========================================================================================
"""
