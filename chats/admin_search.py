"""Finding chats in the console: by id or user id, by words of the conversation, by a date
range, by failed replies and by down-rated replies (the chat list's search and filters).

Each condition is an EXISTS on the chat's own rows (messages, events, feedback by their
chat-first indexes), applied after the list's other filters, so a narrower list costs less.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator, Mapping

from django.contrib import admin
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest

from assistant_api.validation import date_or_none
from chats.models import Event, EventStatus, Feedback, FeedbackRating, Message

MAX_SEARCH_WORDS = 5
SEARCH_HELP = (
    "A chat id or user id (the whole UUID), or words the conversation contains "
    f"(each of up to {MAX_SEARCH_WORDS} words, anywhere in the chat, any case)."
)


def chats_matching(queryset: QuerySet, term: str) -> QuerySet:
    """Chats whose id or user id is `term` (a UUID), else chats containing each word."""
    term = term.strip()
    if not term:
        return queryset
    try:
        value = uuid.UUID(term)
    except ValueError:
        pass
    else:
        return queryset.filter(Q(id=value) | Q(user_id=value))
    for word in term.split()[:MAX_SEARCH_WORDS]:
        said = Message.objects.filter(chat=OuterRef("pk"), content__icontains=word)
        queryset = queryset.filter(Exists(said))
    return queryset


def with_failed_reply() -> Exists:
    # A failed event without a tool is a reply that failed (chats/events.py: failed()).
    return Exists(
        Event.objects.filter(chat=OuterRef("pk"), status=EventStatus.FAILED, tool_name="")
    )


def with_rating(rating: str) -> Exists:
    return Exists(Feedback.objects.filter(chat=OuterRef("pk"), rating=rating))


class RepliesFilter(admin.SimpleListFilter):
    title = "replies"
    parameter_name = "replies"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [
            ("failed", "With a failed reply"),
            ("down", "With a down-rated reply"),
            ("up", "With an up-rated reply"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "failed":
            return queryset.filter(with_failed_reply())
        if self.value() == "down":
            return queryset.filter(with_rating(FeedbackRating.DOWN))
        if self.value() == "up":
            return queryset.filter(with_rating(FeedbackRating.UP))
        return queryset


class DateRangeFilter(admin.ListFilter):
    """Chats started from one day to another (both included, UTC): a small form of two
    dates; a date that does not parse is ignored."""

    title = "date started"
    template = "admin/chats/date_range_filter.html"
    parameters = ("started_from", "started_to")

    def __init__(self, request: HttpRequest, params: dict, model, model_admin) -> None:
        super().__init__(request, params, model, model_admin)
        self.dates: dict[str, dt.date | None] = {}
        for name in self.parameters:
            given = params.pop(name, None)
            text = given[-1] if isinstance(given, list) else given
            self.dates[name] = date_or_none(text)
            if text:
                self.used_parameters[name] = text

    def has_output(self) -> bool:
        return True

    def expected_parameters(self) -> list[str | None]:
        return list(self.parameters)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        start, end = self.dates["started_from"], self.dates["started_to"]
        if start is not None:
            queryset = queryset.filter(created_at__gte=_midnight(start))
        if end is not None:
            queryset = queryset.filter(created_at__lt=_midnight(end + dt.timedelta(days=1)))
        return queryset

    def choices(self, changelist) -> Iterator[Mapping[str, object]]:
        # The list's other filters, each value of each (Django keeps them as lists).
        kept = [
            (name, value)
            for name, values in changelist.get_filters_params().items()
            if name not in self.parameters
            for value in (values if isinstance(values, list) else [values])
        ]
        if changelist.query:
            kept.append(("q", changelist.query))
        dates = {name: (value.isoformat() if value else "") for name, value in self.dates.items()}
        yield {
            "kept": kept,
            **dates,
            "clear": changelist.get_query_string(remove=list(self.parameters)),
        }


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
