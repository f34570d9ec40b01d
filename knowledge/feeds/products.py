"""A product feed record checked and turned into Product field values
(docs/api.md#catalog-and-assistant)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.feeds.records import RawRecord
from knowledge.feeds.taxonomy import UNKNOWN_ID, category_path, is_category_id
from knowledge.feeds.values import (
    ValueProblem,
    gtin_problem,
    parse_availability,
    parse_price,
    parse_quantity,
)
from knowledge.models import Availability, Product

# Feed attribute -> Product field, for the plain text attributes.
TEXT_ATTRIBUTES = {
    "title": "title",
    "description": "description",
    "brand": "brand",
    "gtin": "gtin",
    "product_type": "product_type",
    "google_product_category": "google_product_category",
    "item_group_id": "item_group_id",
    "color": "color",
    "size": "size",
    "material": "material",
    "gender": "gender",
    "age_group": "age_group",
}
# Every Product field an import writes (compared to find changed rows; set on update).
IMPORTED_FIELDS = (
    *TEXT_ATTRIBUTES.values(),
    "url",
    "image_url",
    "price",
    "sale_price",
    "currency",
    "availability",
    "quantity",
)
_MAX_LENGTHS = {
    name: Product._meta.get_field(name).max_length  # type: ignore[union-attr]
    for name in (*IMPORTED_FIELDS, "item_id")
}


@dataclass
class ProductRow:
    line: int
    item_id: str
    fields: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # the row is not imported
    warnings: list[str] = field(default_factory=list)  # imported anyway


REQUIRED_ATTRIBUTES = ("id", "title", "link", "price")
# Every attribute product_row reads.
PRODUCT_ATTRIBUTES = (
    *REQUIRED_ATTRIBUTES,
    *(name for name in TEXT_ATTRIBUTES if name != "title"),
    "image_link",
    "sale_price",
    "availability",
    "quantity",
)


def missing_columns(record: RawRecord) -> list[str]:
    """The required attributes a TSV header lacks (an XML item names its own; none then)."""
    if not record.columns:
        return []
    return [name for name in REQUIRED_ATTRIBUTES if name not in record.columns]


def product_row(record: RawRecord) -> ProductRow:
    """Checks one record; `problems` lists every reason it cannot be imported."""
    values = record.values
    row = ProductRow(line=record.line, item_id=values.get("id", "").strip())
    if record.problem:
        row.problems.append(record.problem)
    for attribute in REQUIRED_ATTRIBUTES:
        if not values.get(attribute):
            row.problems.append(f"{attribute}: missing")
    for attribute, field_name in TEXT_ATTRIBUTES.items():
        row.fields[field_name] = values.get(attribute, "")
    row.fields["google_product_category"] = _google_category(values, row)
    row.fields["url"] = _url(values.get("link", ""), "link", row)
    row.fields["image_url"] = _image_url(values.get("image_link", ""), row)
    _prices(values, row)
    row.fields["availability"] = _availability(values.get("availability", ""), row)
    row.fields["quantity"] = _value(parse_quantity, values.get("quantity", ""), "quantity", row)
    gtin = row.fields["gtin"]
    if gtin and (problem := gtin_problem(gtin)):
        row.warnings.append(f"gtin: {problem}")
    for name, value in (("item_id", row.item_id), *row.fields.items()):
        limit = _MAX_LENGTHS.get(name)
        if limit and isinstance(value, str) and len(value) > limit:
            row.problems.append(f"{_attribute_of(name)}: longer than {limit} characters")
    return row


def product_values(product: Product) -> dict[str, str]:
    """A stored product as the feed attributes product_row reads back to the same fields
    (empty ones left out): the base a partial update is merged into, and the API's output."""
    values = {attribute: getattr(product, name) for attribute, name in TEXT_ATTRIBUTES.items()}
    values.update(
        id=product.item_id,
        link=product.url,
        image_link=product.image_url,
        price=f"{product.price} {product.currency}",
        availability=product.availability,
    )
    if product.sale_price is not None:
        values["sale_price"] = f"{product.sale_price} {product.currency}"
    if product.quantity is not None:
        values["quantity"] = str(product.quantity)
    return {attribute: value for attribute, value in values.items() if value}


def _google_category(values: dict[str, str], row: ProductRow) -> str:
    # Stored as a path whichever form the feed gives: search, the assistant's vocabulary and
    # product kinds all read the category's words.
    text = values.get("google_product_category", "")
    if not is_category_id(text):
        return text
    path = category_path(text)
    if path is None:
        row.warnings.append(f"google_product_category: {UNKNOWN_ID.format(value=text.strip())}")
        return ""
    return path


def _url(text: str, attribute: str, row: ProductRow) -> str:
    if not text:
        return ""
    try:
        return canonicalize_url(text)
    except InvalidUrlError:
        row.problems.append(f'{attribute}: "{text[:200]}" is not an absolute http(s) URL')
        return ""


def _image_url(text: str, row: ProductRow) -> str:
    # Checked, but kept as given: canonical form is for product pages
    # (docs/api.md#url-canonical-form), and an image URL's query may be what the CDN needs.
    try:
        parts = urlsplit(text)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        valid = False
    if text and not valid:
        row.problems.append(f'image_link: "{text[:200]}" is not an absolute http(s) URL')
    return text


def _prices(values: dict[str, str], row: ProductRow) -> None:
    price = _value(parse_price, values.get("price", ""), "price", row)
    sale = _value(parse_price, values.get("sale_price", ""), "sale_price", row)
    row.fields["price"], row.fields["currency"] = price or (Decimal(0), "")
    row.fields["sale_price"] = sale[0] if sale else None
    if price and sale:
        if sale[1] != price[1]:
            row.problems.append(f"sale_price: currency {sale[1]} differs from price's {price[1]}")
        elif sale[0] >= price[0]:
            row.warnings.append("sale_price: not below price")


def _availability(text: str, row: ProductRow) -> str:
    if not text:
        row.warnings.append("availability: missing, taken as in_stock")
        return Availability.IN_STOCK
    return _value(parse_availability, text, "availability", row) or Availability.IN_STOCK


def _value(parse, text: str, attribute: str, row: ProductRow):
    if not text:
        return None
    try:
        return parse(text)
    except ValueProblem as exc:
        row.problems.append(f"{attribute}: {exc}")
        return None


def _attribute_of(field_name: str) -> str:
    reverse = {value: key for key, value in TEXT_ATTRIBUTES.items()}
    return reverse.get(
        field_name,
        {"item_id": "id", "url": "link", "image_url": "image_link"}.get(field_name, field_name),
    )
