"""Response shapes of the account endpoints."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers


@extend_schema_serializer(component_name="Usage")
class UsageOutput(serializers.Serializer):
    month = serializers.CharField(help_text="The current UTC calendar month, e.g. 2026-11.")
    messages = serializers.IntegerField(help_text="User messages stored this month.")
    quota = serializers.IntegerField(
        allow_null=True, help_text="Monthly message quota; null when unlimited."
    )
    remaining = serializers.IntegerField(
        allow_null=True, help_text="Messages left this month; null when unlimited."
    )
    resetsAt = serializers.DateTimeField(help_text="First second of the next month (UTC).")
