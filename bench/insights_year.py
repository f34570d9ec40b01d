"""Insights on a year of data at 10,000 messages a day (PostgreSQL).

Builds one organization with two chatbots and a year of the daily rows refresh_insights
writes at that traffic (5,000 shopper messages and 5,000 replies a day; the top 100 terms
of each kind per chatbot and day, as the rollup keeps them), plus one day of raw chats,
messages, events and feedback at that traffic. Then measures, in the same run:

- the insights page (GET through Django's test client, signed in) for a year, against the
  same page for 7 days (the baseline);
- the year's CSV of searches that found nothing;
- refresh_insights of the raw day, against reading that day's messages (the baseline).

    .venv/bin/python bench/insights_year.py

Environment: INSIGHTS_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/
insights_bench, dropped and created), INSIGHTS_BENCH_DAYS (365), INSIGHTS_BENCH_MESSAGES
(10000 a day), INSIGHTS_BENCH_RUNS (15). Prints a Markdown table; writes
var/bench/insights_year.json.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DATABASE_URL = os.environ.get(
    "INSIGHTS_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/insights_bench"
)
DAYS = int(os.environ.get("INSIGHTS_BENCH_DAYS", "365"))
MESSAGES = int(os.environ.get("INSIGHTS_BENCH_MESSAGES", "10000"))
RUNS = int(os.environ.get("INSIGHTS_BENCH_RUNS", "15"))
TERMS = 100  # per kind, chatbot and day (insights/rollup.py TOP_TERMS)
VAR = ROOT / "var" / "bench"
ENV = {
    **os.environ,
    "DATABASE_URL": DATABASE_URL,
    "SECRET_KEY": "insights-bench",
    "DJANGO_SETTINGS_MODULE": "assistant_api.settings",
    "SECURE_COOKIES": "0",
}


def main() -> None:
    recreate_database()
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=ENV, check=True)
    os.environ.update(ENV)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["*"]
    organization, chatbots = organization_with_chatbots()
    started = time.perf_counter()
    year_of_rows(organization, chatbots)
    built = time.perf_counter() - started
    day = raw_day(organization, chatbots)

    client = signed_in_client()
    page = f"/admin/insights/insightday/organization/{organization.pk}/"
    today = dt.date.today()
    year = {"start": (today - dt.timedelta(DAYS - 1)).isoformat(), "end": today.isoformat()}
    week = {"start": (today - dt.timedelta(6)).isoformat(), "end": today.isoformat()}

    def get(url: str, query: dict) -> None:
        response = client.get(url, query)
        assert response.status_code == 200, response.status_code

    from chats.models import Message
    from insights.rollup import insights_refresh

    def read_day() -> None:
        start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
        list(
            Message.objects.filter(
                chat__created_at__gte=start, chat__created_at__lt=start + dt.timedelta(1)
            ).values_list("chat_id", "type", "content", "products")
        )

    rows = [
        measure("page, 7 days (baseline)", lambda: get(page, week)),
        measure(f"page, {DAYS} days", lambda: get(page, year)),
        measure(
            f"CSV of searches that found nothing, {DAYS} days",
            lambda: get(page + "empty_searches.csv", year),
        ),
        measure("read one day's messages (baseline)", read_day, runs=3),
        measure(
            f"refresh_insights of one day ({MESSAGES:,} messages)",
            lambda: insights_refresh(day=day),
            runs=3,
        ),
    ]
    VAR.mkdir(parents=True, exist_ok=True)
    result = {"days": DAYS, "messages_per_day": MESSAGES, "build_seconds": built, "rows": rows}
    (VAR / "insights_year.json").write_text(json.dumps(result, indent=2))
    print(table(rows))


def recreate_database() -> None:
    parts = urlsplit(DATABASE_URL)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    for sql in (f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"'):
        subprocess.run(["psql", admin, "-qc", sql], check=True)


def organization_with_chatbots():
    from accounts.models import Chatbot, Organization

    organization = Organization.objects.create(name="Insights Bench Shop")
    chatbots = [
        Chatbot.objects.create(organization=organization, name=f"Chatbot {n}") for n in (1, 2)
    ]
    return organization, chatbots


def year_of_rows(organization, chatbots) -> None:
    """What refresh_insights leaves after a year: a day row and the top terms per chatbot."""
    from insights.models import InsightDay, InsightTerm, TermKind

    rng = random.Random(7)
    today = dt.date.today()
    per_bot = MESSAGES // 2 // len(chatbots)  # shopper messages; as many replies
    kinds = [
        (TermKind.CATEGORY, TERMS),
        (TermKind.BRAND, TERMS),
        (TermKind.PRICE_BAND, 7),
        (TermKind.LANGUAGE, 7),
        (TermKind.EMPTY_SEARCH, TERMS),
        (TermKind.PRODUCT, TERMS),
    ]
    for offset in range(DAYS):
        day = today - dt.timedelta(offset)
        days, terms = [], []
        for chatbot in chatbots:
            days.append(
                InsightDay(
                    organization=organization,
                    chatbot=chatbot,
                    day=day,
                    conversations=per_bot // 4,
                    shopper_messages=per_bot,
                    replies=per_bot,
                    replies_with_products=per_bot * 7 // 10,
                    failed_replies=per_bot // 100,
                    searches=per_bot,
                    empty_searches=per_bot // 10,
                    feedback_up=per_bot // 50,
                    feedback_down=per_bot // 200,
                )
            )
            for kind, count in kinds:
                for n in range(count):
                    terms.append(
                        InsightTerm(
                            organization=organization,
                            chatbot=chatbot,
                            day=day,
                            kind=kind,
                            key=f"{kind} {rng.randrange(count * 3)} {n}",
                            detail="maxPrice: 100" if kind == TermKind.EMPTY_SEARCH else "",
                            count=rng.randrange(1, 200),
                        )
                    )
        InsightDay.objects.bulk_create(days)
        InsightTerm.objects.bulk_create(terms, batch_size=2000)


def raw_day(organization, chatbots) -> dt.date:
    """Yesterday's conversations at MESSAGES a day: chats of four questions and four replies,
    a search per question (one in ten finding nothing), some failures and ratings."""
    from chats.models import Chat, Event, Feedback, Message

    day = dt.date.today() - dt.timedelta(1)
    start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
    rng = random.Random(11)
    product = {"gtin": "4006381333931", "designation": "Trail Runner", "brand": "Stride"}
    words = ["trail shoes under 100", "Haben Sie Laufschuhe?", "red dress size M", "cheap mug"]
    for chat_number in range(MESSAGES // 8):
        at = start + dt.timedelta(seconds=chat_number * 86400 * 8 // MESSAGES)
        chat = Chat.objects.create(
            organization=organization, chatbot=chatbots[chat_number % 2], created_at=at
        )
        messages, events = [], []
        for _ in range(4):
            messages.append(
                Message(chat=chat, type="user", content=rng.choice(words), created_at=at)
            )
            total = 0 if rng.random() < 0.1 else 12
            events.append(
                Event(
                    chat=chat,
                    status="completed",
                    tool_name="search_products",
                    tool_args={"query": "shoes", "category": "Shoes", "maxPrice": 100},
                    tool_response={"total": total, "products": [product] * min(total, 4)},
                    created_at=at,
                )
            )
            messages.append(
                Message(
                    chat=chat, type="answer", content="Here.", products=[product] * 4, created_at=at
                )
            )
        Message.objects.bulk_create(messages)
        Event.objects.bulk_create(events)
        if chat_number % 20 == 0:
            Feedback.objects.create(message=messages[-1], chat=chat, rating="down", reason="other")
    return day


def signed_in_client():
    from django.contrib.auth.models import User
    from django.test import Client

    user = User.objects.create_superuser("bench", "bench@example.com", "bench")
    client = Client()
    client.force_login(user)
    return client


def measure(case: str, function: Callable[[], object], runs: int = RUNS) -> dict:
    function()  # warm
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "case": case,
        "runs": runs,
        "p50_ms": round(statistics.median(timings), 1),
        "max_ms": round(max(timings), 1),
    }


def table(rows: list[dict]) -> str:
    lines = [
        f"| Case ({DAYS} days at {MESSAGES:,} messages a day) | Runs | p50 ms | max ms | x baseline |",
        "|---|---:|---:|---:|---:|",
    ]
    baselines = {0: rows[0], 1: rows[0], 2: rows[0], 3: rows[3], 4: rows[3]}
    for index, row in enumerate(rows):
        ratio = row["p50_ms"] / baselines[index]["p50_ms"]
        lines.append(
            f"| {row['case']} | {row['runs']} | {row['p50_ms']} | {row['max_ms']} | {ratio:.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
