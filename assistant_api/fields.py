"""Serializer fields shared by the API's request bodies."""

from __future__ import annotations

import re
import uuid

from rest_framework import serializers

_UUID_TEXT = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as its 36-character text; numbers and other spellings are refused."""

    default_error_messages = {
        "invalid": "Must be a UUID string (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)."
    }

    def to_internal_value(self, data) -> uuid.UUID:
        if not isinstance(data, str) or not _UUID_TEXT.match(data):
            self.fail("invalid")
        return uuid.UUID(data)
