"""Stores file records: `store_code` and a display name (`name`, `business_name` or `store_name`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.feeds.records import RawRecord

NAME_ATTRIBUTES = ("name", "business_name", "store_name")
MAX_CODE_LENGTH = 100
MAX_NAME_LENGTH = 200


@dataclass
class StoreRow:
    line: int
    code: str
    name: str
    problems: list[str] = field(default_factory=list)


def store_row(record: RawRecord) -> StoreRow:
    values = record.values
    name = next((values[key] for key in NAME_ATTRIBUTES if values.get(key)), "")
    row = StoreRow(line=record.line, code=values.get("store_code", ""), name=name)
    if record.problem:
        row.problems.append(record.problem)
    if not row.code:
        row.problems.append("store_code: missing")
    elif len(row.code) > MAX_CODE_LENGTH:
        row.problems.append(f"store_code: longer than {MAX_CODE_LENGTH} characters")
    if len(row.name) > MAX_NAME_LENGTH:
        row.problems.append(f"name: longer than {MAX_NAME_LENGTH} characters")
    return row
