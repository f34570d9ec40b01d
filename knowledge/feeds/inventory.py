"""Local inventory feed records (`store_code`, `id`, `availability`, `quantity`, extra columns)."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.feeds.records import RawRecord
from knowledge.feeds.values import ValueProblem, parse_availability, parse_quantity
from knowledge.models import Availability

STANDARD_ATTRIBUTES = ("store_code", "id", "availability", "quantity")
# Local-inventory-only spellings of Merchant Center, mapped to the catalog's four statuses.
LOCAL_AVAILABILITY = {
    "limited_availability": Availability.IN_STOCK,
    "on_display_to_order": Availability.BACKORDER,
}


@dataclass
class InventoryRow:
    line: int
    store_code: str
    item_id: str
    availability: str = ""
    quantity: int | None = None
    location: list[dict[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def inventory_row(record: RawRecord) -> InventoryRow:
    values = record.values
    row = InventoryRow(
        line=record.line,
        store_code=values.get("store_code", ""),
        item_id=values.get("id", "") or values.get("itemid", ""),
    )
    if record.problem:
        row.problems.append(record.problem)
    for attribute, value in (("store_code", row.store_code), ("id", row.item_id)):
        if not value:
            row.problems.append(f"{attribute}: missing")
    availability = values.get("availability", "")
    key = "_".join(availability.lower().split())
    try:
        if not availability:
            raise ValueProblem("missing")
        row.availability = LOCAL_AVAILABILITY.get(key) or parse_availability(availability)
    except ValueProblem as exc:
        row.problems.append(f"availability: {exc}")
    if quantity := values.get("quantity", ""):
        try:
            row.quantity = parse_quantity(quantity)
        except ValueProblem as exc:
            row.problems.append(f"quantity: {exc}")
    row.location = [
        {"key": name, "value": values[name]}
        for name in record.columns
        if name not in STANDARD_ATTRIBUTES and name != "itemid" and values.get(name)
    ]
    return row
