"""Reads of chats and messages, always scoped to the caller's organization.

The two hot reads (a chat by id, a page of its history) run as prepared queries
(infrastructure/prepared.py): the same SQL the ORM writes, compiled once per process.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import NamedTuple

from django.db.models import Count, QuerySet, Subquery, TextField
from django.db.models.functions import Cast

from accounts.models import Organization
from assistant_api.errors import NotFoundError
from assistant_api.ids import uuid_from_text
from chats.chat_cache import chat_lookup
from chats.models import Chat, Message
from infrastructure.prepared import PreparedQuery
from infrastructure.sql_text import UtcIsoTimestamp, UuidText

CHAT_NOT_FOUND = "Chat not found"

_chat_of_organization = PreparedQuery(
    lambda chat_id, organization_id: Chat.objects.filter(
        pk=chat_id, organization_id=organization_id
    ).order_by(),  # one row: no Meta ordering
    chat_id=Chat._meta.pk,
    organization_id=Chat._meta.get_field("organization"),
)


def _message_count_of(chat_id: uuid.UUID) -> QuerySet:
    """The chat's message count as a one-row queryset (none for a chat without messages);
    grouped by the chat because `.count()` runs at once instead of returning a queryset."""
    return (
        Message.objects.filter(chat_id=chat_id)
        .order_by()
        .values("chat")
        .annotate(total=Count("pk"))
        .values_list("total")
    )


# Only the columns of the response, as text: model instances, UUID and datetime objects and
# decoded JSON cost the worker more than the query. The total rides along as a
# scalar subquery, which PostgreSQL counts once per query; a window COUNT(*) OVER () read and
# buffered every message of the chat with all its columns first (0.7 ms of CPU for 500).
_history_page = PreparedQuery(
    lambda chat_id: (
        Message.objects.filter(chat_id=chat_id)
        .annotate(total_items=Subquery(_message_count_of(chat_id)))
        .order_by("seq")
        .values_list(
            UuidText("uuid"),
            "type",
            "content",
            Cast("suggestions", TextField()),
            Cast("products", TextField()),
            UtcIsoTimestamp("created_at"),
            # A reply's feedback by a LEFT JOIN on its primary key: no query per page.
            "feedback__rating",
            "feedback__reason",
            "feedback__comment",
            UtcIsoTimestamp("feedback__updated_at"),
            "total_items",
        )
    ),
    chat_id=Message._meta.get_field("chat"),
)
_message_count = PreparedQuery(_message_count_of, chat_id=Message._meta.get_field("chat"))


class MessageRow(NamedTuple):
    """A message of a history page, each value in its response form."""

    id: str
    type: str
    content: str
    suggestions_json: str | None  # the stored JSON text; None when the reply has none
    products_json: str | None
    created_at: str  # ISO 8601 in UTC ending in `Z`
    feedback_rating: str | None  # None: the message has no feedback
    feedback_reason: str | None
    feedback_comment: str | None
    feedback_updated_at: str | None


@dataclass(frozen=True)
class MessagePage:
    items: list[MessageRow]
    total_items: int


def chat_get(*, organization: Organization, chat_id: str, fresh: bool = False) -> Chat:
    """The organization's chat, or 404 for an unknown, malformed or foreign id
    (docs/api.md#identifiers).

    Reads may be served from the worker's chat cache (chats/chat_cache.py); a write passes
    `fresh=True`, so it never acts on a chat deleted since the worker cached it.
    """
    parsed = uuid_from_text(chat_id)
    if parsed is None:
        raise NotFoundError(CHAT_NOT_FOUND)

    def load() -> Chat | None:
        found = _chat_of_organization.fetch(chat_id=parsed, organization_id=organization.pk)
        return found[0] if found else None

    chat = chat_lookup(organization_id=organization.pk, chat_id=parsed, load=load, fresh=fresh)
    if chat is None:
        raise NotFoundError(CHAT_NOT_FOUND)
    return chat


def message_page(*, chat: Chat, page: int, size: int) -> MessagePage:
    """Page `page` (from 1) of `size` messages in conversation order, and the chat's total.

    One query; a page past the end has no row to carry the total, so it counts separately.
    """
    offset = (page - 1) * size
    rows = _history_page.fetch(chat_id=chat.pk, limit=size, offset=offset)
    if rows:
        total = rows[0][-1]
    elif offset == 0:
        total = 0  # an empty first page: the chat has no message
    else:
        counted = _message_count.fetch(chat_id=chat.pk)
        total = counted[0][0] if counted else 0
    return MessagePage(items=[MessageRow._make(row[:-1]) for row in rows], total_items=total)
