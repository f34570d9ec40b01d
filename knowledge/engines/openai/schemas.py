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
        "Search the shop's catalog. Returns matching products (gtin, price, availability) and "
        "the filters applied or relaxed when nothing matched exactly.",
        {
            "query": {"type": "string", "description": "Free text, e.g. 'trail running shoes'."},
            "category": {"type": "string"},
            "brands": {**_STRINGS, "description": "Only these brands."},
            "excludeBrands": {**_STRINGS, "description": "Not these brands."},
            "colors": _STRINGS,
            "sizes": _STRINGS,
            "materials": _STRINGS,
            "genders": _STRINGS,
            "ageGroups": {**_STRINGS, "description": "newborn, infant, toddler, kids or adult."},
            "minPrice": {"type": "number"},
            "maxPrice": {"type": "number"},
            "around": {"type": "number", "description": "A price to stay close to."},
            "inStock": {"type": "boolean"},
            "onSale": {"type": "boolean"},
            "sort": {
                "type": "string",
                "enum": ["price_asc", "price_desc", "best", "calories_asc", "protein_desc"],
                "description": "calories_asc, protein_desc: by the amounts descriptions state.",
            },
        },
        [],
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
        "Stock of a product online and in each store (the shopper's store when one is given).",
        {"gtin": {"type": "string"}},
        ["gtin"],
    ),
]

TOOL_NAMES = frozenset(schema["function"]["name"] for schema in TOOL_SCHEMAS)
_PARAMETERS = {
    schema["function"]["name"]: schema["function"]["parameters"] for schema in TOOL_SCHEMAS
}


class ArgumentsInvalid(ValueError):
    """The arguments do not match the tool's schema; the message names the argument."""


def arguments_check(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments checked against the tool's schema, unknown ones left out.

    Small models often add an argument of their own; ignoring it costs nothing, while a
    wrong type or a missing required argument means the call cannot be trusted.
    """
    parameters = _PARAMETERS[name]
    properties: dict[str, Any] = parameters["properties"]
    for required in parameters["required"]:
        if args.get(required) in (None, "", []):
            raise ArgumentsInvalid(f"{required} is required")
    checked: dict[str, Any] = {}
    for key, value in args.items():
        if key not in properties or value is None:
            continue
        _check(key, value, properties[key])
        checked[key] = value
    return checked


def _check(key: str, value: Any, schema: dict[str, Any]) -> None:
    kind = schema["type"]
    if kind == "string":
        valid = isinstance(value, str) and (not schema.get("enum") or value in schema["enum"])
    elif kind == "number":
        valid = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    elif kind == "boolean":
        valid = isinstance(value, bool)
    else:  # an array of strings
        valid = (
            isinstance(value, list)
            and all(isinstance(item, str) for item in value)
            and schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", 20)
        )
    if not valid:
        raise ArgumentsInvalid(f"{key} must be {_expected(schema)}")


def _expected(schema: dict[str, Any]) -> str:
    if schema.get("enum"):
        return "one of " + ", ".join(schema["enum"])
    if schema["type"] == "array":
        return f"a list of {schema.get('minItems', 0)} to {schema.get('maxItems', 20)} strings"
    return {"string": "a string", "number": "a positive number", "boolean": "true or false"}[
        schema["type"]
    ]
