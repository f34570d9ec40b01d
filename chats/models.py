"""Chats, their messages and the events of the assistant's replies."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from accounts.models import Chatbot, Organization


class Chat(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Lookups by organization use chat_org_created: an index of its own only slowed inserts.
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="chats", db_index=False
    )
    chatbot = models.ForeignKey(Chatbot, on_delete=models.CASCADE, related_name="chats")
    user_id = models.UUIDField(default=uuid.uuid4, db_index=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "-created_at"], name="chat_org_created")]

    def __str__(self) -> str:
        return str(self.id)


class MessageType(models.TextChoices):
    USER = "user", "User"
    ASSISTANT = "assistant", "Assistant"
    ANSWER = "answer", "Answer"


class Message(models.Model):
    """One message; `seq` (the primary key) is the insertion order used for history.

    `uuid` is the public `id` of the message (Django reserves the name `id` for primary keys).
    """

    seq = models.BigAutoField(primary_key=True)
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Indexed by message_chat_seq (chat first), as events and idempotency records are by theirs.
    chat = models.ForeignKey(
        Chat, on_delete=models.CASCADE, related_name="messages", db_index=False
    )
    type = models.CharField(max_length=10, choices=MessageType.choices)
    content = models.TextField()
    # Snapshots as they were at reply time; null when the reply has none (docs/api.md#message).
    suggestions = models.JSONField(null=True, blank=True)
    products = models.JSONField(null=True, blank=True)
    current_url = models.TextField(blank=True)
    store_code = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["seq"]
        indexes = [models.Index(fields=["chat", "seq"], name="message_chat_seq")]

    def __str__(self) -> str:
        return f"{self.type}: {self.content[:60]}"


class FeedbackRating(models.TextChoices):
    UP = "up", "Helpful"
    DOWN = "down", "Not helpful"


class FeedbackReason(models.TextChoices):
    WRONG_PRODUCTS = "wrong_products", "Wrong products"
    WRONG_INFORMATION = "wrong_information", "Wrong information"
    NOT_HELPFUL = "not_helpful", "Not helpful"
    OTHER = "other", "Other"


class Feedback(models.Model):
    """A shopper's rating of one reply (docs/api.md "Answer feedback"); at most one per reply,
    replaced by the next."""

    message = models.OneToOneField(
        Message, on_delete=models.CASCADE, primary_key=True, related_name="feedback"
    )
    # The message's chat, so a chat's or a day's feedback is read without the messages.
    chat = models.ForeignKey(
        Chat, on_delete=models.CASCADE, related_name="feedback", db_index=False
    )
    rating = models.CharField(max_length=4, choices=FeedbackRating.choices)
    reason = models.CharField(max_length=20, choices=FeedbackReason.choices, blank=True)
    comment = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["chat", "rating"], name="feedback_chat_rating"),
            models.Index(fields=["updated_at"], name="feedback_updated"),
        ]

    def __str__(self) -> str:
        return f"{self.rating} {self.reason}".rstrip()


class EventStatus(models.TextChoices):
    IN_PROGRESS = "inProgress", "In progress"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


class Event(models.Model):
    """One MessageEvent of the stream; `seq` is its `eventId` and the resume position."""

    seq = models.BigAutoField(primary_key=True)
    chat = models.ForeignKey(Chat, on_delete=models.CASCADE, related_name="events", db_index=False)
    status = models.CharField(max_length=12, choices=EventStatus.choices)
    tool_name = models.CharField(max_length=100, blank=True)
    content = models.TextField(null=True, blank=True)
    tool_args = models.JSONField(null=True, blank=True)
    tool_response = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The seq of the user message the event's reply answers: tells apart the events of two
    # replies of one chat running at once (two tabs). Not a foreign key: no check per insert.
    reply_to_seq = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["seq"]
        indexes = [
            models.Index(fields=["chat", "seq"], name="event_chat_seq"),
            models.Index(fields=["chat", "created_at"], name="event_chat_created"),
        ]

    def __str__(self) -> str:
        return f"{self.seq} {self.status} {self.tool_name}".rstrip()

    @property
    def event_id(self) -> str:
        return str(self.seq)


class IdempotencyRecord(models.Model):
    """The first outcome of a `POST .../messages` sent with an `Idempotency-Key`
    (docs/api.md#idempotency).

    Inserted (with no outcome yet) before the assistant runs, so the unique constraint on
    (chat, key) lets exactly one of several identical concurrent requests do the work; the
    others wait for `status_code` and `response_body` and return them.
    """

    chat = models.ForeignKey(
        Chat, on_delete=models.CASCADE, related_name="idempotency_records", db_index=False
    )
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    # The JSON text itself: a replay returns the same bytes (jsonb would reorder the keys).
    response_json = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chat", "key"], name="idempotency_chat_key_unique")
        ]

    def __str__(self) -> str:
        return f"{self.chat_id} {self.key}"
