"""The quota lock of a message (docs/api.md#monthly-message-quota) never blocks creating chats of
the organization.

Found by `make bench`: under a mix of POST chats and POST messages, FOR UPDATE on
the organization row deadlocked against the chats' foreign key checks (503 responses).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from accounts.usage import quota_consume_message
from tests.factories import ChatbotFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks: SQLite serializes whole transactions at BEGIN instead",
)
def test_chat_is_created_while_a_message_holds_the_quota_lock(tenant):
    # Given a message transaction of the organization holding its quota lock
    other_bot = ChatbotFactory(organization=tenant.organization)
    locked, release = threading.Event(), threading.Event()

    def message_transaction() -> None:
        try:
            with transaction.atomic():
                quota_consume_message(
                    organization_id=tenant.organization.pk, chatbot_id=tenant.chatbot.pk
                )
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=message_transaction)
    holder.start()
    assert locked.wait(10)

    # When a chat of another chatbot of the organization is created meanwhile
    statuses: list[int] = []

    def create_chat() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_X_API_KEY=tenant.key)
            response = client.post("/v1/chats", {"chatbotId": str(other_bot.id)}, format="json")
            statuses.append(response.status_code)
        finally:
            connection.close()

    creator = threading.Thread(target=create_chat)
    creator.start()
    creator.join(5)
    finished_while_locked = not creator.is_alive()
    release.set()
    holder.join(10)
    creator.join(10)

    # Then it does not wait for the message's transaction (its commit checks the foreign key)
    assert finished_while_locked
    assert statuses == [201]
