"""The catalog tools as OpenAI function tools (JSON Schema of each tool's arguments)."""

from __future__ import annotations

from typing import Any

_STRINGS = {"type": "array", "items": {"type": "string"}}


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TOOL_SCHEMAS: list[dict[str, Any]] = [
    _function(
        "search_products",
        "Search the shop's catalog. Returns matching products (with gtin, price, availability) "
        "and the filters applied or relaxed.",
        {
            "query": {"type": "string", "description": "Free-text search, e.g. 'running shoes'."},
            "min_price": {"type": "number"},
            "max_price": {"type": "number"},
            "brands": {**_STRINGS, "description": "Only these brands."},
            "exclude_brands": {**_STRINGS, "description": "Not these brands."},
            "category": {"type": "string"},
            "colors": _STRINGS,
            "sizes": _STRINGS,
            "materials": _STRINGS,
            "in_stock": {"type": "boolean"},
            "on_sale": {"type": "boolean"},
            "sort": {
                "type": "string",
                "enum": ["relevance", "price_asc", "price_desc"],
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        ["query"],
    ),
    _function(
        "get_product",
        "Full details of one catalog product, with its variants (sizes, colours).",
        {"gtin": {"type": "string", "description": "The product's gtin from a tool result."}},
        ["gtin"],
    ),
    _function(
        "get_page_context",
        "What is on a page of the shop: the catalog product when it is a product page.",
        {"url": {"type": "string", "description": "Defaults to the shopper's current page."}},
        [],
    ),
    _function(
        "compare_products",
        "Compare two to four catalog products side by side.",
        {"gtins": {**_STRINGS, "minItems": 2, "maxItems": 4}},
        ["gtins"],
    ),
    _function(
        "check_availability",
        "Stock of a product and its variants, in the shopper's store when one is given.",
        {
            "gtin": {"type": "string"},
            "size": {"type": "string"},
            "color": {"type": "string"},
        },
        ["gtin"],
    ),
]

TOOL_NAMES = frozenset(schema["function"]["name"] for schema in TOOL_SCHEMAS)
