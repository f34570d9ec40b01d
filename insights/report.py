"""What the insights page shows for an organization (or one chatbot) over a period: figures,
daily charts and tables, read from the daily rows (and the down-rated replies themselves)."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any

from babel import Locale
from babel.core import UnknownLocaleError
from django.db.models import QuerySet, Sum
from django.urls import reverse
from django.utils.safestring import SafeString

from accounts.models import Organization
from assistant_api.validation import date_or_none
from chats.models import Feedback, FeedbackRating
from insights.charts import Series, daily_bars_svg
from insights.models import InsightDay, InsightTerm, TermKind

DEFAULT_DAYS = 30
MAX_DAYS = 400
TOP_ROWS = 25  # rows of each table on the page; the CSV has up to TOP_ROWS_CSV
DAILY_ROWS = 31  # the newest days on the page; the CSV has every day of the period
TOP_ROWS_CSV = 1000
DOWN_RATED_ROWS = 50
FIGURES = (
    "conversations",
    "shopper_messages",
    "replies",
    "replies_with_products",
    "failed_replies",
    "searches",
    "empty_searches",
    "feedback_up",
    "feedback_down",
)


@dataclass(frozen=True)
class Period:
    start: dt.date
    end: dt.date  # included
    chatbot_id: uuid.UUID | None = None

    @property
    def days(self) -> list[dt.date]:
        return [self.start + dt.timedelta(n) for n in range((self.end - self.start).days + 1)]


@dataclass
class Table:
    name: str  # in the CSV's URL
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # per row, for tables that link out

    @property
    def lines(self) -> list[tuple[list[Any], str]]:
        """Each row with its link ("" for none), for the template."""
        return [
            (row, self.links[i] if i < len(self.links) else "") for i, row in enumerate(self.rows)
        ]


def period_from(query: Any, *, today: dt.date) -> Period:
    """The period the page's form asks for: `start`, `end` (YYYY-MM-DD) and `chatbot`; the
    last 30 days when absent or unreadable, at most 400 days."""
    end = date_or_none(query.get("end")) or today
    start = date_or_none(query.get("start")) or end - dt.timedelta(DEFAULT_DAYS - 1)
    if start > end:
        start, end = end, start
    start = max(start, end - dt.timedelta(MAX_DAYS - 1))
    chatbot = query.get("chatbot") or None
    try:
        chatbot_id = uuid.UUID(chatbot) if chatbot else None
    except ValueError:
        chatbot_id = None
    return Period(start=start, end=end, chatbot_id=chatbot_id)


def _scoped(queryset: QuerySet, organization: Organization, period: Period) -> QuerySet:
    queryset = queryset.filter(
        organization=organization, day__gte=period.start, day__lte=period.end
    )
    return queryset.filter(chatbot_id=period.chatbot_id) if period.chatbot_id else queryset


def insights_report(*, organization: Organization, period: Period) -> dict:
    """Figures, charts and tables of the period, as the page shows them."""
    series = _daily_series(organization, period)
    totals = {name: sum(values) for name, values in series.items()}
    tables = [
        _daily_table(period, series, limit=DAILY_ROWS),
        *(_term_table(organization, period, kind, limit=TOP_ROWS) for kind in TERM_TABLES),
        _down_rated_table(organization, period, limit=DOWN_RATED_ROWS),
    ]
    return {
        "totals": totals,
        "with_products": _share(totals["replies_with_products"], totals["replies"]),
        "failed": _share(totals["failed_replies"], totals["replies"] + totals["failed_replies"]),
        "empty": _share(totals["empty_searches"], totals["searches"]),
        "rated_down": _share(
            totals["feedback_down"], totals["feedback_up"] + totals["feedback_down"]
        ),
        "charts": _charts(period, series),
        "tables": tables,
        "refreshed_at": _scoped(InsightDay.objects.all(), organization, period)
        .order_by("-refreshed_at")
        .values_list("refreshed_at", flat=True)
        .first(),
    }


def insights_table(*, organization: Organization, period: Period, name: str) -> Table | None:
    """One table in full (up to TOP_ROWS_CSV rows) for its CSV file; None for an unknown name."""
    if name == "daily":
        return _daily_table(period, _daily_series(organization, period), limit=None)
    if name == "down_rated":
        return _down_rated_table(organization, period, limit=TOP_ROWS_CSV)
    kind = next((kind for kind, spec in TERM_TABLES.items() if spec[0] == name), None)
    if kind is None:
        return None
    return _term_table(organization, period, kind, limit=TOP_ROWS_CSV)


def _daily_series(organization: Organization, period: Period) -> dict[str, list[int]]:
    daily = {
        row["day"]: row
        for row in _scoped(InsightDay.objects.all(), organization, period)
        .values("day")
        .annotate(**{name: Sum(name) for name in FIGURES})
    }
    return {name: [daily.get(d, {}).get(name) or 0 for d in period.days] for name in FIGURES}


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def _charts(period: Period, series: dict[str, list[int]]) -> list[dict[str, SafeString | str]]:
    days = period.days
    return [
        {
            "title": "Conversations and shopper messages per day",
            "svg": daily_bars_svg(
                days,
                [
                    Series("conversations", series["conversations"], "#417690"),
                    Series(
                        "further messages",
                        [
                            max(m - c, 0)
                            for m, c in zip(
                                series["shopper_messages"], series["conversations"], strict=True
                            )
                        ],
                        "#9fc3d6",
                    ),
                ],
                title="Conversations and shopper messages per day",
            ),
        },
        {
            "title": "Replies per day: with products, without, failed",
            "svg": daily_bars_svg(
                days,
                [
                    Series("with products", series["replies_with_products"], "#2a7a2a"),
                    Series(
                        "without products",
                        [
                            r - p
                            for r, p in zip(
                                series["replies"], series["replies_with_products"], strict=True
                            )
                        ],
                        "#a5c9a5",
                    ),
                    Series("failed", series["failed_replies"], "#ba2121"),
                ],
                title="Replies per day",
            ),
        },
        {
            "title": "Feedback per day",
            "svg": daily_bars_svg(
                days,
                [
                    Series("up", series["feedback_up"], "#2a7a2a"),
                    Series("down", series["feedback_down"], "#ba2121"),
                ],
                title="Feedback per day",
                height=110,
            ),
        },
    ]


def _daily_table(period: Period, series: dict[str, list[int]], *, limit: int | None) -> Table:
    table = Table(
        "daily",
        "Day by day",
        [
            "Day",
            "Conversations",
            "Shopper messages",
            "Replies",
            "With products",
            "Failed",
            "Searches",
            "Found nothing",
            "Rated up",
            "Rated down",
        ],
    )
    for index, day in reversed(list(enumerate(period.days))):
        values = [series[name][index] for name in FIGURES]
        if any(values):
            table.rows.append([day.isoformat(), *values])
    if limit is not None and len(table.rows) > limit:
        table.title = f"Day by day (the newest {limit} days; the CSV has all)"
        del table.rows[limit:]
    return table


# kind -> (name in the CSV's URL, title, headers)
TERM_TABLES: dict[str, tuple[str, str, list[str]]] = {
    TermKind.CATEGORY: ("categories", "Top requests by category", ["Category", "Searches"]),
    TermKind.BRAND: ("brands", "Top requests by brand", ["Brand", "Searches"]),
    TermKind.PRICE_BAND: ("price_bands", "Requests by price band", ["Price band", "Searches"]),
    TermKind.LANGUAGE: ("languages", "Shopper messages by language", ["Language", "Messages"]),
    TermKind.EMPTY_SEARCH: (
        "empty_searches",
        "Searches that found nothing",
        ["Shopper's words", "Filters", "Times"],
    ),
    TermKind.PRODUCT: ("products", "Most recommended products", ["GTIN", "Product", "Times"]),
}


def _term_table(organization: Organization, period: Period, kind: str, *, limit: int) -> Table:
    name, title, headers = TERM_TABLES[kind]
    found = (
        _scoped(InsightTerm.objects.all(), organization, period)
        .filter(kind=kind)
        .values("key", "detail")
        .annotate(total=Sum("count"))
        .order_by("-total", "key")[:limit]
    )
    table = Table(name, title, headers)
    for row in found:
        if kind == TermKind.LANGUAGE:
            table.rows.append([_language_name(row["key"]), row["total"]])
        elif len(headers) == 3:
            table.rows.append([row["key"], row["detail"], row["total"]])
        else:
            table.rows.append([row["key"], row["total"]])
    return table


def _language_name(code: str) -> str:
    try:
        return f"{Locale.parse(code).get_display_name('en')} ({code})"
    except (UnknownLocaleError, ValueError):
        return code


def _down_rated_table(organization: Organization, period: Period, *, limit: int) -> Table:
    start = dt.datetime.combine(period.start, dt.time.min, tzinfo=dt.UTC)
    end = dt.datetime.combine(period.end + dt.timedelta(1), dt.time.min, tzinfo=dt.UTC)
    found = Feedback.objects.filter(
        chat__organization=organization,
        chat__created_at__gte=start,
        chat__created_at__lt=end,
        rating=FeedbackRating.DOWN,
    )
    if period.chatbot_id:
        found = found.filter(chat__chatbot_id=period.chatbot_id)
    rows = found.order_by("-updated_at").values_list(
        "updated_at", "reason", "comment", "message__content", "message__uuid", "chat_id"
    )[:limit]
    table = Table(
        "down_rated", "Down-rated replies", ["Rated at (UTC)", "Reason", "Comment", "Reply"]
    )
    for updated_at, reason, comment, content, message_uuid, chat_id in rows:
        table.rows.append(
            [
                updated_at.strftime("%Y-%m-%d %H:%M"),
                reason.replace("_", " ") if reason else "",
                comment,
                content if len(content) <= 160 else content[:159] + "…",
            ]
        )
        url = reverse("admin:chats_chat_change", args=[chat_id])
        table.links.append(f"{url}#message-{message_uuid}")
    return table
