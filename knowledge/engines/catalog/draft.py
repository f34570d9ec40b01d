"""A reply being written: its text, the products it recommends and its suggestions."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.models import Product


@dataclass
class Item:
    product: Product
    query: str = ""
    reasons: list[str] = field(default_factory=list)


@dataclass
class Draft:
    text: str
    items: list[Item] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
