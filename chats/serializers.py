"""Request validation and response shapes of the chat endpoints (docs/api.md#resources)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from assistant_api.fields import StrictUUIDField
from chats.models import Chat, Feedback, FeedbackRating, FeedbackReason, Message, MessageType
from chats.selectors import MessageRow
from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.models import Availability

MAX_MESSAGE_CHARS = 4000
MAX_URL_CHARS = 2048
# The stored values MessageOutput leaves out (null, false, 0, "", [], {}), as jsonb or
# json.dumps writes them, are shorter than this; longer text is never empty.
_SHORT_JSON = 16


def iso_timestamp(value: dt.datetime) -> str:
    """ISO 8601 in UTC ending in `Z` (docs/api.md#timestamps), as DRF's DateTimeField writes it."""
    text = value.astimezone(dt.UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


@extend_schema_serializer(component_name="CreateChat")
class ChatCreateInput(serializers.Serializer):
    chatbotId = StrictUUIDField()
    userId = StrictUUIDField(required=False)


class StrictCharField(serializers.CharField):
    """Text given as a JSON string; DRF's CharField would turn numbers into text."""

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MessageCreateInput(serializers.Serializer):
    """The body of `POST /v1/chats/{chatId}/messages` (docs/api.md#add-a-message)."""

    # Trimmed first, so white space alone is "blank"; DRF refuses NUL characters itself.
    message = StrictCharField(max_length=MAX_MESSAGE_CHARS)
    currentUrl = StrictCharField(max_length=MAX_URL_CHARS, trim_whitespace=False)

    def validate_currentUrl(self, value: str) -> str:
        if value != value.strip() or any(ch.isspace() for ch in value):
            raise serializers.ValidationError("Must be a URL without white space.")
        try:
            canonicalize_url(value)
        except InvalidUrlError:
            raise serializers.ValidationError("Must be an absolute http or https URL.") from None
        return value


@extend_schema_serializer(component_name="Chat")
class ChatOutput(serializers.ModelSerializer):
    chatbotId = serializers.UUIDField(source="chatbot_id")
    userId = serializers.UUIDField(source="user_id")
    organizationId = serializers.UUIDField(source="organization_id")
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Chat
        fields = ["id", "chatbotId", "userId", "organizationId", "createdAt"]

    def to_representation(self, instance: Chat) -> dict[str, Any]:
        return chat_body(instance)


def chat_body(chat: Chat) -> dict[str, Any]:
    """A Chat as the API writes it; ChatOutput's fields document the shape (OpenAPI).

    The views call this rather than ChatOutput(chat).data: making a serializer per response
    cost a cached GET chat more than its lookup.
    """
    return {
        "id": str(chat.id),
        "chatbotId": str(chat.chatbot_id),
        "userId": str(chat.user_id),
        "organizationId": str(chat.organization_id),
        "createdAt": iso_timestamp(chat.created_at),
    }


@extend_schema_serializer(component_name="Location")
class LocationOutput(serializers.Serializer):
    key = serializers.CharField()
    value = serializers.CharField()


@extend_schema_serializer(component_name="Availability")
class AvailabilityOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=Availability.choices)
    quantity = serializers.IntegerField()


@extend_schema_serializer(component_name="Flag")
class FlagOutput(serializers.Serializer):
    type = serializers.CharField()
    title = serializers.CharField()
    text = serializers.CharField()


@extend_schema_serializer(component_name="Product")
class ProductOutput(serializers.Serializer):
    """Describes a product snapshot; the snapshot is stored in this shape already."""

    gtin = serializers.CharField()
    brand = serializers.CharField(allow_blank=True)
    designation = serializers.CharField()
    url = serializers.URLField()
    image = serializers.URLField()
    price = serializers.FloatField()
    currency = serializers.CharField()
    priceInfo = serializers.CharField(required=False)
    location = LocationOutput(many=True, required=False)
    availability = AvailabilityOutput(required=False)
    category = serializers.CharField(required=False)
    query = serializers.CharField(required=False)
    description = serializers.CharField(required=False)
    recommendationText = serializers.CharField(required=False)
    flags = FlagOutput(many=True, required=False)


MAX_FEEDBACK_COMMENT_CHARS = 1000
REASON_WITH_UP = "A reason goes with a down rating only."


class FeedbackInput(serializers.Serializer):
    """The body of `PUT /v1/chats/{chatId}/messages/{messageId}/feedback`."""

    rating = serializers.ChoiceField(choices=FeedbackRating.values)
    reason = serializers.ChoiceField(choices=FeedbackReason.values, required=False)
    comment = StrictCharField(
        max_length=MAX_FEEDBACK_COMMENT_CHARS, required=False, allow_blank=True
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("reason") and attrs["rating"] != FeedbackRating.DOWN:
            raise serializers.ValidationError({"reason": [REASON_WITH_UP]})
        return attrs


@extend_schema_serializer(component_name="Feedback")
class FeedbackOutput(serializers.Serializer):
    """A shopper's rating of a reply; `reason` and `comment` are null when not given."""

    messageId = serializers.UUIDField()
    rating = serializers.ChoiceField(choices=FeedbackRating.values)
    reason = serializers.ChoiceField(choices=FeedbackReason.values, allow_null=True)
    comment = serializers.CharField(allow_null=True)
    updatedAt = serializers.DateTimeField()


def feedback_body(feedback: Feedback, *, message_id: str) -> dict[str, Any]:
    """A reply's feedback as the API writes it (PUT); FeedbackOutput documents the shape."""
    return feedback_shape(
        message_id=message_id,
        rating=feedback.rating,
        reason=feedback.reason,
        comment=feedback.comment,
        updated_at=iso_timestamp(feedback.updated_at),
    )


def feedback_shape(
    *, message_id: str, rating: str, reason: str | None, comment: str | None, updated_at: str
) -> dict[str, Any]:
    """Feedback alone or on its reply in the history: empty reason and comment are null."""
    return {
        "messageId": message_id,
        "rating": rating,
        "reason": reason or None,
        "comment": comment or None,
        "updatedAt": updated_at,
    }


@extend_schema_serializer(component_name="Message")
class MessageOutput(serializers.ModelSerializer):
    id = serializers.UUIDField(source="uuid")
    chatId = serializers.UUIDField(source="chat_id")
    createdAt = serializers.DateTimeField(source="created_at")
    suggestions = serializers.ListField(child=serializers.CharField(), required=False)
    products = ProductOutput(many=True, required=False)
    feedback = FeedbackOutput(
        allow_null=True,
        required=False,
        help_text="On replies of type answer only: the shopper's feedback, null when none.",
    )

    class Meta:
        model = Message
        fields = [
            "id",
            "chatId",
            "type",
            "content",
            "suggestions",
            "products",
            "createdAt",
            "feedback",
        ]

    def to_representation(self, instance: Message) -> dict[str, Any]:
        # Not self.fields[...]: that builds every declared field (nested products too) per
        # request, a third of a history page's CPU time. Snapshots are stored in
        # their output shape.
        return message_body(
            id=str(instance.uuid),
            chat_id=str(instance.chat_id),
            type=instance.type,
            content=instance.content,
            suggestions=instance.suggestions,
            products=instance.products,
            created_at=iso_timestamp(instance.created_at),
            feedback=None,  # only ever made for a reply just written
        )


def message_body(
    *,
    id: str,
    chat_id: str,
    type: str,
    content: str,
    suggestions: Any,
    products: Any,
    created_at: str,
    feedback: dict[str, Any] | None,
) -> dict[str, Any]:
    """A Message as the API writes it (docs/api.md#message): `suggestions` and `products` only
    when the reply has some (None and empty values are left out); `feedback` on every answer."""
    body: dict[str, Any] = {"id": id, "chatId": chat_id, "type": type, "content": content}
    if suggestions:
        body["suggestions"] = suggestions
    if products:
        body["products"] = products
    body["createdAt"] = created_at
    if type == MessageType.ANSWER:
        body["feedback"] = feedback
    return body


def message_row_output(row: MessageRow, *, chat_id: str) -> dict[str, Any]:
    """A Message of a history page, as MessageOutput writes it, from a row in response form.

    The snapshots' stored JSON text goes into the body as it is (orjson.Fragment): decoding it
    to encode it again was the largest cost of a page. Keys, their order and values
    are the stored ones, as before; only the spelling is the database's: jsonb's white space
    (`{"a": 1, "b": [2, 3]}`), and on SQLite json.dumps' `\\u` escapes.
    """
    return message_body(
        id=row.id,
        chat_id=chat_id,
        type=row.type,
        content=row.content,
        suggestions=_stored_json(row.suggestions_json),
        products=_stored_json(row.products_json),
        created_at=row.created_at,
        feedback=_row_feedback(row),
    )


def _row_feedback(row: MessageRow) -> dict[str, Any] | None:
    if row.feedback_rating is None or row.feedback_updated_at is None:
        return None
    return feedback_shape(
        message_id=row.id,
        rating=row.feedback_rating,
        reason=row.feedback_reason,
        comment=row.feedback_comment,
        updated_at=row.feedback_updated_at,
    )


def _stored_json(text: str | None) -> Any:
    """The stored JSON for the body, or None where message_body leaves it out (empty)."""
    if text is None:
        return None
    if len(text) < _SHORT_JSON:
        return orjson.loads(text) or None
    return orjson.Fragment(text)
