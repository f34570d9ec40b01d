"""Price limits in a shopper's words: "under 50", "below $1,500", "between 20 and 40"...

`price_limits(text)` finds them in normalized text (see `vocabulary.normalize`) and returns
the limits and the text with those phrases blanked out, so they are not searched as words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_CURRENCY_WORD = r"(?:usd|eur|euros?|dollars?|bucks|gbp|pounds?|quid|chf|francs?)"
AMOUNT = (
    r"(?:[$€£]\s?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?(?:\s?k\b)?"
    rf"(?:\s?{_CURRENCY_WORD}\b|\s?[$€£])?"
)
_A = f"({AMOUNT})"
_HAS_CURRENCY = re.compile(rf"[$€£]|\b{_CURRENCY_WORD}\b")

_BETWEEN = [
    re.compile(rf"\bbetween\s+{_A}\s+(?:and|to|-)\s+{_A}"),
    re.compile(rf"\bfrom\s+{_A}\s+(?:to|-|up to|till|until)\s+{_A}"),
    re.compile(rf"(?<![\w.]){_A}\s?(?:-|\u2013|to)\s?{_A}"),
]
_AROUND = [
    re.compile(
        rf"\b(?:around|about|approximately|approx\.?|roughly|close to|near|circa|more or less)\s+"
        rf"(?:the\s+)?{_A}"
    ),
    re.compile(rf"~\s?{_A}"),
    re.compile(rf"\bin the\s+{_A}\s+range\b"),
    re.compile(rf"\b{_A}\s?(?:ish|or so)\b"),
]
_MAX = [
    re.compile(
        r"\b(?:budget|spend|spending|limit)\s*(?:is|of|would be|will be|=|:|is about|"
        rf"is around|up to|at most|max)?\s*{_A}"
    ),
    re.compile(
        r"\b(?:under|below|less than|lower than|cheaper than|no more than|not more than|"
        r"not over|up to|upto|max(?:imum)?|at most|within|no higher than|for less than|"
        r"not above|beneath|i have|i've got|i can spend|i can afford|afford|no pricier than|"
        rf"under a|below a|less then)\s+{_A}"
    ),
    re.compile(rf"(?:<=?|≤)\s?{_A}"),
    re.compile(rf"{_A}\s?(?:max|maximum|or less|or under|or below|tops|at most|or cheaper)\b"),
]
_MIN = [
    re.compile(
        r"\b(?:over|above|more than|at least|min(?:imum)?|starting at|starting from|from|"
        rf"higher than|greater than|upwards of|no less than|not less than)\s+{_A}"
    ),
    re.compile(rf"(?:>=?|≥)\s?{_A}"),
    re.compile(rf"{_A}\s?(?:\+|or more|and up|and above|or above|minimum|plus)(?!\w)"),
]
# A bare amount with a currency ("headphones $100") reads as a budget.
_BARE = re.compile(rf"(?<![\w.]){_A}")


@dataclass
class PriceLimits:
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    around: Decimal | None = None

    def any(self) -> bool:
        return self.min_price is not None or self.max_price is not None or self.around is not None


def amount_value(text: str) -> Decimal | None:
    """ "$1,500" -> 1500; "1.5k" -> 1500; "30 euros" -> 30."""
    match = re.search(r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?(\s?k\b)?", text)
    if match is None:
        return None
    try:
        value = Decimal(match.group(1).replace(",", "") + (match.group(2) or ""))
    except InvalidOperation:
        return None
    if match.group(3):
        value *= 1000
    return value


def _blank(text: str, match: re.Match) -> str:
    return text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]


def price_limits(text: str) -> tuple[PriceLimits, str]:
    """The price limits the text states, and the text without them."""
    limits = PriceLimits()
    for pattern in _BETWEEN:
        for match in pattern.finditer(text):
            low, high = amount_value(match.group(1)), amount_value(match.group(2))
            bare = pattern is _BETWEEN[2]
            if low is None or high is None or (bare and not _HAS_CURRENCY.search(match.group(0))):
                continue
            limits.min_price, limits.max_price = min(low, high), max(low, high)
            text = _blank(text, match)
    for pattern in _AROUND:
        for match in pattern.finditer(text):
            value = amount_value(match.group(1))
            if value is not None and value > 0:
                limits.around = value
                text = _blank(text, match)
    for pattern in _MAX:
        for match in pattern.finditer(text):
            value = amount_value(match.group(1))
            if value is not None:
                limits.max_price = value
                text = _blank(text, match)
    for pattern in _MIN:
        for match in pattern.finditer(text):
            value = amount_value(match.group(1))
            if value is not None:
                limits.min_price = value
                text = _blank(text, match)
    for match in _BARE.finditer(text):
        if _HAS_CURRENCY.search(match.group(0)) and limits.max_price is None:
            value = amount_value(match.group(1))
            if value is not None and value > 0:
                limits.max_price = value
                text = _blank(text, match)
    if limits.around is not None and limits.min_price is None and limits.max_price is None:
        # "around 50": within a fifth either way, closest first (see search step).
        limits.min_price = (limits.around * Decimal("0.8")).quantize(Decimal("0.01"))
        limits.max_price = (limits.around * Decimal("1.2")).quantize(Decimal("0.01"))
    return limits, text
