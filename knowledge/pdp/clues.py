"""Words in a product's title, category and description that tell the generator what to ask.

English only, like the demo catalogs: a catalog in another language gets the questions that
need no clue (stock, price, alternatives) until its words are added here.
"""

from __future__ import annotations

import re


def _words(*alternatives: str) -> re.Pattern[str]:
    """Whole words, case folded."""
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


STORAGE = re.compile(r"\b\d+\s?(?:GB|TB)\b|\bstorage\b|\bSSD\b", re.IGNORECASE)
BATTERY = _words(
    "battery", "batteries", "wireless", "cordless", "portable", "mah", "smartphones?",
    "phones?", "iphone", "laptops?", "notebooks?", "tablets?", "ipad", "earphones?",
    "headphones?", "earbuds?", "airpods?", "smartwatch(?:es)?", "watch(?:es)?",
)  # fmt: skip
COMPATIBILITY = _words(
    "charger", "charging", "case", "cable", "adapter", "earphones?", "headphones?",
    "earbuds?", "airpods?", "magsafe", "stand", "mount", "battery pack",
    "compatible", "strap", "keyboard", "mouse",
)  # fmt: skip
DEVICE = _words(
    "smartphones?", "phones?", "iphone", "laptops?", "notebooks?", "tablets?", "ipad",
    "computers?", "macbook", "cameras?",
)  # fmt: skip
# Things that go with a device rather than being one: no battery life or storage to ask about.
ACCESSORY = _words(
    "chargers?", "cases?", "covers?", "cables?", "adapters?", "stands?", "mounts?",
    "pedestals?", "tripods?", "holders?", "protectors?", "straps?",
)  # fmt: skip
# A material the title already names ("Bamboo Spatula") needs no question.
MATERIAL_IN_TITLE = _words(
    "bamboo", "wood", "wooden", "steel", "stainless", "iron", "alumin(?:i)?um", "metal",
    "glass", "ceramic", "porcelain", "plastic", "silicone", "leather", "faux", "cotton",
    "linen", "wool", "silk", "denim", "gold", "golden", "silver", "crystal", "marble",
    "stone", "copper", "brass", "carbon", "velvet",
)  # fmt: skip
SKIN_PRODUCT = _words(
    "skin", "lotion", "soap", "cream", "wash", "face", "facial", "serum", "moisturi[sz]er",
    "cleanser", "mascara", "eyeshadow", "lipstick", "powder", "foundation", "concealer",
    "blush", "makeup", "cosmetics?",
)  # fmt: skip
FIT = _words("fit", "fits", "fitted", "slim", "relaxed", "loose", "oversized")
WARRANTY = re.compile(
    r"\b(?:lifetime|\d+[\s-]*(?:year|month|week|day)s?)[\s-]+(?:limited\s+)?warranty\b",
    re.IGNORECASE,
)
# Where a long title is cut: before the words that start its list of features.
CONNECTOR = re.compile(
    r"\s+(?:with|for|and|featuring|including|in)\s+|\s*[,|(\-\u2013]\s*", re.IGNORECASE
)

# Groceries of one ingredient ("Honey Jar", "Bottled Water"): one word once packaging words
# are set aside; "ingredients" would sound silly.
_PACKAGING = frozenset(
    [
        "jar",
        "bottle",
        "bottled",
        "pack",
        "box",
        "bag",
        "can",
        "organic",
        "fresh",
        "pure",
        "natural",
        "cooking",
        "sparkling",
        "mineral",
        "still",
        "whole",
        "free",
        "range",
    ]
)
# Title words that do not say what kind of product it is.
_NOT_KIND = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "with",
        "for",
        "of",
        "in",
        "on",
        "by",
        "to",
        "men",
        "mens",
        "man",
        "women",
        "womens",
        "woman",
        "girl",
        "girls",
        "boy",
        "boys",
        "kids",
        "new",
        "black",
        "white",
        "red",
        "blue",
        "green",
        "yellow",
        "grey",
        "gray",
        "brown",
        "pink",
        "purple",
        "orange",
        "gold",
        "golden",
        "silver",
        "beige",
        "navy",
        "off",
    ]
)


def single_ingredient(title: str) -> bool:
    words = [word for word in re.findall(r"[a-z]+", title.lower()) if word not in _PACKAGING]
    return len(words) == 1


def kind_words(title: str) -> list[str]:
    """The title's words that say what the product is, singular; the last is its head noun."""
    words = [word for word in re.findall(r"[a-z0-9]+", title.lower()) if word not in _NOT_KIND]
    return [word[:-1] if len(word) > 3 and word.endswith("s") else word for word in words]
