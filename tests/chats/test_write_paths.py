"""The writes that keep a PostgreSQL statement beside their portable ORM code (chat creation,
a user message with its usage count, the daily usage upsert) write the same rows either way.

The same cases run through each path, in a fresh organization, and the rows they leave must
be the ones listed here. The PostgreSQL statements run on PostgreSQL only; the ORM code runs
on both databases. On PostgreSQL the ORM code's own usage counts go through `usage_add`, which
picks the PostgreSQL upsert there: the ORM upsert is driven by the cases' direct
`usage_add_portable` calls, and wholly on SQLite.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import DailyUsage, Organization
from accounts.usage import UsageCounts, usage_add_portable, usage_add_postgresql
from assistant_api.errors import NotFoundError
from chats.message_insert import user_message_insert_portable, user_message_insert_postgresql
from chats.models import Chat, Message
from chats.services import chat_create_portable, chat_create_postgresql
from tests.factories import ChatbotFactory, OrganizationFactory

pytestmark = pytest.mark.django_db

PATHS = {
    "portable": (chat_create_portable, user_message_insert_portable, usage_add_portable),
    "postgresql": (chat_create_postgresql, user_message_insert_postgresql, usage_add_postgresql),
}
YESTERDAY = -1

# (chatbot, day offset, messages, chats, pdp_requests); chatbot None: usage of no chatbot.
EXPECTED_USAGE = [
    ("greeter", 0, 3, 2, 0),
    ("greeter", YESTERDAY, 0, 0, 7),
    ("silent", 0, 1, 1, 0),
    (None, 0, 0, 0, 5),
]
# (chatbot of the chat, type, content, current URL, store code), in order.
EXPECTED_MESSAGES = [
    ("greeter", "assistant", "Hello! How can I help?", "", ""),
    ("greeter", "user", "Do you have trail shoes?", "https://shop.example/", "main"),
    ("greeter", "user", "In size 42?", "https://shop.example/", ""),
    ("greeter", "assistant", "Hello! How can I help?", "", ""),
    ("silent", "user", "Hi", "", ""),
]


def run_cases(organization: Organization, path: str) -> None:
    chat_create, user_message_insert, usage_add = PATHS[path]
    greeter = ChatbotFactory(
        organization=organization, name="greeter", greeting=" \u3000Hello! How can I help?\n"
    )
    silent = ChatbotFactory(organization=organization, name="silent", greeting=" \t\n")
    inactive = ChatbotFactory(organization=organization, name="inactive", is_active=False)
    today = timezone.now().date()

    first = chat_create(organization=organization, chatbot_id=greeter.pk, user_id=uuid.uuid4())
    for content, store_code in (("Do you have trail shoes?", "main"), ("In size 42?", "")):
        user_message_insert(
            chat=first, content=content, current_url="https://shop.example/", store_code=store_code
        )
    chat_create(organization=organization, chatbot_id=greeter.pk, user_id=None)
    quiet = chat_create(organization=organization, chatbot_id=silent.pk, user_id=None)
    user_message_insert(chat=quiet, content="Hi", current_url="", store_code="")
    for chatbot in (inactive, ChatbotFactory()):  # inactive; another organization's
        with pytest.raises(NotFoundError):
            chat_create(organization=organization, chatbot_id=chatbot.pk, user_id=None)

    bound = {"organization_id": organization.pk, "chatbot_id": greeter.pk}
    usage_add(UsageCounts(**bound, day=today, messages=1))
    yesterday = today + dt.timedelta(days=YESTERDAY)
    usage_add(UsageCounts(**bound, day=yesterday, pdp_requests=3))
    usage_add(UsageCounts(**bound, day=yesterday, pdp_requests=4))
    for requests in (2, 3):
        usage_add(UsageCounts(organization.pk, None, today, pdp_requests=requests))


def usage_rows(organization: Organization) -> list[tuple]:
    today = timezone.now().date()
    rows = DailyUsage.objects.filter(organization=organization).select_related("chatbot")
    return sorted(
        (
            (
                row.chatbot.name if row.chatbot else None,
                (row.day - today).days,
                row.messages,
                row.chats,
                row.pdp_requests,
            )
            for row in rows
        ),
        key=repr,
    )


def message_rows(organization: Organization) -> list[tuple]:
    messages = Message.objects.filter(chat__organization=organization).select_related(
        "chat__chatbot"
    )
    return [
        (m.chat.chatbot.name, m.type, m.content, m.current_url, m.store_code)
        for m in messages.order_by("seq")
    ]


@pytest.mark.parametrize("path", list(PATHS))
def test_each_path_writes_the_same_rows(path):
    if path == "postgresql" and connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's own statements")
    organization = OrganizationFactory()

    run_cases(organization, path)

    assert usage_rows(organization) == sorted(EXPECTED_USAGE, key=repr)
    assert message_rows(organization) == EXPECTED_MESSAGES
    chats = Chat.objects.filter(organization=organization)
    assert sorted(chat.chatbot.name for chat in chats) == ["greeter", "greeter", "silent"]
    assert all(chat.user_id for chat in chats)
    assert not Chat.objects.filter(chatbot__name="inactive").exists()
