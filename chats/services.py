"""Writes of chats (contract §3)."""

from __future__ import annotations

import uuid

from django.db import transaction

from accounts.models import Chatbot, Organization
from accounts.usage import usage_add
from assistant_api.errors import NotFoundError
from chats.models import Chat, Message, MessageType

CHATBOT_NOT_FOUND = "Chatbot not found"


@transaction.atomic
def chat_create(
    *, organization: Organization, chatbot_id: uuid.UUID, user_id: uuid.UUID | None
) -> Chat:
    """A new chat for an active chatbot of the organization, starting with its greeting."""
    chatbot = Chatbot.objects.filter(
        pk=chatbot_id, organization=organization, is_active=True
    ).first()
    if chatbot is None:
        raise NotFoundError(CHATBOT_NOT_FOUND)
    chat = Chat.objects.create(
        organization=organization, chatbot=chatbot, user_id=user_id or uuid.uuid4()
    )
    usage_add(organization_id=organization.pk, chatbot_id=chatbot.pk, chats=1)
    if chatbot.greeting.strip():
        Message.objects.create(
            chat=chat, type=MessageType.ASSISTANT, content=chatbot.greeting.strip()
        )
    return chat
