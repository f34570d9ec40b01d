"""`manage.py purge_expired`: deletes the chats older than each organization's retention
period (meant for a daily cron); organizations without one keep everything."""

from __future__ import annotations

from accounts.management.json_command import JsonCommand
from chats.erasure import Removed, expired_purge


class Command(JsonCommand):
    help = (
        "Delete chats (with messages, events and feedback) started longer ago than their "
        "organization's retention period. Run it daily."
    )

    def run(self, **options):
        removed = expired_purge()
        total = Removed()
        for counts in removed.values():
            total.add(counts)
        lines = [
            f"{name}: {counts.chats} chats, {counts.messages} messages, {counts.events} events, "
            f"{counts.feedback} feedback removed."
            for name, counts in sorted(removed.items())
        ]
        text = "\n".join(lines) if lines else "No organization has a retention period."
        result = {
            "organizations": {name: counts.as_dict() for name, counts in removed.items()},
            **total.as_dict(),
        }
        return result, text
