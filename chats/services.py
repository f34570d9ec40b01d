"""Writes of chats (docs/api.md#create-a-chat)."""

from __future__ import annotations

import uuid

from django.db import connections, router, transaction
from django.utils import timezone

from accounts.models import Chatbot, Organization
from accounts.usage import usage_add
from assistant_api.errors import NotFoundError
from chats.models import Chat, Message, MessageType
from infrastructure.prepared import PreparedQuery

CHATBOT_NOT_FOUND = "Chatbot not found"

# What str.strip() removes, so PostgreSQL trims a greeting exactly as Python does (its
# btrim() alone trims spaces only). No white space character lies above U+3000.
WHITESPACE = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())

# Creating a chat is the hottest write: on PostgreSQL one statement does it all, in
# one round trip, atomic without BEGIN and COMMIT. Its parts share one snapshot and see each
# other's rows only through RETURNING, so every insert starts from the chatbot row: no active
# chatbot of the organization, nothing written. The usage upsert names exactly the columns of
# usage_org_bot_day_unique (a chat always has its chatbot, so the partial index of unbound
# usage never applies); it settles a race for the day's row itself, with no savepoint and retry.
_CREATE_SQL = """
WITH chatbot AS (
    SELECT id, organization_id, btrim(greeting, %(whitespace)s) AS greeting
    FROM accounts_chatbot
    WHERE id = %(chatbot_id)s AND organization_id = %(organization_id)s AND is_active
), chat AS (
    INSERT INTO chats_chat (id, organization_id, chatbot_id, user_id, created_at)
    SELECT %(chat_id)s, organization_id, id, %(user_id)s, %(now)s FROM chatbot
    RETURNING id
), usage AS (
    INSERT INTO accounts_dailyusage AS usage
        (organization_id, chatbot_id, day, messages, chats, pdp_requests)
    SELECT organization_id, id, %(day)s, 0, 1, 0 FROM chatbot
    ON CONFLICT (organization_id, chatbot_id, day) DO UPDATE SET chats = usage.chats + 1
), greeting AS (
    INSERT INTO chats_message (uuid, chat_id, type, content, current_url, store_code, created_at)
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
    alias = router.db_for_write(Chat)
    if connections[alias].vendor == "postgresql":
        return _chat_create_in_one_statement(
            alias=alias, organization=organization, chatbot_id=chatbot_id, user_id=user_id
        )
    return _chat_create_in_transaction(
        organization=organization, chatbot_id=chatbot_id, user_id=user_id
    )


def _chat_create_in_one_statement(
    *, alias: str, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
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
def _chat_create_in_transaction(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
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
