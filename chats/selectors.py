"""Reads of chats and messages, always scoped to the caller's organization."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from accounts.models import Organization
from assistant_api.errors import NotFoundError
from chats.models import Chat, Message

CHAT_NOT_FOUND = "Chat not found"


def parse_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def chat_get(*, organization: Organization, chat_id: str) -> Chat:
    """The organization's chat, or 404 for an unknown, malformed or foreign id (contract §1)."""
    parsed = parse_uuid(chat_id)
    chat = (
        Chat.objects.filter(pk=parsed, organization=organization).first()
        if parsed is not None
        else None
    )
    if chat is None:
        raise NotFoundError(CHAT_NOT_FOUND)
    return chat


def message_list(*, chat: Chat) -> QuerySet[Message]:
    """The chat's messages in conversation order (insertion order breaks timestamp ties)."""
    return Message.objects.filter(chat=chat).order_by("seq")
