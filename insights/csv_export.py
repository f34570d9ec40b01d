"""The insights' tables as CSV, with every cell safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

# A cell starting with one of these is read as a formula by spreadsheet programs (CSV
# injection): shoppers' words end up in these files.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: object) -> str:
    """The cell's text, with a leading apostrophe when it would start a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(headers: list[str], rows: Iterable[Iterable[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([csv_safe(h) for h in headers])
    for row in rows:
        writer.writerow([csv_safe(cell) for cell in row])
    return out.getvalue()
