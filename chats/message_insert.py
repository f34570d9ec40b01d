"""The shopper's message stored in one statement, when its organization has no monthly quota.

Storing a message is a transaction of five round trips (BEGIN, lock the organization, count
the day's usage, insert, COMMIT): the lock serializes an organization's messages so that a
monthly quota (docs/api.md#monthly-message-quota) is never passed. Without a quota there is
nothing to serialize,
and on PostgreSQL one statement counts the usage and inserts the message, atomically
without BEGIN and COMMIT. It checks the quota itself: an organization given a
quota a moment ago stores nothing here, and its caller takes the metered path.
"""

from __future__ import annotations

import uuid

from django.db import connection
from django.utils import timezone

from chats.models import Chat, Message, MessageType

# The usage upsert names the columns of usage_org_bot_day_unique (a chat always has its
# chatbot), as chat creation does (chats/services.py).
_INSERT_SQL = """
WITH organization AS (
    SELECT id FROM accounts_organization
    WHERE id = %(organization_id)s AND monthly_quota IS NULL
), usage AS (
    INSERT INTO accounts_dailyusage AS usage
        (organization_id, chatbot_id, day, messages, chats, pdp_requests)
    SELECT id, %(chatbot_id)s, %(day)s, 1, 0, 0 FROM organization
    ON CONFLICT (organization_id, chatbot_id, day) DO UPDATE SET messages = usage.messages + 1
), message AS (
    INSERT INTO chats_message (uuid, chat_id, type, content, current_url, store_code, created_at)
    SELECT %(uuid)s, %(chat_id)s, %(type)s, %(content)s, %(current_url)s, %(store_code)s, %(now)s
    FROM organization
    RETURNING seq
)
SELECT seq FROM message
"""

_COLUMNS = ["seq", "uuid", "chat_id", "type", "content", "current_url", "store_code", "created_at"]


def unmetered_user_message_insert(
    *, chat: Chat, content: str, current_url: str, store_code: str
) -> Message | None:
    """The stored message, or None (nothing written) if the organization has a quota or the
    database is not PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    now = timezone.now()
    message_uuid = uuid.uuid4()
    with connection.cursor() as cursor:
        cursor.execute(
            _INSERT_SQL,
            {
                "organization_id": chat.organization_id,
                "chatbot_id": chat.chatbot_id,
                "day": now.date(),  # UTC, the quota's day (docs/api.md#monthly-message-quota)
                "uuid": message_uuid,
                "chat_id": chat.pk,
                "type": MessageType.USER.value,
                "content": content,
                "current_url": current_url,
                "store_code": store_code,
                "now": now,
            },
        )
        row = cursor.fetchone()
    if row is None:
        return None
    # The instance Message.objects.create() would have returned: the values just stored.
    values = [row[0], message_uuid, chat.pk, MessageType.USER.value, content, current_url]
    message = Message.from_db(connection.alias, _COLUMNS, [*values, store_code, now])
    message.suggestions = message.products = None
    return message
