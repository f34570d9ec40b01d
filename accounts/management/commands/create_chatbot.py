from accounts.management.json_command import JsonCommand
from accounts.services import chatbot_create, organization_resolve


class Command(JsonCommand):
    help = "Create a chatbot for an organization (ORG is its id or exact name)."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("org")
        parser.add_argument("name")
        parser.add_argument("--greeting", default="", help="first message of every new chat")

    def run(self, *, org: str, name: str, greeting: str, **options):
        chatbot = chatbot_create(
            organization=organization_resolve(ref=org), name=name, greeting=greeting
        )
        return {"chatbotId": str(chatbot.id)}, f"Created chatbot {chatbot.name} ({chatbot.id})"
