"""Deleting shoppers' conversations: one shopper's on request (erasure), and every
organization's older than its retention period (purge). Usage counts and the insights' daily
rows are kept: they are counts, with no shopper's id."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import asdict, dataclass

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Organization
from assistant_api.errors import ValidationFailedError
from assistant_api.ids import uuid_from_text
from chats.history_cache import history_forget
from chats.models import Chat, Event, Feedback, IdempotencyRecord, Message

INVALID_USER_ID = "The user id must be a UUID"
PURGE_BATCH = 500  # chats per transaction: a long purge never holds many locks at once


@dataclass
class Removed:
    chats: int = 0
    messages: int = 0
    events: int = 0
    feedback: int = 0

    def add(self, other: Removed) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def user_erase(*, organization: Organization, user_id: str) -> Removed:
    """Deletes the shopper's chats in the organization, with their messages, events and
    feedback; what was removed, counted."""
    parsed = uuid_from_text(user_id)
    if parsed is None:
        raise ValidationFailedError(INVALID_USER_ID, errors={"userId": [INVALID_USER_ID]})
    chats = Chat.objects.filter(organization=organization, user_id=parsed)
    return _chats_delete(chats)


def expired_purge(*, now: dt.datetime | None = None) -> dict[str, Removed]:
    """For each organization with a retention period, deletes its chats started longer ago;
    what was removed, by organization name."""
    now = now or timezone.now()
    removed: dict[str, Removed] = {}
    for organization in Organization.objects.filter(retention_days__isnull=False):
        cutoff = now - dt.timedelta(days=organization.retention_days or 0)
        expired = Chat.objects.filter(organization=organization, created_at__lt=cutoff)
        total = Removed()
        while True:
            batch = list(expired.order_by("created_at").values_list("pk", flat=True)[:PURGE_BATCH])
            if not batch:
                break
            total.add(_chats_delete(Chat.objects.filter(pk__in=batch)))
        removed[organization.name] = total
    return removed


@transaction.atomic
def _chats_delete(chats: QuerySet[Chat]) -> Removed:
    chat_ids: list[uuid.UUID] = list(chats.select_for_update().values_list("pk", flat=True))
    if not chat_ids:
        return Removed()
    # Children first, each one DELETE by its chat-first index, rather than the ORM's cascade
    # (which reads every message to find its feedback).
    removed = Removed(
        feedback=Feedback.objects.filter(chat_id__in=chat_ids).delete()[0],
        events=Event.objects.filter(chat_id__in=chat_ids).delete()[0],
    )
    IdempotencyRecord.objects.filter(chat_id__in=chat_ids).delete()
    removed.messages = Message.objects.filter(chat_id__in=chat_ids).delete()[0]
    removed.chats = Chat.objects.filter(pk__in=chat_ids).delete()[0]
    history_forget(chat_ids)
    return removed
