"""Price limits in a shopper's words: "under 50", "below $1,500", "between 20 and 40"...

`price_limits(text)` finds them in normalized text (see `vocabulary.normalize`) and returns
the limits and the text with those phrases blanked out, so they are not searched as words.

A tokenizer, not one regular expression per phrase: the amounts are found in one pass, then
each phrase is recognised by the words right before an amount (found in one pass per kind of
phrase) or right after it (a match where the amount ends). So the work grows with the length
of the message, never with its square, as a pattern like "an amount followed by max" does
when it is searched from every position of a run of digits.

Only ASCII digits make an amount (`\\d` would take Arabic-Indic and other digits too), and an
amount of more than `MAX_AMOUNT_DIGITS` digits before its decimals (a trillion or more,
"1000000000k" too) is no price: a phrase stating one ("under 999...9") is blanked but sets no limit,
so no limit ever overflows a Decimal's precision or a float (infinity, which JSON cannot hold).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

# The most digits an amount may have before its decimals: no price is a trillion.
MAX_AMOUNT_DIGITS = 12
_TOO_MUCH = Decimal(10) ** MAX_AMOUNT_DIGITS

_CURRENCY_WORD = r"(?:usd|eur|euros?|dollars?|bucks|gbp|pounds?|quid|chf|francs?)"
# Starts only where no word or decimal part precedes (one try per token, not per digit); the
# number is greedy and everything after it optional, so a match never backtracks into it. A
# currency sign before the next number is that number's ("7 $30" is 7, then $30).
_AMOUNT = re.compile(
    r"(?<![\w.])(?P<before>[$€£]\s?)?"
    r"(?P<number>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.(?P<cents>[0-9]{1,2}))?"
    r"(?P<k>\s?k\b)?"
    rf"(?P<after>\s?{_CURRENCY_WORD}\b|\s?[$€£](?!\s?[0-9]))?"
)

# Words before an amount: each ends where an amount starts (a currency sign or a digit).
_BETWEEN_BEFORE = re.compile(r"\bbetween\s++(?=[$€£0-9])")
_FROM_BEFORE = re.compile(r"\bfrom\s++(?=[$€£0-9])")
_AROUND_BEFORE = re.compile(
    r"\b(?:around|about|approximately|approx\.?|roughly|close to|near|circa|more or less)\s++"
    r"(?:the\s++)?(?=[$€£0-9])"
)
_TILDE_BEFORE = re.compile(r"~\s?(?=[$€£0-9])")
_IN_THE_BEFORE = re.compile(r"\bin the\s++(?=[$€£0-9])")
_BUDGET_BEFORE = re.compile(
    r"\b(?:budget|spend|spending|limit)\s*+(?:is|of|would be|will be|=|:|is about|"
    r"is around|up to|at most|max)?\s*+(?=[$€£0-9])"
)
_UNDER_BEFORE = re.compile(
    r"\b(?:under|below|less than|lower than|cheaper than|no more than|not more than|"
    r"not over|up to|upto|max(?:imum)?|at most|within|no higher than|for less than|"
    r"not above|beneath|i have|i've got|i can spend|i can afford|afford|no pricier than|"
    r"under a|below a|less then)\s++(?=[$€£0-9])"
)
_AT_MOST_BEFORE = re.compile(r"(?:<=?|≤)\s?(?=[$€£0-9])")
_OVER_BEFORE = re.compile(
    r"\b(?:over|above|more than|at least|min(?:imum)?|starting at|starting from|from|"
    r"higher than|greater than|upwards of|no less than|not less than)\s++(?=[$€£0-9])"
)
_AT_LEAST_BEFORE = re.compile(r"(?:>=?|≥)\s?(?=[$€£0-9])")
# Words right after an amount.
_RANGE_AFTER = re.compile(r"\s++range\b")
_AROUND_AFTER = re.compile(r"\s?(?:ish|or so)\b")
_MAX_AFTER = re.compile(r"\s?(?:max|maximum|or less|or under|or below|tops|at most|or cheaper)\b")
_MIN_AFTER = re.compile(r"\s?(?:\+|or more|and up|and above|or above|minimum|plus)(?!\w)")
# Between two amounts of a range.
_BETWEEN_AND = re.compile(r"\s++(?:and|to|-)\s++")
_FROM_TO = re.compile(r"\s++(?:to|-|up to|till|until)\s++")
_DASH = re.compile(r"\s?(?:-|\u2013|to)\s?")


@dataclass
class PriceLimits:
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    around: Decimal | None = None

    def any(self) -> bool:
        return self.min_price is not None or self.max_price is not None or self.around is not None


@dataclass
class _Amount:
    start: int
    end: int
    value: Decimal | None  # None: more digits than any price has
    currency: bool  # a currency symbol or word is part of it ("$80", "30 euros")
    taken: bool = False


def amount_value(text: str) -> Decimal | None:
    """ "$1,500" -> 1500; "1.5k" -> 1500; "30 euros" -> 30; None when no price is stated."""
    match = _AMOUNT.search(text)
    return _value(match) if match is not None else None


def _value(match: re.Match[str]) -> Decimal | None:
    digits = match["number"].replace(",", "")
    if len(digits.lstrip("0")) > MAX_AMOUNT_DIGITS:
        return None  # before any arithmetic: a 4,000-digit number is not even converted
    value = Decimal(digits + (f".{match['cents']}" if match["cents"] else ""))
    if match["k"]:
        value *= 1000
    return value if value < _TOO_MUCH else None


class _Reading:
    """The message's amounts and the text they are in, blanked as phrases are taken.

    Each kind of phrase reads the text as the kinds before it left it; words before an amount
    are found in one pass over that text, words after it by a match at the amount's end.
    """

    def __init__(self, text: str) -> None:
        self.chars = list(text)
        self.text = text
        self.amounts = [
            _Amount(m.start(), m.end(), _value(m), bool(m["before"] or m["after"]))
            for m in _AMOUNT.finditer(text)
        ]

    def kind_starts(self) -> None:
        self.text = "".join(self.chars)

    def starts_before(self, pattern: re.Pattern[str] | None) -> dict[int, int]:
        """Where the words `pattern` finds end just before an amount, to where they start."""
        if pattern is None:
            return {amount.start: amount.start for amount in self.amounts}
        return {match.end(): match.start() for match in pattern.finditer(self.text)}

    def end_after(self, amount: _Amount, pattern: re.Pattern[str] | None) -> int | None:
        """Where the words `pattern` finds right after the amount end, or None."""
        if pattern is None:
            return amount.end
        match = pattern.match(self.text, amount.end)
        return None if match is None else match.end()

    def joined(self, first: _Amount, second: _Amount, pattern: re.Pattern[str]) -> bool:
        """Whether the text from one amount to the next is all `pattern` ("and", "to")."""
        return pattern.fullmatch(self.text, first.end, second.start) is not None

    def take(self, start: int, end: int, *amounts: _Amount) -> None:
        self.chars[start:end] = " " * (end - start)
        for amount in amounts:
            amount.taken = True

    def free(self) -> list[_Amount]:
        return [amount for amount in self.amounts if not amount.taken]


def price_limits(text: str) -> tuple[PriceLimits, str]:
    """The price limits the text states, and the text without them.

    Kinds of phrase are read in a fixed order (ranges, "around", maxima, minima, then a bare
    amount with a currency); each takes its amounts, so a later kind never reads them again,
    and within a kind the last phrase of the message wins.
    """
    limits = PriceLimits()
    reading = _Reading(text)
    for before, middle in _RANGES:
        _read_ranges(reading, limits, before, middle)
    for before, after, found in _SINGLES:
        _read_singles(reading, limits, before, after, found)
    _read_bare_amounts(reading, limits)
    if limits.around is not None and limits.min_price is None and limits.max_price is None:
        # "around 50": within a fifth either way, closest first (see search step).
        limits.min_price = (limits.around * Decimal("0.8")).quantize(Decimal("0.01"))
        limits.max_price = (limits.around * Decimal("1.2")).quantize(Decimal("0.01"))
    reading.kind_starts()
    return limits, reading.text


def _read_ranges(
    reading: _Reading,
    limits: PriceLimits,
    before: re.Pattern[str] | None,
    middle: re.Pattern[str],
) -> None:
    """Ranges of two amounts: "between 20 and 40", "from 20 to 40", "$20-30"."""
    reading.kind_starts()
    starts = reading.starts_before(before)
    for low, high in zip(reading.amounts, reading.amounts[1:], strict=False):
        start = starts.get(low.start)
        if low.taken or high.taken or start is None or not reading.joined(low, high, middle):
            continue
        if before is None and not (low.currency or high.currency):
            continue  # "2-3" is a quantity, "$20-30" a price range
        reading.take(start, high.end, low, high)
        if low.value is not None and high.value is not None:
            limits.min_price = min(low.value, high.value)
            limits.max_price = max(low.value, high.value)


def _read_singles(
    reading: _Reading,
    limits: PriceLimits,
    before: re.Pattern[str] | None,
    after: re.Pattern[str] | None,
    found: Callable[[PriceLimits, Decimal], bool],
) -> None:
    """One amount with the words of a kind of limit before or after it; `found` sets the
    limit and says whether the amount makes one."""
    reading.kind_starts()
    starts = reading.starts_before(before)
    for amount in reading.free():
        start = starts.get(amount.start)
        end = reading.end_after(amount, after)
        if start is None or end is None:
            continue
        # An amount out of range is no limit, but its phrase is not searched either.
        if amount.value is None or found(limits, amount.value):
            reading.take(start, end, amount)


def _read_bare_amounts(reading: _Reading, limits: PriceLimits) -> None:
    """A bare amount with a currency ("headphones $100") reads as a budget."""
    for amount in reading.free():
        if not amount.currency or limits.max_price is not None:
            continue
        if amount.value is None:
            reading.take(amount.start, amount.end, amount)  # out of range: no limit
        elif amount.value > 0:
            limits.max_price = amount.value
            reading.take(amount.start, amount.end, amount)


def _around(limits: PriceLimits, value: Decimal) -> bool:
    if value > 0:
        limits.around = value
    return value > 0


def _at_most(limits: PriceLimits, value: Decimal) -> bool:
    limits.max_price = value
    return True


def _at_least(limits: PriceLimits, value: Decimal) -> bool:
    limits.min_price = value
    return True


# The kinds of phrase, in the order they are read (price_limits).
_RANGES: tuple[tuple[re.Pattern[str] | None, re.Pattern[str]], ...] = (
    (_BETWEEN_BEFORE, _BETWEEN_AND),
    (_FROM_BEFORE, _FROM_TO),
    (None, _DASH),
)
_SINGLES: tuple[
    tuple[
        re.Pattern[str] | None,
        re.Pattern[str] | None,
        Callable[[PriceLimits, Decimal], bool],
    ],
    ...,
] = (
    (_AROUND_BEFORE, None, _around),
    (_TILDE_BEFORE, None, _around),
    (_IN_THE_BEFORE, _RANGE_AFTER, _around),
    (None, _AROUND_AFTER, _around),
    (_BUDGET_BEFORE, None, _at_most),
    (_UNDER_BEFORE, None, _at_most),
    (_AT_MOST_BEFORE, None, _at_most),
    (None, _MAX_AFTER, _at_most),
    (_OVER_BEFORE, None, _at_least),
    (_AT_LEAST_BEFORE, None, _at_least),
    (None, _MIN_AFTER, _at_least),
)
