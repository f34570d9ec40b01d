"""Follow-up suggestions (2 to 4) that lead somewhere in this catalog.

Every suggestion is a message this engine itself understands and can answer from the
catalog: they are phrased in the forms `understanding.py` reads (gettext("Compare the first two"),
gettext("Is it in stock?"), "Show me laptops") and offered only when the catalog can back them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext

from knowledge.engines.catalog.snapshots import is_on_sale
from knowledge.engines.catalog.understanding import SORT_CHEAPEST, Constraints
from knowledge.engines.catalog.vocabulary import Vocabulary
from knowledge.models import Product

MAX_SUGGESTIONS = 4


def finish(candidates: Sequence[str], fallback: Sequence[str]) -> list[str]:
    """2 to 4 distinct suggestions, topped up from `fallback`."""
    chosen: list[str] = []
    for text in [*candidates, *fallback]:
        if text and text.lower() not in {c.lower() for c in chosen}:
            chosen.append(text)
        if len(chosen) == MAX_SUGGESTIONS:
            break
    return chosen


def _has_variants(product: Product) -> bool:
    """Whether the product is one of a family of variants (`item_group_id`), whose sizes or
    colours are worth asking for; a jar's one size ("500 g") is not."""
    return bool(product.item_group_id)


def browse_suggestions(vocabulary: Vocabulary, *, exclude: str = "") -> list[str]:
    """Starting points from the catalog's own categories."""
    tops = vocabulary.browsable_categories()
    # Spread over the catalog rather than taking neighbours in the alphabet (a few looked at,
    # whatever the number of categories).
    spread = dict.fromkeys([*tops[:: max(1, len(tops) // 2)][:3], *tops[:3]])
    picks = [c for c in spread if c.lower() != exclude.lower()][:2]
    return [gettext("Show me %(what)s") % {"what": top.lower()} for top in picks] + [
        gettext("What's on sale?")
    ]


def search_suggestions(
    *,
    constraints: Constraints,
    products: Sequence[Product],
    total: int,
    shown_so_far: int,
    vocabulary: Vocabulary,
) -> list[str]:
    found: list[str] = []
    if len(products) == 1:
        # One product in view: "it" means it.
        product = products[0]
        found += [gettext("Tell me more about it"), gettext("Is it in stock?")]
        if _has_variants(product) and (product.size or product.color):
            found.append(
                gettext("What sizes does it come in?")
                if product.size
                else gettext("What colours does it come in?")
            )
        found.append(gettext("Show me something similar"))
        return finish(found, browse_suggestions(vocabulary, exclude=constraints.category))
    if len(products) >= 2:
        found.append(gettext("Compare the first two"))
    if products:
        found.append(gettext("Tell me more about the first one"))
    if any(p.size and _has_variants(p) for p in products[:1]):
        found.append(gettext("What sizes does the first one come in?"))
    if total > shown_so_far:
        found.append(gettext("Show me more"))
    brands = list(dict.fromkeys(p.brand for p in products if p.brand))
    if len(brands) >= 2 and not constraints.brands:
        found.append(gettext("Only %(brand)s") % {"brand": brands[0]})
    if any(is_on_sale(p) for p in products) and not constraints.on_sale and len(products) > 1:
        found.append(gettext("Which of these are on sale?"))
    if len(products) >= 2 and constraints.sort != SORT_CHEAPEST:
        found.append(gettext("Show cheaper ones"))
    return finish(found, browse_suggestions(vocabulary, exclude=constraints.category))


def product_suggestions(
    *,
    product: Product,
    variants: Sequence[Product],
    answered: set[str],
    vocabulary: Vocabulary,
) -> list[str]:
    found: list[str] = []
    if "availability" not in answered:
        found.append(gettext("Is it in stock?"))
    sizes = {v.size for v in variants if v.size}
    colors = {v.color for v in variants if v.color}
    if len(sizes) > 1 and "sizes" not in answered:
        found.append(gettext("What sizes does it come in?"))
    if len(colors) > 1 and "colors" not in answered:
        found.append(gettext("What colours does it come in?"))
    if "price" not in answered:
        found.append(gettext("Is it on sale?"))
    found.append(gettext("Show me something similar but cheaper"))
    if "details" not in answered:
        found.append(gettext("Tell me more about it"))
    return finish(found, browse_suggestions(vocabulary))


def compare_suggestions(vocabulary: Vocabulary) -> list[str]:
    return finish(
        [
            gettext("Tell me more about the first one"),
            gettext("Is the second one in stock?"),
            gettext("Which one is cheaper?"),
        ],
        browse_suggestions(vocabulary),
    )


def smalltalk_suggestions(vocabulary: Vocabulary, page_product: Product | None) -> list[str]:
    if page_product is not None:
        return finish(
            [
                gettext("Tell me more about this product"),
                gettext("Is it in stock?"),
                gettext("Show me similar products"),
            ],
            browse_suggestions(vocabulary),
        )
    return finish(browse_suggestions(vocabulary), [])
