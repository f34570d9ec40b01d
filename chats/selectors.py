"""Reads of chats and messages, always scoped to the caller's organization.

The two hot reads (a chat by id, a page of its history) run as prepared queries
(assistant_api/prepared.py): the same SQL the ORM writes, compiled once per process.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import Count, QuerySet, Window

from accounts.models import Organization
from assistant_api.errors import NotFoundError
from assistant_api.prepared import PreparedQuery
from chats.models import Chat, Message

CHAT_NOT_FOUND = "Chat not found"

_chat_of_organization = PreparedQuery(
    lambda chat_id, organization_id: Chat.objects.filter(
        pk=chat_id, organization_id=organization_id
    ).order_by(),  # one row: no Meta ordering
    chat_id=Chat._meta.pk,
    organization_id=Chat._meta.get_field("organization"),
)
# The window count rides along with the page's rows: one query for the page and its total.
_history_page = PreparedQuery(
    lambda chat_id: (
        Message.objects.filter(chat_id=chat_id)
        .annotate(total_items=Window(Count("pk")))
        .order_by("seq")
    ),
    chat_id=Message._meta.get_field("chat"),
)


@dataclass(frozen=True)
class MessagePage:
    items: list[Message]
    total_items: int


def parse_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def chat_get(*, organization: Organization, chat_id: str) -> Chat:
    """The organization's chat, or 404 for an unknown, malformed or foreign id (contract §1)."""
    parsed = parse_uuid(chat_id)
    found = (
        _chat_of_organization.fetch(chat_id=parsed, organization_id=organization.pk)
        if parsed is not None
        else []
    )
    if not found:
        raise NotFoundError(CHAT_NOT_FOUND)
    return found[0]


def message_list(*, chat: Chat) -> QuerySet[Message]:
    """The chat's messages in conversation order (insertion order breaks timestamp ties)."""
    return Message.objects.filter(chat=chat).order_by("seq")


def message_page(*, chat: Chat, page: int, size: int) -> MessagePage:
    """Page `page` (from 1) of `size` messages in conversation order, and the chat's total.

    One query; a page past the end (or an empty chat) has no row to carry the total, so it
    counts separately.
    """
    items = _history_page.fetch(chat_id=chat.pk, limit=size, offset=(page - 1) * size)
    total = items[0].total_items if items else message_list(chat=chat).count()
    return MessagePage(items=items, total_items=total)
