"""Google's product taxonomy (`data/google_product_taxonomy.tsv`): a `google_product_category`
given as a numeric id, which Merchant Center allows, read as the category path it stands for."""

from __future__ import annotations

from functools import cache
from pathlib import Path

TAXONOMY_FILE = Path(__file__).with_name("data") / "google_product_taxonomy.tsv"
TAXONOMY_VERSION = "2021-09-21"
UNKNOWN_ID = (
    f'"{{value}}" is not a category id of Google\'s product taxonomy ({TAXONOMY_VERSION}), ignored'
)


@cache
def _paths() -> dict[str, str]:
    # Read on the first numeric category of a process (about 5,600 rows), then kept.
    with TAXONOMY_FILE.open(encoding="utf-8") as file:
        rows = (line.rstrip("\n").split("\t", 1) for line in file)
        return {row[0]: row[1] for row in rows if len(row) == 2}


def is_category_id(value: str) -> bool:
    """Whether a `google_product_category` value is an id ("2271") rather than a path."""
    return value.strip().isdigit()


def category_path(category_id: str) -> str | None:
    """The path of a taxonomy id ("2271" -> "Apparel & Accessories > Clothing > Dresses"),
    or None when the taxonomy has no such id."""
    return _paths().get(category_id.strip().lstrip("0") or "0")
