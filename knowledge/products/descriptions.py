"""What a product's description says about a detail: the sentence that mentions it.

The assistant quotes it to answer ("how long does the battery last?") and the PDP question
generator proposes a question about a detail only when this finds the answer, so every
generated question is answered from the product's own data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from knowledge.language.folding import fold
from knowledge.models import Product

# Words of a description sentence that says what a product is made of.
MATERIAL_WORDS = ("made", "material", "leather", "cotton", "steel", "wood")

# Words a shopper asks an amount by that descriptions write as a unit ("530 kcal").
_AMOUNT_UNITS = {"calor": ("kcal", "kj"), "energ": ("kcal", "kj")}
_WORD = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"\d+(?:[.,]\d+)?|[^\W\d_]+")

# A sentence ends before a capital or a quote, not after an abbreviation ("for max. 4").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\u00c0-\u00de\"“(])")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def description_quote(product: Product, words: Sequence[str]) -> str:
    """The first sentence of the description naming one of `words`, else ""."""
    sentences = _SENTENCE_END.split(product.description or "")
    # Short words must be whole words, plural or not ("nut" is "nuts", not "nutrients");
    # longer ones may be stems.
    patterns = [
        re.compile(
            rf"\b{re.escape(w.lower())}s?\b" if len(w) <= 4 else rf"\b{re.escape(_stem(w.lower()))}"
        )
        for w in words
        if len(w) > 1
    ]
    for sentence in sentences:
        lowered = sentence.lower()
        if any(pattern.search(lowered) for pattern in patterns):
            return sentence.strip()
    return ""


def amount_words(product: Product, asked: Sequence[str]) -> list[str]:
    """The description's own words for those of `asked` it gives an amount of: words of a
    sentence with a number ("protéines" of "pour 100 g : protéines 5,5 g" for "proteines",
    "kcal" for "calories"), once each, else []."""
    wanted: dict[str, tuple[str, ...]] = {}
    for word in asked:
        folded = _stem(fold(word))
        if len(folded) > 2:
            wanted[folded] = _AMOUNT_UNITS.get(folded[:5], ())
    found: dict[str, None] = {}
    for sentence in _SENTENCE_END.split(product.description or ""):
        if not any(char.isdigit() for char in sentence):
            continue
        for word in _WORD.findall(sentence):
            folded = _stem(fold(word))
            if any(_same(folded, key) or folded in units for key, units in wanted.items()):
                found.setdefault(word.lower(), None)
    return list(found)


# A number as descriptions write it: "61", "1,2", "4.5".
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?$")
# How far from its word a description writes an amount ("protéines 4 g", "4 g of protein").
_AMOUNT_REACH = 2


@dataclass(frozen=True)
class Stated:
    """An amount a description states, with its own words for it ("61 kcal", "protéines 4 g")."""

    amount: Decimal
    text: str


def stated_amount(product: Product, asked: str) -> Stated | None:
    """The amount of `asked` ("calories", "protein") the description states, the first one:
    the number before a unit written for it ("61 kcal"), else the number nearest after or
    before its word ("protéines 4 g", "4 g protein"); None when it states none."""
    stem = _stem(fold(asked))
    units = _AMOUNT_UNITS.get(stem[:5], ())
    for sentence in _SENTENCE_END.split(product.description or ""):
        raw = _TOKEN.findall(sentence)
        tokens = [_stem(fold(t)) for t in raw]
        for index, token in enumerate(tokens):
            if token in units and index and _NUMBER.match(tokens[index - 1]):
                return _stated(raw, index - 1, index - 1, index)
            if units or not _same(token, stem):
                continue
            after = range(index + 1, min(len(tokens), index + 1 + _AMOUNT_REACH))
            before = range(index - 1, max(-1, index - 1 - _AMOUNT_REACH), -1)
            for near in (*after, *before):
                if _NUMBER.match(tokens[near]):
                    return _stated(raw, near, min(index, near), max(index, near))
    return None


def _stated(raw: list[str], number: int, first: int, last: int) -> Stated:
    # The number's unit comes with it ("4 g").
    if last == number and number + 1 < len(raw) and raw[number + 1].isalpha():
        last = number + 1 if len(raw[number + 1]) <= 4 else last
    return Stated(Decimal(raw[number].replace(",", ".")), " ".join(raw[first : last + 1]))


def _same(word: str, asked: str) -> bool:
    # One word with or without an ending ("protein", "proteine"), not a shorter word's start.
    shorter, longer = sorted((word, asked), key=len)
    return (
        longer.startswith(shorter)
        and (shorter == longer or len(shorter) >= 5)
        and (len(longer) - len(shorter) <= 2)
    )
