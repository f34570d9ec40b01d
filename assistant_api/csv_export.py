"""CSV files the service hands out, with every cell safe to open in a spreadsheet.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula: a chatbot named `=HYPERLINK(...)` would become a
link in the operator's sheet. Such a text cell gets a leading `'`, as OWASP's "CSV Injection"
page recommends; numbers are written as numbers.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_cell(value: object) -> object:
    """`value`, with a `'` before text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A CSV file of `header` then `rows`, each cell through `csv_safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([csv_safe_cell(cell) for cell in header])
    writer.writerows([csv_safe_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
