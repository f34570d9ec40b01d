"""Amounts written as the reply's language writes them (Babel's locale data).

English keeps the engine's own short form ("$1,099.99", "120.00 CHF"); French, German,
Spanish and Italian replies get their locale's ("1 099,99 $US", "1.099,99 $").
"""

from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_currency
from django.utils import translation

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
LOCALES = {"fr": "fr_FR", "de": "de_DE", "es": "es_ES", "it": "it_IT"}


def reply_language() -> str:
    """The two-letter code of the active translation (CatalogEngine activates the shopper's)."""
    return (translation.get_language() or "en")[:2]


def money(amount: Decimal | float, currency: str) -> str:
    """The amount with its currency, in the active language's form."""
    value = Decimal(str(amount))
    locale = LOCALES.get(reply_language())
    if locale is not None and currency:
        return format_currency(value, currency.upper(), locale=locale)
    text = f"{value:,.2f}"
    symbol = CURRENCY_SYMBOLS.get(currency.upper())
    return f"{symbol}{text}" if symbol else f"{text} {currency.upper()}"
