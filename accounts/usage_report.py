"""The usage view of the admin console: daily figures, charts as inline SVG, CSV export."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils.html import escape
from django.utils.safestring import SafeString

from accounts.models import Chatbot, DailyUsage, Organization
from accounts.usage import QuotaState, month_bounds, quota_state
from assistant_api.csv_export import csv_text

HIGHLIGHT_SHARE = 0.8


@dataclass(frozen=True)
class MonthSeries:
    label: str  # "2026-11"
    days: list[dt.date]
    messages: list[int]


def month_days(first: dt.date) -> list[dt.date]:
    _, following = month_bounds(dt.datetime.combine(first, dt.time.min, tzinfo=dt.UTC))
    return [first + dt.timedelta(days=n) for n in range((following.date() - first).days)]


def daily_messages(*, organization: Organization, first: dt.date, chatbot_id=None) -> MonthSeries:
    days = month_days(first)
    rows = DailyUsage.objects.filter(organization=organization, day__gte=days[0], day__lte=days[-1])
    if chatbot_id is not None:
        rows = rows.filter(chatbot_id=chatbot_id)
    totals = dict(rows.values("day").annotate(total=Sum("messages")).values_list("day", "total"))
    return MonthSeries(first.strftime("%Y-%m"), days, [totals.get(day, 0) for day in days])


def previous_month(first: dt.date) -> dt.date:
    return (first - dt.timedelta(days=1)).replace(day=1)


def usage_share(state: QuotaState) -> float | None:
    if state.limit is None:
        return None
    return 1.0 if state.limit == 0 else state.used / state.limit


def bar_chart_svg(
    series: MonthSeries, *, title: str, width: int = 640, height: int = 160
) -> SafeString:
    """A bar chart of messages per day, drawn on the server: no script, no CDN."""
    peak = max(series.messages, default=0)
    top = peak or 1
    margin, bottom = 30, 20
    slot = (width - margin) / len(series.days)
    bars = []
    for index, (day, value) in enumerate(zip(series.days, series.messages, strict=True)):
        bar_height = (height - bottom - 10) * value / top
        x = margin + index * slot
        y = height - bottom - bar_height
        bars.append(
            f'<rect class="bar" x="{x + 1:.1f}" y="{y:.1f}" width="{max(slot - 2, 1):.1f}" '
            f'height="{bar_height:.1f}" fill="#417690"><title>{day.isoformat()}: {value}</title></rect>'
        )
        if day.day in (1, 8, 15, 22, 29):
            bars.append(f'<text x="{x:.1f}" y="{height - 5}" font-size="10">{day.day}</text>')
    return SafeString(
        f'<svg class="usage-chart" role="img" aria-label="{escape(title)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
        f'<text x="0" y="12" font-size="11">{peak}</text>'
        f'<line x1="{margin}" y1="{height - bottom}" x2="{width}" y2="{height - bottom}" stroke="#999"/>'
        + "".join(bars)
        + "</svg>"
    )


def usage_report(*, organization: Organization) -> dict:
    """Everything the usage page shows for one organization."""
    state = quota_state(organization=organization)
    this_first = dt.date.fromisoformat(state.month + "-01")
    months = [this_first, previous_month(this_first)]
    charts = [
        {
            "label": first.strftime("%B %Y"),
            "svg": bar_chart_svg(
                daily_messages(organization=organization, first=first),
                title=f"Messages per day, {first:%B %Y}",
            ),
        }
        for first in months
    ]
    chatbots = []
    for chatbot in Chatbot.objects.filter(organization=organization).order_by("name"):
        series = daily_messages(organization=organization, first=this_first, chatbot_id=chatbot.pk)
        chatbots.append(
            {
                "name": chatbot.name,
                "messages": sum(series.messages),
                "svg": bar_chart_svg(series, title=f"{chatbot.name}: messages per day", height=100),
            }
        )
    share = usage_share(state)
    return {
        "state": state,
        "percent": None if share is None else round(share * 100, 1),
        "bar_percent": None if share is None else min(100.0, round(share * 100, 1)),
        "highlight": share is not None and share >= HIGHLIGHT_SHARE,
        "charts": charts,
        "chatbots": chatbots,
    }


def usage_csv(*, organization: Organization) -> str:
    """Daily figures of the organization, one row per day and chatbot, oldest first."""
    rows = (
        DailyUsage.objects.filter(organization=organization)
        .select_related("chatbot")
        .order_by("day", "chatbot__name")
    )
    return csv_text(
        ["day", "chatbot_id", "chatbot", "messages", "chats", "pdp_requests"],
        (
            [
                row.day.isoformat(),
                row.chatbot_id or "",
                row.chatbot.name if row.chatbot else "",
                row.messages,
                row.chats,
                row.pdp_requests,
            ]
            for row in rows
        ),
    )


def with_month_messages(queryset):
    """Annotates organizations with `month_messages`, this UTC month's stored user messages."""
    first, _ = month_bounds(dt.datetime.now(dt.UTC))
    month_total = (
        DailyUsage.objects.filter(organization=OuterRef("pk"), day__gte=first)
        .values("organization")
        .annotate(total=Sum("messages"))
        .values("total")
    )
    return queryset.annotate(month_messages=Coalesce(Subquery(month_total), 0))
