"""Privacy: erasing a shopper (command and admin action) and purging chats past their
organization's retention period; counts stay, content goes."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import DailyUsage
from chats.events import EventPublisher
from chats.models import Chat, Event, Feedback, Message
from tests.factories import ChatFactory, MessageFactory
from tests.server import ROOT, server_env

pytestmark = pytest.mark.django_db


def conversation(tenant, *, user_id: uuid.UUID, days_ago: int = 0, rated: bool = True) -> Chat:
    """A chat through the API (so usage is counted), with a reply, events and feedback."""
    chat = ChatFactory(
        chatbot=tenant.chatbot, user_id=user_id, created_at=timezone.now() - dt.timedelta(days_ago)
    )
    MessageFactory(chat=chat, type="user", content="My address is 1 Main St, trail shoes?")
    reply = MessageFactory(chat=chat, type="answer", content="Here are two.")
    EventPublisher(chat_id=chat.id).tool_finished("search_products", {"query": "x"}, {"total": 0})
    if rated:
        Feedback.objects.create(message=reply, chat=chat, rating="down", comment="my name is Ann")
    return chat


def test_erase_user_removes_the_shoppers_chats_only_and_reports_counts(tenant, other_tenant):
    shopper, neighbour = uuid.uuid4(), uuid.uuid4()
    conversation(tenant, user_id=shopper)
    conversation(tenant, user_id=shopper, rated=False)
    kept = conversation(tenant, user_id=neighbour)
    elsewhere = conversation(other_tenant, user_id=shopper)  # same id, another organization
    DailyUsage.objects.create(
        organization=tenant.organization, day=timezone.now().date(), messages=7
    )

    out = StringIO()
    call_command("erase_user", str(tenant.organization.pk), str(shopper), "--json", stdout=out)

    assert json.loads(out.getvalue().splitlines()[-1]) == {
        "organizationId": str(tenant.organization.pk),
        "userId": str(shopper),
        "chats": 2,
        "messages": 4,
        "events": 2,
        "feedback": 1,
    }
    assert not Chat.objects.filter(organization=tenant.organization, user_id=shopper).exists()
    assert set(Chat.objects.values_list("pk", flat=True)) == {kept.pk, elsewhere.pk}
    assert Message.objects.filter(content__contains="Main St").count() == 2
    assert Feedback.objects.count() == 2 and Event.objects.count() == 2
    assert DailyUsage.objects.get(organization=tenant.organization).messages == 7  # counts kept


def test_erase_user_by_organization_name_prints_what_it_removed(tenant):
    shopper = uuid.uuid4()
    chat = conversation(tenant, user_id=shopper)

    out = StringIO()
    call_command("erase_user", tenant.organization.name, str(shopper), stdout=out)

    assert f"Erased user {shopper} in {tenant.organization.name}: 1 chats, 2 messages" in (
        out.getvalue()
    )
    assert tenant.client.get(f"/v1/chats/{chat.id}/messages").status_code == 404
    assert not Message.objects.filter(chat_id=chat.id).exists()


def test_erase_user_refuses_a_bad_user_id_or_organization(tenant):
    with pytest.raises(CommandError, match="user id must be a UUID"):
        call_command("erase_user", str(tenant.organization.pk), "ann@example.com")
    with pytest.raises(CommandError, match="not found"):
        call_command("erase_user", "No Such Shop", str(uuid.uuid4()))


def test_erase_user_from_a_shell_exits_non_zero_on_error():
    result = subprocess.run(
        [sys.executable, "manage.py", "erase_user", "No Such Shop", str(uuid.uuid4()), "--json"],
        cwd=ROOT,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "not found" in result.stderr


def test_purge_expired_deletes_chats_past_the_retention_period_only(tenant, other_tenant):
    tenant.organization.retention_days = 30
    tenant.organization.save()
    old = conversation(tenant, user_id=uuid.uuid4(), days_ago=31)
    recent = conversation(tenant, user_id=uuid.uuid4(), days_ago=29)
    forever = conversation(other_tenant, user_id=uuid.uuid4(), days_ago=400)  # no period

    out = StringIO()
    call_command("purge_expired", "--json", stdout=out)

    result = json.loads(out.getvalue().splitlines()[-1])
    assert result["organizations"] == {
        tenant.organization.name: {"chats": 1, "messages": 2, "events": 1, "feedback": 1}
    }
    assert (result["chats"], result["messages"]) == (1, 2)
    assert set(Chat.objects.values_list("pk", flat=True)) == {recent.pk, forever.pk}
    assert not Message.objects.filter(chat_id=old.pk).exists()


def test_purge_expired_in_batches_removes_everything_expired(tenant, monkeypatch):
    monkeypatch.setattr("chats.erasure.PURGE_BATCH", 2)
    tenant.organization.retention_days = 1
    tenant.organization.save()
    for _ in range(5):
        conversation(tenant, user_id=uuid.uuid4(), days_ago=3, rated=False)

    out = StringIO()
    call_command("purge_expired", stdout=out)

    assert f"{tenant.organization.name}: 5 chats, 10 messages, 5 events, 0 feedback" in (
        out.getvalue()
    )
    assert not Chat.objects.exists()


def test_operator_erases_from_the_chat_list_after_confirming(operator_client, tenant):
    shopper = uuid.uuid4()
    selected = conversation(tenant, user_id=shopper)
    conversation(tenant, user_id=shopper)  # not selected: the shopper's other chat goes too
    kept = conversation(tenant, user_id=uuid.uuid4())
    chosen = {"action": "erase_users", "_selected_action": [selected.pk]}

    confirm = operator_client.post("/admin/chats/chat/", chosen)
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "Yes, erase" in page and str(shopper) in page and "<td>2</td>" in page
    assert Chat.objects.count() == 3  # asked, nothing done

    done = operator_client.post("/admin/chats/chat/", {**chosen, "post": "yes"}, follow=True)

    assert "Erased 1 shopper(s): 2 chats, 4 messages, 2 events, 2 feedback removed." in (
        done.content.decode()
    )
    assert list(Chat.objects.values_list("pk", flat=True)) == [kept.pk]


def test_support_cannot_erase(support_client, tenant):
    chat = conversation(tenant, user_id=uuid.uuid4())
    assert "erase_users" not in support_client.get("/admin/chats/chat/").content.decode()
    support_client.post(
        "/admin/chats/chat/",
        {"action": "erase_users", "_selected_action": [chat.pk], "post": "yes"},
    )
    assert Chat.objects.filter(pk=chat.pk).exists()


def test_operator_sets_the_retention_period_on_the_organization(operator_client, tenant):
    url = f"/admin/accounts/organization/{tenant.organization.pk}/change/"
    response = operator_client.post(
        url,
        {
            "name": tenant.organization.name,
            "language": "en",
            "monthly_quota": "",
            "retention_days": "90",
            "allowed_origins": "[]",
            "chatbots-TOTAL_FORMS": "0",
            "chatbots-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    tenant.organization.refresh_from_db()
    assert tenant.organization.retention_days == 90
