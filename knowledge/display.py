"""Prices and stock as the console writes them for people ("€499.00", "In stock (10)")."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from babel.numbers import UnknownCurrencyError, format_currency
from django.conf import settings
from django.utils.translation import to_locale

from knowledge.models import Availability


def price_text(amount: object, currency: str) -> str:
    """The amount in the console's locale with the currency's symbol and decimals; a value
    that is no number (a malformed snapshot) is shown as it is."""
    try:
        value = Decimal(str(amount))
    except (InvalidOperation, ValueError):
        return f"{amount} {currency}".strip()
    if not value.is_finite():
        return f"{amount} {currency}".strip()
    if not currency:
        return f"{value:.2f}"
    try:
        return format_currency(value, currency, locale=to_locale(settings.LANGUAGE_CODE))
    except (UnknownCurrencyError, ValueError):
        return f"{value:.2f} {currency}".strip()
    except InvalidOperation:  # too many digits to round to the currency's decimals
        return f"{amount} {currency}".strip()


def stock_text(status: object, quantity: object = None) -> str:
    """ "In stock (10)": the availability's label, and the quantity when there is one."""
    label = Availability(status).label if status in Availability.values else str(status or "")
    label = label.replace("_", " ").capitalize() if label else "Unknown"
    return f"{label} ({quantity})" if isinstance(quantity, int) else label
