"""Insights: the daily rows refresh_insights computes from real conversations, and the page,
its tables and their CSV files as an operator reads them."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import uuid
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from assistant_api.csv_export import csv_safe_cell
from chats.events import EventPublisher
from chats.models import Chat, Message
from insights.models import InsightDay, InsightTerm, TermKind
from tests.factories import ChatbotFactory, ChatFactory, MessageFactory, ProductFactory

pytestmark = pytest.mark.django_db
TODAY = dt.datetime.now(dt.UTC).date()


def say(tenant, chat_id: str, text: str) -> dict:
    response = tenant.client.post(
        f"/v1/chats/{chat_id}/messages",
        {"message": text, "currentUrl": "https://shop.example/"},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def refresh(*args: str) -> dict:
    out = StringIO()
    call_command("refresh_insights", *args, "--json", stdout=out)
    return json.loads(out.getvalue().splitlines()[-1])


@pytest.fixture
def shop(tenant):
    for n, (title, brand, kind, price) in enumerate(
        [
            ("Trail Runner", "Stride", "Shoes > Running", "89.00"),
            ("Road Runner", "Stride", "Shoes > Running", "120.00"),
            ("Camp Mug", "Alpine", "Kitchen", "12.00"),
        ]
    ):
        ProductFactory(
            organization=tenant.organization,
            title=title,
            brand=brand,
            product_type=kind,
            price=Decimal(price),
            gtin=f"400638133393{n}",
        )
    return tenant


def test_conversations_through_the_api_become_daily_figures_and_terms(shop):
    # Given two conversations: one finds shoes and is rated down, one finds nothing
    chat = shop.client.post("/v1/chats", {"chatbotId": str(shop.chatbot.pk)}, format="json")
    chat_id = chat.json()["id"]
    reply = say(shop, chat_id, "running shoes under 100")
    assert reply.get("products"), reply
    rated = shop.client.put(
        f"/v1/chats/{chat_id}/messages/{reply['id']}/feedback",
        {"rating": "down", "reason": "wrong_products"},
        format="json",
    )
    assert rated.status_code == 200
    other = shop.client.post("/v1/chats", {"chatbotId": str(shop.chatbot.pk)}, format="json")
    say(shop, other.json()["id"], "Haben Sie einen lila Einhornsattel?")

    # When the figures are refreshed
    result = refresh()

    # Then today's row counts what happened
    assert result["days"][TODAY.isoformat()] == 1
    row = InsightDay.objects.get(chatbot=shop.chatbot, day=TODAY)
    assert (row.conversations, row.shopper_messages, row.replies) == (2, 2, 2)
    assert row.replies_with_products == 1 and row.failed_replies == 0
    assert (row.feedback_up, row.feedback_down) == (0, 1)
    assert row.searches >= 2 and row.empty_searches >= 1
    terms = {(t.kind, t.key): t.count for t in InsightTerm.objects.filter(chatbot=shop.chatbot)}
    assert terms[(TermKind.LANGUAGE, "en")] == 1 and terms[(TermKind.LANGUAGE, "de")] == 1
    assert terms[(TermKind.PRICE_BAND, "50-100")] >= 1
    assert any(kind == TermKind.PRODUCT for kind, _ in terms)
    empty = InsightTerm.objects.get(chatbot=shop.chatbot, kind=TermKind.EMPTY_SEARCH)
    assert empty.key == "haben sie einen lila einhornsattel?"

    # Running it again recomputes, never adds up
    refresh()
    assert InsightDay.objects.get(chatbot=shop.chatbot, day=TODAY).conversations == 2


def conversation_on(chatbot, day: dt.date, *, words: str, args: dict, total: int, fail=False):
    """A chat started on `day` with one question, one search and a reply (or a failure)."""
    at = dt.datetime.combine(day, dt.time(10), tzinfo=dt.UTC)
    chat = ChatFactory(chatbot=chatbot, created_at=at)
    MessageFactory(chat=chat, type="user", content=words, created_at=at)
    publisher = EventPublisher(chat_id=chat.id)
    publisher.tool_finished("search_products", args, {"total": total, "products": []})
    if fail:
        publisher.failed("The assistant could not complete the response")
        return chat, None
    product = {"gtin": "4006381333931", "designation": "Trail Runner", "price": 89.0}
    reply = MessageFactory(
        chat=chat, type="answer", content="Here.", products=[product] if total else None
    )
    return chat, reply


@pytest.fixture
def history(tenant):
    """Three days of conversations of two chatbots, refreshed."""
    outlet = ChatbotFactory(organization=tenant.organization, name="Outlet")
    days = [TODAY - dt.timedelta(n) for n in (2, 1, 0)]
    for day in days:
        conversation_on(
            tenant.chatbot,
            day,
            words="trail shoes",
            args={"category": "Shoes", "brands": ["Stride"], "maxPrice": 100},
            total=3,
        )
        conversation_on(
            outlet,
            day,
            words='=HYPERLINK("http://evil") saddle',
            args={"query": "saddle", "maxPrice": 40},
            total=0,
        )
    conversation_on(tenant.chatbot, days[0], words="anything", args={}, total=0, fail=True)
    refresh("--days", "3")
    return {"outlet": outlet, "days": days}


def page(client, tenant, **query) -> str:
    response = client.get(
        f"/admin/insights/insightday/organization/{tenant.organization.pk}/", query
    )
    assert response.status_code == 200
    return response.content.decode()


def test_operator_reads_the_period_figures_charts_and_tables(operator_client, tenant, history):
    html = page(operator_client, tenant)

    assert 'id="tile-conversations">7<' in html
    assert 'id="tile-failed">14%<' in html  # 1 failed of 6 replies and 1 failure
    assert 'id="tile-empty">57%<' in html  # 4 of 7 searches found nothing
    assert html.count('class="insights-chart"') == 3
    assert "<td>Shoes</td><td>3</td>" in html
    assert "<td>Stride</td><td>3</td>" in html
    assert "<td>50-100</td><td>3</td>" in html and "<td>25-50</td><td>3</td>" in html
    assert "maxPrice: 40" in html and "=hyperlink(" in html.lower()
    assert "<td>4006381333931</td><td>Trail Runner</td><td>3</td>" in html


def test_one_chatbot_and_a_shorter_period(operator_client, tenant, history):
    html = page(
        operator_client,
        tenant,
        chatbot=str(history["outlet"].pk),
        start=history["days"][1].isoformat(),
        end=history["days"][2].isoformat(),
    )
    assert 'id="tile-conversations">2<' in html
    assert "<td>Shoes</td>" not in html


def test_each_table_downloads_as_csv_with_formulas_defused(operator_client, tenant, history):
    base = f"/admin/insights/insightday/organization/{tenant.organization.pk}"
    html = page(operator_client, tenant)
    for name in (
        "daily",
        "categories",
        "brands",
        "price_bands",
        "languages",
        "empty_searches",
        "products",
        "down_rated",
    ):
        assert f"{base}/{name}.csv?" in html

    response = operator_client.get(f"{base}/empty_searches.csv")

    assert response["Content-Type"] == "text/csv"
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["Shopper's words", "Filters", "Times"]
    words = {row[0]: row for row in rows[1:]}
    assert '\'=hyperlink("http://evil") saddle' in words
    assert operator_client.get(f"{base}/nothing.csv").status_code == 404


def test_down_rated_replies_link_to_their_transcript(operator_client, tenant, history):
    chat = Chat.objects.filter(chatbot=tenant.chatbot).first()
    reply = Message.objects.filter(chat=chat, type="answer").first()
    tenant.client.put(
        f"/v1/chats/{chat.id}/messages/{reply.uuid}/feedback",
        {"rating": "down", "reason": "wrong_information", "comment": "Not in stock"},
        format="json",
    )

    html = page(operator_client, tenant)

    assert "Not in stock" in html and "wrong information" in html
    assert f'href="/admin/chats/chat/{chat.id}/change/#message-{reply.uuid}"' in html
    assert (
        f'id="message-{reply.uuid}"'
        in operator_client.get(f"/admin/chats/chat/{chat.id}/change/").content.decode()
    )


def test_support_has_no_insights_and_unknown_organization_is_404(
    support_client, operator_client, tenant
):
    url = f"/admin/insights/insightday/organization/{tenant.organization.pk}/"
    assert support_client.get(url).status_code == 403
    assert (
        operator_client.get(f"/admin/insights/insightday/organization/{uuid.uuid4()}/").status_code
        == 404
    )
    index = operator_client.get("/admin/insights/insightday/").content.decode()
    assert url in index


def test_organization_page_links_to_insights(operator_client, tenant):
    html = operator_client.get(
        f"/admin/accounts/organization/{tenant.organization.pk}/change/"
    ).content.decode()
    assert f"/admin/insights/insightday/organization/{tenant.organization.pk}/" in html


@pytest.mark.parametrize(
    ("value", "safe"),
    [
        ("=1+1", "'=1+1"),
        ("+33 1 23", "'+33 1 23"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("shoes", "shoes"),
        (12, 12),
        (-2, -2),
        (None, None),
    ],
)
def test_csv_cells_that_would_start_a_formula_are_escaped(value, safe):
    assert csv_safe_cell(value) == safe


def test_refresh_refuses_bad_arguments():
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("refresh_insights", "--date", "yesterday")
    with pytest.raises(CommandError):
        call_command("refresh_insights", "--days", "0")


def test_erasing_a_shopper_keeps_the_insights_counts(tenant, history):
    before = InsightDay.objects.filter(organization=tenant.organization).count()
    chat = Chat.objects.filter(chatbot=tenant.chatbot).first()
    call_command("erase_user", str(tenant.organization.pk), str(chat.user_id))
    assert InsightDay.objects.filter(organization=tenant.organization).count() == before


@pytest.mark.parametrize(
    "query",
    [
        {"end": "9999-12-31"},
        {"end": "0001-01-01"},
        {"start": "0001-01-01", "end": "9999-12-31"},
        {"start": "2026-02-30", "chatbot": "not-a-uuid"},
        {"chatbot": str(uuid.uuid4())},
    ],
)
def test_odd_periods_show_the_default_not_an_error(operator_client, tenant, query):
    base = f"/admin/insights/insightday/organization/{tenant.organization.pk}"
    assert operator_client.get(f"{base}/", query).status_code == 200
    assert operator_client.get(f"{base}/down_rated.csv", query).status_code == 200
