"""Request validation and response shapes of the chat endpoints (contract §3, §4)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from assistant_api.fields import StrictUUIDField
from chats.models import Chat, Message
from knowledge.canonical import InvalidUrlError, canonicalize_url

MAX_MESSAGE_CHARS = 4000
MAX_URL_CHARS = 2048


def iso_timestamp(value: dt.datetime) -> str:
    """ISO 8601 in UTC ending in `Z` (contract §1), as DRF's DateTimeField writes it."""
    text = value.astimezone(dt.UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


@extend_schema_serializer(component_name="CreateChat")
class ChatCreateInput(serializers.Serializer):
    chatbotId = StrictUUIDField()
    userId = StrictUUIDField(required=False, allow_null=True)


class StrictCharField(serializers.CharField):
    """Text given as a JSON string; DRF's CharField would turn numbers into text."""

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MessageCreateInput(serializers.Serializer):
    """The body of `POST /v1/chats/{chatId}/messages` (contract §4)."""

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
        # The declared fields document the shape (OpenAPI); building them for every response
        # cost more CPU than the chat's query (issue 9), so the body is written directly.
        return {
            "id": str(instance.id),
            "chatbotId": str(instance.chatbot_id),
            "userId": str(instance.user_id),
            "organizationId": str(instance.organization_id),
            "createdAt": iso_timestamp(instance.created_at),
        }


@extend_schema_serializer(component_name="Location")
class LocationOutput(serializers.Serializer):
    key = serializers.CharField()
    value = serializers.CharField()


@extend_schema_serializer(component_name="Availability")
class AvailabilityOutput(serializers.Serializer):
    status = serializers.CharField()
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


@extend_schema_serializer(component_name="Message")
class MessageOutput(serializers.ModelSerializer):
    id = serializers.UUIDField(source="uuid")
    chatId = serializers.UUIDField(source="chat_id")
    createdAt = serializers.DateTimeField(source="created_at")
    suggestions = serializers.ListField(child=serializers.CharField(), required=False)
    products = ProductOutput(many=True, required=False)

    class Meta:
        model = Message
        fields = ["id", "chatId", "type", "content", "suggestions", "products", "createdAt"]

    def to_representation(self, instance: Message) -> dict[str, Any]:
        # Snapshots are stored in their output shape; optional parts appear only when present.
        body: dict[str, Any] = {
            "id": str(instance.uuid),
            "chatId": str(instance.chat_id),
            "type": instance.type,
            "content": instance.content,
        }
        if instance.suggestions:
            body["suggestions"] = instance.suggestions
        if instance.products:
            body["products"] = instance.products
        # Not self.fields[...]: that builds every declared field (nested products too) per
        # request, a third of a history page's CPU time (issue 9).
        body["createdAt"] = iso_timestamp(instance.created_at)
        return body
