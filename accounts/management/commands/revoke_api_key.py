from accounts.management.json_command import JsonCommand
from accounts.services import api_key_revoke


class Command(JsonCommand):
    help = "Revoke an API key by its prefix (e.g. sk_stag_1a2b3c4d); takes effect at once."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("prefix")

    def run(self, *, prefix: str, **options):
        api_key = api_key_revoke(prefix=prefix)
        return {"revoked": True}, f"Revoked {api_key.prefix}"
