"""Writes of chats (docs/api.md#create-a-chat)."""

from __future__ import annotations

import uuid

from django.db import connection, connections, router, transaction
from django.utils import timezone

from accounts.models import Chatbot, Organization
from accounts.usage import usage_add, usage_upsert_sql
from assistant_api.errors import NotFoundError
from chats.models import Chat, Message, MessageType
from infrastructure.prepared import PreparedQuery

CHATBOT_NOT_FOUND = "Chatbot not found"
quote_name = connection.ops.quote_name

# What str.strip() removes, so PostgreSQL trims a greeting exactly as Python does (its
# btrim() alone trims spaces only). No white space character lies above U+3000.
WHITESPACE = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())

# Creating a chat is the hottest write: on PostgreSQL one statement does it all, in
# one round trip, atomic without BEGIN and COMMIT. Its parts share one snapshot and see each
# other's rows only through RETURNING, so every insert starts from the chatbot row: no active
# chatbot of the organization, nothing written. The usage upsert (accounts/usage.py) settles a
# race for the day's row itself, with no savepoint and retry; a chat always has its chatbot.
_CREATE_SQL = f"""
WITH chatbot AS (
    SELECT id, organization_id, btrim(greeting, %(whitespace)s) AS greeting
    FROM {quote_name(Chatbot._meta.db_table)}
    WHERE id = %(chatbot_id)s AND organization_id = %(organization_id)s AND is_active
), chat AS (
    INSERT INTO {quote_name(Chat._meta.db_table)}
        (id, organization_id, chatbot_id, user_id, created_at)
    SELECT %(chat_id)s, organization_id, id, %(user_id)s, %(now)s FROM chatbot
    RETURNING id
), usage AS (
    {usage_upsert_sql("SELECT organization_id, id, %(day)s, 0, 1, 0 FROM chatbot", bound=True)}
), greeting AS (
    INSERT INTO {quote_name(Message._meta.db_table)}
        (uuid, chat_id, type, content, current_url, store_code, created_at)
    SELECT %(message_uuid)s, chat.id, %(assistant)s, chatbot.greeting, '', '', %(now)s
    FROM chat, chatbot
    WHERE chatbot.greeting <> ''
)
SELECT id FROM chat
"""

# Compiled once (infrastructure/prepared.py): every chat creation looks its chatbot up.
_active_chatbot = PreparedQuery(
    lambda chatbot_id, organization_id: Chatbot.objects.filter(
        pk=chatbot_id, organization_id=organization_id, is_active=True
    ).order_by(),  # no Meta ordering: it joined the organization to sort a single row
    chatbot_id=Chatbot._meta.pk,
    organization_id=Chatbot._meta.get_field("organization"),
)


def chat_create(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
    """A new chat for an active chatbot of the organization, starting with its greeting.

    Counts the chat in the day's usage. Raises NotFoundError, writing nothing, when the
    chatbot is unknown, inactive or another organization's.
    """
    if connections[router.db_for_write(Chat)].vendor == "postgresql":
        return chat_create_postgresql(
            organization=organization, chatbot_id=chatbot_id, user_id=user_id
        )
    return chat_create_portable(organization=organization, chatbot_id=chatbot_id, user_id=user_id)


def chat_create_postgresql(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
    """`chat_create` in one statement."""
    alias = router.db_for_write(Chat)
    now = timezone.now()
    chat_id, user_id = uuid.uuid4(), user_id or uuid.uuid4()
    with connections[alias].cursor() as cursor:
        cursor.execute(
            _CREATE_SQL,
            {
                "whitespace": WHITESPACE,
                "chatbot_id": chatbot_id,
                "organization_id": organization.pk,
                "chat_id": chat_id,
                "user_id": user_id,
                "now": now,
                "day": now.date(),  # UTC, the quota's day (docs/api.md#monthly-message-quota)
                "message_uuid": uuid.uuid4(),
                "assistant": MessageType.ASSISTANT.value,
            },
        )
        if cursor.fetchone() is None:
            raise NotFoundError(CHATBOT_NOT_FOUND)
    # The instance Chat.objects.create() would have returned: the values just stored.
    chat = Chat.from_db(
        alias,
        ["id", "organization_id", "chatbot_id", "user_id", "created_at"],
        [chat_id, organization.pk, chatbot_id, user_id, now],
    )
    chat.organization = organization
    return chat


@transaction.atomic
def chat_create_portable(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
    """`chat_create` through the ORM, in a transaction."""
    found = _active_chatbot.fetch(chatbot_id=chatbot_id, organization_id=organization.pk)
    if not found:
        raise NotFoundError(CHATBOT_NOT_FOUND)
    chatbot = found[0]
    chat = Chat.objects.create(
        organization=organization, chatbot=chatbot, user_id=user_id or uuid.uuid4()
    )
    usage_add(organization_id=organization.pk, chatbot_id=chatbot.pk, chats=1)
    if chatbot.greeting.strip():
        Message.objects.create(
            chat=chat, type=MessageType.ASSISTANT, content=chatbot.greeting.strip()
        )
    return chat
