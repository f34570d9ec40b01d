"""Serializer fields shared by the API's request bodies."""

from __future__ import annotations

import uuid

from rest_framework import serializers

from assistant_api.ids import uuid_from_text


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as its 36-character text; numbers and other spellings are refused."""

    default_error_messages = {
        "invalid": "Must be a UUID string (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)."
    }

    def to_internal_value(self, data) -> uuid.UUID:
        parsed = uuid_from_text(data)
        if parsed is None:
            self.fail("invalid")
        return parsed


class StrictIntegerField(serializers.IntegerField):
    """An integer given as a JSON number; DRF's IntegerField also reads "600", 1.0 and true."""

    def to_internal_value(self, data) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)
