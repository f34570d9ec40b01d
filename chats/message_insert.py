"""The shopper's message stored with its count against the monthly quota
(docs/api.md#monthly-message-quota), and its `Idempotency-Key` claimed, in one place.

Portably it is a transaction of five round trips (BEGIN, lock the organization, count the
day's usage, insert, COMMIT): the lock serializes an organization's messages so that a
monthly quota is never passed. Without a quota and without a key there is nothing to
serialize, and on PostgreSQL one statement counts the usage and inserts the message,
atomically without BEGIN and COMMIT. It checks the quota itself: an organization given a quota
a moment ago stores nothing there, and the message takes the portable path.
"""

from __future__ import annotations

import uuid

from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Organization
from accounts.usage import quota_consume_message, usage_upsert_sql
from chats.history_cache import history_changed
from chats.models import Chat, IdempotencyRecord, Message, MessageType

quote_name = connection.ops.quote_name

_INSERT_SQL = f"""
WITH organization AS (
    SELECT id FROM {quote_name(Organization._meta.db_table)}
    WHERE id = %(organization_id)s AND monthly_quota IS NULL
), usage AS (
    {usage_upsert_sql("SELECT id, %(chatbot_id)s, %(day)s, 1, 0, 0 FROM organization", bound=True)}
), message AS (
    INSERT INTO {quote_name(Message._meta.db_table)}
        (uuid, chat_id, type, content, current_url, store_code, created_at)
    SELECT %(uuid)s, %(chat_id)s, %(type)s, %(content)s, %(current_url)s, %(store_code)s, %(now)s
    FROM organization
    RETURNING seq
)
SELECT seq FROM message
"""

_COLUMNS = ["seq", "uuid", "chat_id", "type", "content", "current_url", "store_code", "created_at"]


def user_message_store(
    *,
    organization: Organization,
    chat: Chat,
    content: str,
    current_url: str,
    store_code: str,
    idempotency_key: str | None,
    fingerprint: str,
) -> tuple[Message, IdempotencyRecord | None]:
    """Stores the shopper's message, counted against the quota, and claims its idempotency
    key, all or nothing: a refused request (429, a key claimed a moment ago) stores nothing.

    An organization without a quota (as the request saw it; the statement checks again) and a
    message without a key need no transaction of their own on PostgreSQL.
    """
    unmetered = idempotency_key is None and organization.monthly_quota is None
    if unmetered and connection.vendor == "postgresql":
        stored = user_message_insert_postgresql(
            chat=chat, content=content, current_url=current_url, store_code=store_code
        )
        if stored is not None:
            history_changed(chat.pk)
            return stored, None
    return user_message_insert_portable(
        chat=chat,
        content=content,
        current_url=current_url,
        store_code=store_code,
        idempotency_key=idempotency_key,
        fingerprint=fingerprint,
    )


def user_message_insert_portable(
    *,
    chat: Chat,
    content: str,
    current_url: str,
    store_code: str,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[Message, IdempotencyRecord | None]:
    """The message, its quota count and its key's claim in ONE short transaction."""
    with transaction.atomic():
        # Counted first: a refusal (429) rolls the whole transaction back, storing nothing.
        quota_consume_message(organization_id=chat.organization_id, chatbot_id=chat.chatbot_id)
        record = None
        if idempotency_key is not None:
            record = IdempotencyRecord.objects.create(
                chat=chat, key=idempotency_key, request_hash=fingerprint
            )
        message = Message.objects.create(
            chat=chat,
            type=MessageType.USER,
            content=content,
            current_url=current_url,
            store_code=store_code,
        )
        history_changed(chat.pk)
    return message, record


def user_message_insert_postgresql(
    *, chat: Chat, content: str, current_url: str, store_code: str
) -> Message | None:
    """The message and its usage count in one statement; None (nothing written) if the
    organization has a quota."""
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
