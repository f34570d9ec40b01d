"""The page envelope of list responses, with the formulas of docs/api.md#paging."""

from __future__ import annotations

import math
from typing import Any

from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from assistant_api.errors import ValidationFailedError
from assistant_api.validation import digits_value

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
MAX_PAGE = 2**31 - 1


def page_params(query: dict[str, Any]) -> tuple[int, int]:
    """`page` and `size` of a list request, or 422 naming each bad one (docs/api.md#paging).

    Only plain ASCII digits are integers here (digits_value).
    """
    errors: dict[str, list[str]] = {}
    page = _integer(query, "page", default=1, maximum=MAX_PAGE, errors=errors)
    size = _integer(query, "size", default=DEFAULT_PAGE_SIZE, maximum=MAX_PAGE_SIZE, errors=errors)
    if errors:
        raise ValidationFailedError.from_detail(errors)
    return page, size


def _integer(
    query: dict[str, Any], name: str, *, default: int, maximum: int, errors: dict[str, list[str]]
) -> int:
    text = query.get(name)
    if text is None:
        return default
    value = digits_value(text, cap=maximum + 1)
    if value is None:
        errors[name] = ["A valid integer is required."]
    elif value > maximum:
        errors[name] = [f"Ensure this value is less than or equal to {maximum}."]
    elif value < 1:
        errors[name] = ["Ensure this value is greater than or equal to 1."]
    else:
        return value
    return default


class PageEnvelopePagination(BasePagination):
    """`?page=&size=` paging with the documented envelope (docs/api.md#page-envelope); one COUNT and
    one slice query."""

    def paginate_queryset(self, queryset, request: Request, view=None) -> list[Any]:
        self.page, self.size = page_params(request.query_params)
        self.total_items = queryset.count()
        offset = (self.page - 1) * self.size
        if offset >= self.total_items:
            return []
        return list(queryset[offset : offset + self.size])

    def get_paginated_response(self, data: list[Any]) -> Response:
        return Response(
            envelope(data, page=self.page, size=self.size, total_items=self.total_items)
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": [
                "items",
                "totalItems",
                "size",
                "totalPages",
                "currentPage",
                "hasPrevPage",
                "hasNextPage",
            ],
            "properties": {
                "items": schema,
                "totalItems": {"type": "integer", "minimum": 0},
                "size": {"type": "integer", "minimum": 1},
                "totalPages": {"type": "integer", "minimum": 1},
                "currentPage": {"type": "integer", "minimum": 1},
                "hasPrevPage": {"type": "boolean"},
                "hasNextPage": {"type": "boolean"},
                "prevPage": {"type": "integer", "nullable": True},
                "nextPage": {"type": "integer", "nullable": True},
            },
        }

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        return [
            {
                "name": "page",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
            },
            {
                "name": "size",
                "in": "query",
                "required": False,
                "schema": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_PAGE_SIZE,
                    "default": DEFAULT_PAGE_SIZE,
                },
            },
        ]


def envelope(items: list[Any], *, page: int, size: int, total_items: int) -> dict[str, Any]:
    total_pages = max(1, math.ceil(total_items / size))
    return {
        "items": items,
        "totalItems": total_items,
        "size": size,
        "totalPages": total_pages,
        "currentPage": page,
        "hasPrevPage": page > 1,
        "hasNextPage": page < total_pages,
        "prevPage": page - 1 if page > 1 else None,
        "nextPage": page + 1 if page < total_pages else None,
    }
