from accounts.management.json_command import JsonCommand
from accounts.models import LANGUAGES
from accounts.services import chatbot_create, organization_resolve


class Command(JsonCommand):
    help = "Create a chatbot for an organization (ORG is its id or exact name)."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org")
        parser.add_argument("name")
        parser.add_argument("--greeting", default="", help="first message of every new chat")
        parser.add_argument(
            "--language",
            default="",
            choices=["", *(code for code, _ in LANGUAGES)],
            help="the shoppers' language, for messages too short to tell (default: the org's)",
        )

    def run(self, *, org: str, name: str, greeting: str, language: str, **options):
        chatbot = chatbot_create(
            organization=organization_resolve(ref=org),
            name=name,
            greeting=greeting,
            language=language,
        )
        return {"chatbotId": str(chatbot.id)}, f"Created chatbot {chatbot.name} ({chatbot.id})"
