"""The page envelope of list responses, with the formulas of contract §4."""

from __future__ import annotations

import math
from typing import Any

from rest_framework import serializers
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from assistant_api.errors import ValidationFailedError

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
MAX_PAGE = 2**31 - 1


class PageParamsSerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)
    size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE)


def page_params(query: dict[str, Any]) -> tuple[int, int]:
    """`page` and `size` of a list request, or 422 with DRF's messages (contract §4)."""
    plain = _plain_page_params(query)
    if plain is not None:
        return plain
    params = PageParamsSerializer(data={k: query[k] for k in ("page", "size") if k in query})
    if not params.is_valid():
        raise ValidationFailedError.from_detail(params.errors)
    return params.validated_data["page"], params.validated_data["size"]


def _plain_page_params(query: dict[str, Any]) -> tuple[int, int] | None:
    """The common case (absent, or plain digits in range) without a serializer: it costs
    more than the page's query (issue 9). Anything else goes through PageParamsSerializer."""
    page, size = query.get("page", "1"), query.get("size", str(DEFAULT_PAGE_SIZE))
    # Ten digits at most: int() of thousands of digits is slow (and refused past 4,300).
    for text in (page, size):
        if not (text.isascii() and text.isdigit() and len(text) <= 10):
            return None
    page_number, page_size = int(page), int(size)
    if not (1 <= page_number <= MAX_PAGE and 1 <= page_size <= MAX_PAGE_SIZE):
        return None
    return page_number, page_size


class PageEnvelopePagination(BasePagination):
    """`?page=&size=` paging with the contract's envelope; one COUNT and one slice query."""

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
                "schema": {"type": "integer", "minimum": 1, "default": 1},
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
