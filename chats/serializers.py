"""Request validation and response shapes of the chat endpoints (contract §3, §4)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from assistant_api.fields import StrictUUIDField
from chats.models import Chat, Message


class ChatCreateInput(serializers.Serializer):
    chatbotId = StrictUUIDField()
    userId = StrictUUIDField(required=False, allow_null=True)


class ChatOutput(serializers.ModelSerializer):
    chatbotId = serializers.UUIDField(source="chatbot_id")
    userId = serializers.UUIDField(source="user_id")
    organizationId = serializers.UUIDField(source="organization_id")
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Chat
        fields = ["id", "chatbotId", "userId", "organizationId", "createdAt"]


class LocationOutput(serializers.Serializer):
    key = serializers.CharField()
    value = serializers.CharField()


class AvailabilityOutput(serializers.Serializer):
    status = serializers.CharField()
    quantity = serializers.IntegerField()


class FlagOutput(serializers.Serializer):
    type = serializers.CharField()
    title = serializers.CharField()
    text = serializers.CharField()


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
        body["createdAt"] = self.fields["createdAt"].to_representation(instance.created_at)
        return body
