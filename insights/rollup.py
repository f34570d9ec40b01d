"""Computes the insights' daily rows from the chats started on a day (refresh_insights).

A day is recomputed whole, so running it again (every hour for today and yesterday) is
safe. Chats are read in chunks by their ids, with the messages, events and feedback of each
chunk by their chat-first indexes; a day of 10,000 messages is a few seconds (BENCHMARKS.md).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models.fields.json import KeyTextTransform
from django.utils import timezone

from chats.models import Chat, Event, EventStatus, Feedback, FeedbackRating, Message, MessageType
from insights import understood
from insights.models import InsightDay, InsightTerm, TermKind

CHUNK = 500  # chat ids per query (SQLite allows a few thousand parameters)
TOP_TERMS = 100  # kept per kind, chatbot and day: a year stays a few hundred thousand rows
SEARCH_TOOL = "search_products"
KEY_CHARS = 300

Owner = tuple[uuid.UUID, uuid.UUID]  # organization, chatbot


@dataclass
class Tally:
    """One chatbot's day being counted."""

    figures: Counter[str] = field(default_factory=Counter)
    terms: dict[str, Counter[tuple[str, str]]] = field(default_factory=lambda: defaultdict(Counter))


def insights_refresh(*, day: dt.date, organization_id: uuid.UUID | None = None) -> int:
    """Recomputes the day's rows (of one organization, or all); the number of day rows."""
    start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
    chats = Chat.objects.filter(created_at__gte=start, created_at__lt=start + dt.timedelta(1))
    if organization_id is not None:
        chats = chats.filter(organization_id=organization_id)
    owners: dict[uuid.UUID, Owner] = {
        chat_id: (org, bot)
        for chat_id, org, bot in chats.values_list("pk", "organization_id", "chatbot_id")
    }
    tallies: dict[Owner, Tally] = defaultdict(Tally)
    for owner in owners.values():
        tallies[owner].figures["conversations"] += 1
    chat_ids = list(owners)
    for offset in range(0, len(chat_ids), CHUNK):
        _count_chunk(chat_ids[offset : offset + CHUNK], owners, tallies)
    return _store(day=day, organization_id=organization_id, tallies=tallies)


def _count_chunk(
    chat_ids: list[uuid.UUID], owners: dict[uuid.UUID, Owner], tallies: dict[Owner, Tally]
) -> None:
    said: dict[uuid.UUID, list[tuple[dt.datetime, str]]] = defaultdict(list)
    shopper = Message.objects.filter(chat_id__in=chat_ids, type=MessageType.USER)
    for chat_id, content, created_at in shopper.values_list("chat_id", "content", "created_at"):
        tally = tallies[owners[chat_id]]
        tally.figures["shopper_messages"] += 1
        if code := understood.language(content):
            tally.terms[TermKind.LANGUAGE][(code, "")] += 1
        said[chat_id].append((created_at, content))

    replies = Message.objects.filter(chat_id__in=chat_ids, type=MessageType.ANSWER)
    for chat_id, products in replies.values_list("chat_id", "products"):
        tally = tallies[owners[chat_id]]
        tally.figures["replies"] += 1
        shown = [p for p in products or [] if isinstance(p, dict)]
        if shown:
            tally.figures["replies_with_products"] += 1
        for product in shown:
            key = (_short(product.get("gtin")), _short(product.get("designation")))
            tally.terms[TermKind.PRODUCT][key] += 1

    failed = Event.objects.filter(chat_id__in=chat_ids, status=EventStatus.FAILED, tool_name="")
    for chat_id in failed.values_list("chat_id", flat=True):
        tallies[owners[chat_id]].figures["failed_replies"] += 1

    searches = Event.objects.filter(
        chat_id__in=chat_ids, status=EventStatus.COMPLETED, tool_name=SEARCH_TOOL
    ).annotate(total=KeyTextTransform("total", "tool_response"))
    for chat_id, args, total, created_at in searches.values_list(
        "chat_id", "tool_args", "total", "created_at"
    ):
        _count_search(tallies[owners[chat_id]], args, total, said[chat_id], created_at)

    rated = Feedback.objects.filter(chat_id__in=chat_ids).values_list("chat_id", "rating")
    for chat_id, rating in rated:
        name = "feedback_up" if rating == FeedbackRating.UP else "feedback_down"
        tallies[owners[chat_id]].figures[name] += 1


def _count_search(
    tally: Tally,
    args: Any,
    total: str | None,
    said: list[tuple[dt.datetime, str]],
    at: dt.datetime,
) -> None:
    args = args if isinstance(args, dict) else {}
    tally.figures["searches"] += 1
    if category := understood.category(args):
        tally.terms[TermKind.CATEGORY][(_short(category), "")] += 1
    for brand in understood.brands(args):
        tally.terms[TermKind.BRAND][(_short(brand), "")] += 1
    if band := understood.price_band(args):
        tally.terms[TermKind.PRICE_BAND][(band, "")] += 1
    if str(total) == "0":
        tally.figures["empty_searches"] += 1
        # The shopper's words: their last message before the search ran.
        before = [text for when, text in said if when <= at]
        words = before[-1] if before else str(args.get("query", ""))
        key = (_short(" ".join(words.split()).lower()), _short(understood.filters_text(args)))
        tally.terms[TermKind.EMPTY_SEARCH][key] += 1


def _short(value: object) -> str:
    text = str(value or "")
    return text if len(text) <= KEY_CHARS else text[: KEY_CHARS - 1] + "…"


@transaction.atomic
def _store(*, day: dt.date, organization_id: uuid.UUID | None, tallies: dict[Owner, Tally]) -> int:
    days = InsightDay.objects.filter(day=day)
    terms = InsightTerm.objects.filter(day=day)
    if organization_id is not None:
        days, terms = (
            days.filter(organization_id=organization_id),
            terms.filter(organization_id=organization_id),
        )
    days.delete()
    terms.delete()
    now = timezone.now()
    InsightDay.objects.bulk_create(
        InsightDay(
            organization_id=org,
            chatbot_id=bot,
            day=day,
            refreshed_at=now,
            **tally.figures,
        )
        for (org, bot), tally in tallies.items()
    )
    InsightTerm.objects.bulk_create(
        (
            InsightTerm(
                organization_id=org,
                chatbot_id=bot,
                day=day,
                kind=kind,
                key=key,
                detail=detail,
                count=count,
            )
            for (org, bot), tally in tallies.items()
            for kind, counter in tally.terms.items()
            for (key, detail), count in counter.most_common(TOP_TERMS)
        ),
        batch_size=1000,
    )
    return len(tallies)
