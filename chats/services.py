"""Writes of chats (contract §3)."""

from __future__ import annotations

import uuid

from django.db import transaction

from accounts.models import Chatbot, Organization
from accounts.usage import usage_add
from assistant_api.errors import NotFoundError
from assistant_api.prepared import PreparedQuery
from chats.models import Chat, Message, MessageType

CHATBOT_NOT_FOUND = "Chatbot not found"

# Compiled once (assistant_api/prepared.py): every chat creation looks its chatbot up.
_active_chatbot = PreparedQuery(
    lambda chatbot_id, organization_id: Chatbot.objects.filter(
        pk=chatbot_id, organization_id=organization_id, is_active=True
    ).order_by(),  # no Meta ordering: it joined the organization to sort a single row
    chatbot_id=Chatbot._meta.pk,
    organization_id=Chatbot._meta.get_field("organization"),
)


@transaction.atomic
def chat_create(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
    """A new chat for an active chatbot of the organization, starting with its greeting."""
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
