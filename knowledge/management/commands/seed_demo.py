"""Demo organization, chatbot, catalog and a new staging key (contract §9)."""

from __future__ import annotations

import os

from django.conf import settings

from accounts.management.json_command import JsonCommand
from accounts.models import Chatbot, Organization
from accounts.services import api_key_issue

DEMO_ORGANIZATION = "Demo Shop"
DEMO_CHATBOT = "Demo Assistant"
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
        issued = api_key_issue(
            organization=organization, environment=settings.ASSISTANT_ENVIRONMENT, name="demo"
        )
        result = {
            "organizationId": str(organization.id),
            "chatbotId": str(chatbot.id),
            "apiKey": issued.key,
        }
        text = (
            banner_text(result)
            if banner
            else (
                f"Demo organization {organization.id}, chatbot {chatbot.id}, API key {issued.key}"
            )
        )
        return result, text


def banner_text(result: dict[str, str]) -> str:
    base = f"http://{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
    return f"""
==========================================================================================
 Demo shop ready.
   Organization id : {result["organizationId"]}
   Chatbot id      : {result["chatbotId"]}
   API key         : {result["apiKey"]}   (staging; shown once)

 Try it:
   curl -s -X POST {base}/v1/chats -H 'x-api-key: {result["apiKey"]}' \\
        -H 'content-type: application/json' -d '{{"chatbotId": "{result["chatbotId"]}"}}'
   curl -s {base}/v1/chats/<chatId>/messages -H 'x-api-key: {result["apiKey"]}'

 API docs: {base}/docs/    Admin: {base}/admin/ (python manage.py createsuperuser)
==========================================================================================
"""
