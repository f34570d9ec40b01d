"""Request bodies validated by a serializer, in the documented 422 shape (docs/api.md#errors)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from assistant_api.errors import ValidationFailedError


def validated(serializer_class: Any, data: Any) -> dict[str, Any]:
    """The body's validated data, or 422 naming each bad field.

    A field given as JSON null counts as absent (docs/api.md#json-bodies): it is left out before
    validation, so a required one is reported as required and an optional one takes its
    default.
    """
    if isinstance(data, dict):
        data = {name: value for name, value in data.items() if value is not None}
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ValidationFailedError.from_detail(serializer.errors)
    return serializer.validated_data


def digits_value(text: str, *, cap: int) -> int | None:
    """The number a string of ASCII digits spells (leading zeros allowed), at most `cap`;
    None for anything else. int() would also read "1_0", "+5", " 5" and other scripts'
    digits, and thousands of digits are slow to convert: longer ones are capped unread."""
    if not (text.isascii() and text.isdigit()):
        return None
    if len(text.lstrip("0")) > len(str(cap)):
        return cap
    return min(int(text), cap)


# Dates outside are ignored: a day or a period reaching past them would overflow Python's dates.
EARLIEST_DATE, LATEST_DATE = dt.date(1970, 1, 1), dt.date(9000, 1, 1)


def date_or_none(text: object) -> dt.date | None:
    """An ISO date typed in a console form or query, or None when it is empty, malformed or
    outside EARLIEST_DATE..LATEST_DATE."""
    try:
        day = dt.date.fromisoformat(str(text)) if text else None
    except ValueError:
        return None
    return day if day is not None and EARLIEST_DATE <= day <= LATEST_DATE else None
