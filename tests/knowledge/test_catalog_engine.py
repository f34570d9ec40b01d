"""How the catalog engine reads a shopper's message (`understanding.understand`, pure).

The replies built from these readings are tested through the API in test_messages*.py, the
suggestions test and the labelled eval; here each phrase the issue lists is read exactly.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from knowledge.engines.catalog.prices import price_limits
from knowledge.engines.catalog.understanding import understand
from knowledge.engines.catalog.vocabulary import Vocabulary

VOCABULARY = Vocabulary(
    brands={"apple": "Apple", "samsung": "Samsung", "puma": "Puma", "rolex": "Rolex"},
    categories={
        "laptops": "laptops",
        "laptop": "laptops",
        "smartphones": "smartphones",
        "smartphone": "smartphones",
        "mens shoes": "mens shoes",
        "mens shoe": "mens shoes",
        "t shirts": "t-shirts",
        "t shirt": "t-shirts",
    },
    colors={"black": "Black", "navy": "Navy"},
    sizes={"l": "L", "42": "42"},
    materials={"leather": "Leather"},
)


@pytest.mark.parametrize(
    ("text", "minimum", "maximum"),
    [
        ("under 50", None, "50"),
        ("below $1,500", None, "1500"),
        ("less than 30 euros", None, "30"),
        ("max 100", None, "100"),
        ("100 max", None, "100"),
        ("no more than €75", None, "75"),
        ("my budget is 400", None, "400"),
        ("up to 1.5k", None, "1500"),
        ("between 20 and 40", "20", "40"),
        ("from $20 to $40", "20", "40"),
        ("20-40 dollars", "20", "40"),
        ("around 50", "40.00", "60.00"),
        ("about $100", "80.00", "120.00"),
        ("over 5000", "5000", None),
        ("at least 30", "30", None),
        ("headphones $80", None, "80"),
    ],
)
def test_price_limits(text, minimum, maximum):
    limits, rest = price_limits(f" {text} ")

    assert limits.min_price == (Decimal(minimum) if minimum else None)
    assert limits.max_price == (Decimal(maximum) if maximum else None)
    assert not any(ch.isdigit() for ch in rest)


@pytest.mark.parametrize(
    "text",
    [
        "under 9999999999999",
        "under " + "9" * 309,
        "9" * 309 + " or more",
        "between 1 and " + "9" * 309,
        "my budget is 1" + ",000" * 110,
        "around " + "9" * 29,
        "$" + "9" * 40,
        "up to 1000000000k",
    ],
)
def test_amounts_of_more_than_12_digits_set_no_limit_and_are_not_searched(text):
    limits, rest = price_limits(f" {text} ")

    assert not limits.any()
    assert not any(ch.isdigit() for ch in rest)


def test_only_ascii_digits_make_an_amount():
    limits, rest = price_limits(" under \u0665\u0660 ")  # Arabic-Indic 50

    assert not limits.any() and "\u0665\u0660" in rest
    assert price_limits(" under 999999999999 ")[0].max_price == Decimal("999999999999")


def test_numbers_that_are_not_prices_stay_words():
    u = understand("iPhone 13 cases", VOCABULARY)

    assert u.constraints.max_price is None and "13" in u.constraints.terms


@pytest.mark.parametrize(
    ("text", "brands", "excluded"),
    [
        ("Apple laptops", ("Apple",), ()),
        ("laptops but not Apple", (), ("Apple",)),
        ("phones other than Samsung", (), ("Samsung",)),
        ("anything but Samsung", (), ("Samsung",)),
        ("no Apple please", (), ("Apple",)),
        ("what about Puma?", ("Puma",), ()),
        ("Samsung, not Apple", ("Samsung",), ("Apple",)),
    ],
)
def test_brands_and_excluded_brands(text, brands, excluded):
    c = understand(text, VOCABULARY).constraints

    assert (c.brands, c.exclude_brands) == (brands, excluded)
    assert "not" not in c.terms and "apple" not in c.terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("show me a laptop", {"category": "laptops"}),
        ("shoes for men", {"category": "mens shoes"}),
        ("men's shoes", {"category": "mens shoes"}),
        (
            "black t-shirt in size L",
            {"category": "t-shirts", "colors": ("Black",), "sizes": ("L",)},
        ),
        ("leather laptops in stock", {"materials": ("Leather",), "in_stock": True}),
        ("phones on sale", {"on_sale": True}),
        ("cheapest laptop", {"sort": "price_asc"}),
        ("cheap smartphones", {"sort": "price_asc"}),
        ("the least expensive laptop", {"sort": "price_asc"}),
        ("most expensive laptop", {"sort": "price_desc"}),
        ("the best smartphone", {"sort": "best"}),
        ("navy ones in 42", {"colors": ("Navy",), "sizes": ("42",)}),
    ],
)
def test_categories_attributes_and_wishes(text, expected):
    c = understand(text, VOCABULARY).constraints

    for name, value in expected.items():
        assert getattr(c, name) == value, name


@pytest.mark.parametrize(
    ("text", "asks", "ordinals"),
    [
        ("tell me more about the second one", {"details"}, [2]),
        ("compare the first two", {"compare"}, [1, 2]),
        ("cheaper ones", {"cheaper"}, []),
        ("show more", {"more"}, []),
        ("does it come in L?", set(), []),
        ("is it in stock?", {"availability"}, []),
        ("something similar but cheaper", {"similar", "cheaper"}, []),
        ("who makes it?", {"brand"}, []),
    ],
)
def test_follow_up_questions(text, asks, ordinals):
    u = understand(text, VOCABULARY)

    assert asks <= u.asks
    assert u.ordinals == ordinals
    assert not u.constraints.terms


def test_size_question_names_the_size():
    u = understand("does it come in L?", VOCABULARY)

    assert (u.asked_size, u.pronoun, u.interrogative) == ("L", True, True)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("hi", "greeting"),
        ("Good morning!", "greeting"),
        ("thanks a lot", "thanks"),
        ("bye", "goodbye"),
        ("how are you today?", "how_are_you"),
        ("who are you?", "who_are_you"),
    ],
)
def test_small_talk(text, kind):
    u = understand(text, VOCABULARY)

    assert u.smalltalk == kind and not u.has_product_content


@pytest.mark.parametrize("text", ["what's the weather tomorrow?", "tell me a joke", "write a poem"])
def test_out_of_scope(text):
    assert understand(text, VOCABULARY).out_of_scope


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("a laptop that is not too expensive", "en"),
        ("laptops, not too pricey", "en"),
        ("un laptop pas trop cher", "fr"),
    ],
)
def test_not_too_expensive_is_a_wish_for_cheap_ones_not_a_search_word(text, language):
    u = understand(text, VOCABULARY, language=language)

    assert u.constraints.sort == "price_asc"
    assert u.constraints.category == "laptops"
    assert u.constraints.terms == ()
    assert "cheaper" not in u.asks
