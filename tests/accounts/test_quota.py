"""The monthly message quota (docs/api.md#monthly-message-quota): exact, refusing without storing
anything."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.usage import QUOTA_REACHED, month_bounds
from chats.models import Event, Message
from tests.factories import ChatFactory

BODY = {"message": "hello", "currentUrl": "https://shop.example/"}


def set_quota(tenant, quota):
    tenant.organization.monthly_quota = quota
    tenant.organization.save(update_fields=["monthly_quota"])


def post(tenant, chat, **headers):
    return tenant.client.post(f"/v1/chats/{chat.id}/messages", BODY, format="json", **headers)


@pytest.mark.django_db
def test_quota_counts_messages_and_then_refuses_without_storing(tenant):
    set_quota(tenant, 2)
    chat = ChatFactory(chatbot=tenant.chatbot)

    first, second = post(tenant, chat), post(tenant, chat)
    assert (first.status_code, second.status_code) == (201, 201)
    assert (first["X-Quota-Limit"], first["X-Quota-Remaining"]) == ("2", "1")
    assert second["X-Quota-Remaining"] == "0"
    stored = (Message.objects.count(), Event.objects.count())

    refused = post(tenant, chat)

    assert refused.status_code == 429
    assert refused.json() == {"message": QUOTA_REACHED}
    _, next_month = month_bounds(timezone.now())
    retry_after = int(refused["Retry-After"])
    assert 0 < retry_after <= (next_month - timezone.now()).total_seconds() + 1
    assert (Message.objects.count(), Event.objects.count()) == stored
    # Reading history is never blocked by the quota.
    assert tenant.client.get(f"/v1/chats/{chat.id}/messages").status_code == 200
    assert tenant.client.get("/v1/usage").json()["remaining"] == 0


@pytest.mark.django_db
def test_unlimited_plan_sends_no_quota_headers(tenant):
    response = post(tenant, ChatFactory(chatbot=tenant.chatbot))
    assert response.status_code == 201
    assert "X-Quota-Limit" not in response and "X-Quota-Remaining" not in response


@pytest.mark.django_db
def test_zero_quota_refuses_the_first_message(tenant):
    set_quota(tenant, 0)
    assert post(tenant, ChatFactory(chatbot=tenant.chatbot)).status_code == 429
    assert not Message.objects.filter(chat__organization=tenant.organization).exists()


@pytest.mark.django_db
def test_quota_change_takes_effect_on_the_next_request(tenant):
    set_quota(tenant, 1)
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert post(tenant, chat).status_code == 201
    assert post(tenant, chat).status_code == 429

    call_command("set_quota", str(tenant.organization.pk), "3", stdout=None)
    assert post(tenant, chat).status_code == 201

    call_command("set_quota", str(tenant.organization.pk), "unlimited", stdout=None)
    assert post(tenant, chat).status_code == 201


@pytest.mark.django_db
def test_idempotent_retry_is_not_counted_twice(tenant):
    set_quota(tenant, 2)
    chat = ChatFactory(chatbot=tenant.chatbot)
    first = post(tenant, chat, HTTP_IDEMPOTENCY_KEY="retry-1")
    again = post(tenant, chat, HTTP_IDEMPOTENCY_KEY="retry-1")
    assert again.json() == first.json()
    assert tenant.client.get("/v1/usage").json()["messages"] == 1


@pytest.mark.django_db
def test_last_months_messages_do_not_count(tenant):
    from accounts.models import DailyUsage

    set_quota(tenant, 1)
    last_month = timezone.now().date().replace(day=1) - dt.timedelta(days=1)
    DailyUsage.objects.create(
        organization=tenant.organization, chatbot=tenant.chatbot, day=last_month, messages=5
    )
    assert post(tenant, ChatFactory(chatbot=tenant.chatbot)).status_code == 201


def messages_at_once(live, tenant, count: int) -> list[int]:
    """The statuses of `count` messages to five chats, all sent at the same moment."""
    chats = [ChatFactory(chatbot=tenant.chatbot) for _ in range(5)]
    start = threading.Barrier(count)

    def send(index: int) -> int:
        with httpx.Client(
            base_url=live.url, headers={"x-api-key": tenant.key}, timeout=60
        ) as client:
            start.wait()
            return client.post(f"/v1/chats/{chats[index % 5].id}/messages", json=BODY).status_code

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(send, range(count)))


@pytest.mark.e2e
def test_parallel_messages_store_exactly_the_remaining_quota(live, tenant):
    # Given 10 messages left of the month's quota
    set_quota(tenant, 10)

    # When 50 messages arrive at once
    statuses = messages_at_once(live, tenant, 50)

    # Then exactly 10 are stored and answered, and 40 refused
    assert statuses.count(201) == 10 and statuses.count(429) == 40
    assert Message.objects.filter(chat__organization=tenant.organization, type="user").count() == 10
    assert (
        Message.objects.filter(chat__organization=tenant.organization, type="answer").count() == 10
    )


@pytest.mark.e2e
def test_parallel_messages_without_a_quota_are_each_counted(live, tenant):
    # Given an organization without a quota (its messages are stored without a lock)
    # When 30 messages arrive at once, the first of the day among them
    statuses = messages_at_once(live, tenant, 30)

    # Then each is stored, answered and counted once in the day's usage
    assert statuses == [201] * 30
    assert Message.objects.filter(chat__organization=tenant.organization, type="user").count() == 30
    assert tenant.client.get("/v1/usage").json()["messages"] == 30


@pytest.mark.django_db
def test_a_quota_given_to_an_unlimited_organization_holds_at_once(tenant):
    chat = ChatFactory(chatbot=tenant.chatbot)
    assert [post(tenant, chat).status_code for _ in range(2)] == [201, 201]
    assert tenant.client.get("/v1/usage").json()["messages"] == 2

    # The key's organization may still be cached as unlimited: the store checks again.
    call_command("set_quota", str(tenant.organization.pk), "3", stdout=None)

    assert [post(tenant, chat).status_code for _ in range(2)] == [201, 429]
    assert Message.objects.filter(chat=chat, type="user").count() == 3
