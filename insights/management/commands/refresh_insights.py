"""`manage.py refresh_insights`: recomputes the insights' daily rows (meant for an hourly
cron: today and yesterday by default, since a chat started yesterday may still be going)."""

from __future__ import annotations

import datetime as dt

from django.core.management.base import CommandError

from accounts.management.json_command import JsonCommand
from insights.rollup import insights_refresh


class Command(JsonCommand):
    help = "Recompute the insights' daily figures of the last days (default: yesterday, today)."

    def add_command_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=2, help="days back from today, 1-400")
        parser.add_argument("--date", help="one day (YYYY-MM-DD) instead of the last days")

    def run(self, *, days: int, date: str | None, **options):
        if date:
            try:
                wanted = [dt.date.fromisoformat(date)]
            except ValueError as exc:
                raise CommandError(f"--date must be YYYY-MM-DD: {date!r}") from exc
        else:
            if not 1 <= days <= 400:
                raise CommandError("--days must be between 1 and 400")
            today = dt.datetime.now(dt.UTC).date()
            wanted = [today - dt.timedelta(days=n) for n in reversed(range(days))]
        rows = {day.isoformat(): insights_refresh(day=day) for day in wanted}
        text = "\n".join(f"{day}: {count} chatbot day(s)" for day, count in rows.items())
        return {"days": rows}, text
