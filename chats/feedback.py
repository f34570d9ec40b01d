"""Shoppers' ratings of replies (docs/api.md "Answer feedback"): set, replace and remove.

Feedback is part of a chat's history (each reply's `feedback`), so every write drops the
chat's cached history pages like a new message does.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from assistant_api.errors import NotFoundError, ValidationFailedError
from assistant_api.ids import uuid_from_text
from chats.history_cache import history_changed
from chats.models import Chat, Feedback, FeedbackRating, Message, MessageType

MESSAGE_NOT_FOUND = "Message not found"
NOT_AN_ANSWER = "Only replies of type answer take feedback"


def _answer_of_chat(*, chat: Chat, message_id: str) -> Message:
    parsed = uuid_from_text(message_id)
    message = (
        Message.objects.filter(chat=chat, uuid=parsed).only("seq", "type", "uuid").first()
        if parsed is not None
        else None
    )
    if message is None:
        raise NotFoundError(MESSAGE_NOT_FOUND)
    if message.type != MessageType.ANSWER:
        raise ValidationFailedError(NOT_AN_ANSWER, errors={"messageId": [NOT_AN_ANSWER]})
    return message


@transaction.atomic
def feedback_set(
    *, chat: Chat, message_id: str, rating: str, reason: str = "", comment: str = ""
) -> Feedback:
    """Stores the reply's feedback, replacing any it had. `reason` goes with `down` only
    (the input serializer refuses it with `up`)."""
    message = _answer_of_chat(chat=chat, message_id=message_id)
    feedback, _ = Feedback.objects.update_or_create(
        message=message,
        defaults={
            "chat": chat,
            "rating": rating,
            "reason": reason if rating == FeedbackRating.DOWN else "",
            "comment": comment,
            "updated_at": timezone.now(),
        },
    )
    history_changed(chat.pk)
    return feedback


@transaction.atomic
def feedback_delete(*, chat: Chat, message_id: str) -> None:
    """Removes the reply's feedback; a reply without any is left as it is (a retried DELETE
    answers as the first did)."""
    message = _answer_of_chat(chat=chat, message_id=message_id)
    deleted, _ = Feedback.objects.filter(message=message).delete()
    if deleted:
        history_changed(chat.pk)
