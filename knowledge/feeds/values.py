"""Parsing of single feed values: prices, availability, quantities, GTIN check digits."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from knowledge.models import Availability

MAX_PRICE = Decimal("9999999999.99")  # what Product.price (12 digits, 2 decimals) can hold
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_AMOUNT_FORMATS = (
    (re.compile(r"^\d+(\.\d+)?$"), ",", "."),  # 1299.00 (the format Merchant Center asks for)
    (re.compile(r"^\d{1,3}(,\d{3})+(\.\d+)?$"), ",", "."),  # 1,299.00
    (re.compile(r"^\d{1,3}(\.\d{3})+(,\d+)?$"), ".", ","),  # 1.299,00
    (re.compile(r"^\d+,\d{1,2}$"), ".", ","),  # 12,99 ("1,299" is a thousands group)
)
_AVAILABILITY = {
    "in_stock": Availability.IN_STOCK,
    "available_for_order": Availability.IN_STOCK,  # retired value, now "in stock"
    "out_of_stock": Availability.OUT_OF_STOCK,
    "preorder": Availability.PREORDER,
    "pre_order": Availability.PREORDER,
    "backorder": Availability.BACKORDER,
    "back_order": Availability.BACKORDER,
}


class ValueProblem(ValueError):
    """A value that cannot be read; the message says why, for the import report."""


def parse_price(text: str) -> tuple[Decimal, str]:
    """ "1,299.00 USD" -> (Decimal("1299.00"), "USD"); the currency may come first too."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueProblem(f'"{text}" is not an amount and a currency, like "49.99 EUR"')
    amount_text, currency = parts
    if _CURRENCY.match(amount_text.upper()) and not _CURRENCY.match(currency.upper()):
        amount_text, currency = currency, amount_text
    currency = currency.upper()
    if not _CURRENCY.match(currency):
        raise ValueProblem(f'"{text}" has no three-letter currency code')
    amount = parse_amount(amount_text)
    if amount is None:
        raise ValueProblem(f'"{text}" has no readable amount')
    if amount > MAX_PRICE:
        raise ValueProblem(f'"{text}" is too large')
    return amount, currency


def parse_amount(text: str) -> Decimal | None:
    """An amount with "." or "," as decimal mark and, optionally, the other grouping thousands."""
    for pattern, thousands, decimal_mark in _AMOUNT_FORMATS:
        if pattern.match(text):
            normalized = text.replace(thousands, "").replace(decimal_mark, ".")
            return Decimal(normalized).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return None


def parse_availability(text: str) -> str:
    key = re.sub(r"[\s-]+", "_", text.strip().lower())
    try:
        return _AVAILABILITY[key]
    except KeyError:
        raise ValueProblem(
            f'"{text}" is not one of in_stock, out_of_stock, preorder, backorder'
        ) from None


def parse_quantity(text: str) -> int:
    cleaned = text.strip()
    try:
        quantity = int(Decimal(cleaned)) if cleaned else None
    except InvalidOperation:
        quantity = None
    if quantity is None or Decimal(cleaned) != quantity or quantity < 0:
        raise ValueProblem(f'"{text}" is not a whole number >= 0')
    if quantity > 2_000_000_000:
        raise ValueProblem(f'"{text}" is too large')
    return quantity


def gtin_problem(gtin: str) -> str | None:
    """Why `gtin` is not a valid GTIN-8/12/13/14, or None when it is."""
    if not gtin.isdigit() or len(gtin) not in (8, 12, 13, 14):
        return f'"{gtin}" is not 8, 12, 13 or 14 digits'
    digits = [int(char) for char in gtin]
    # GS1: from the right, excluding the check digit, weights alternate 3, 1, 3, ...
    total = sum(
        digit * (3 if index % 2 == 0 else 1) for index, digit in enumerate(reversed(digits[:-1]))
    )
    expected = (10 - total % 10) % 10
    if digits[-1] != expected:
        return f'"{gtin}" has check digit {digits[-1]}, expected {expected}'
    return None
