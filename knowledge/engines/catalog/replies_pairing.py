"""What goes with a product ("what would go well with it?"): products of the other shelves of
its range (a jacket's, in "Apparel & Accessories": t-shirts, shoes, belts), one of each, in
stock and for the same people. No catalog says what pairs best, and the reply says so."""

from __future__ import annotations

from django.utils.translation import gettext

from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.draft import Draft
from knowledge.engines.catalog.kinds import product_kind
from knowledge.engines.catalog.replies_search import items_for, run_search
from knowledge.engines.catalog.streaming import ToolCalls
from knowledge.engines.catalog.tools import ToolContext, item_ids_with_variants
from knowledge.engines.catalog.understanding import Constraints
from knowledge.models import Product

# Genders that go with any other.
_FOR_ANYONE = ("unisex", "")


def goes_with_reply(context: ToolContext, tools: ToolCalls, base: Product) -> Draft:
    """One in-stock product of each other shelf of the base's range, for its people."""
    top = product_range(base)
    values = {"name": ph.name_of(base), "range": top.lower()}
    picks = _other_shelves(context, tools, base, top) if top else []
    if not picks:
        return Draft(
            text=gettext(
                "The catalog doesn't say what goes with the %(name)s, and I have nothing from "
                "other shelves of its range to suggest. Would you like similar products instead?"
            )
            % values,
            suggestions=sg.finish(
                [gettext("Show me something similar")], sg.browse_suggestions(context.vocabulary)
            ),
        )
    items = items_for(context, picks, Constraints(in_stock=True), "")
    lines = [
        gettext(
            "The catalog doesn't say what goes best with the %(name)s; from other shelves of "
            "our %(range)s range, these are in stock:"
        )
        % values
    ]
    lines += [ph.product_line(i.product, i.reasons) for i in items]
    suggestions = [gettext("Compare the first two")] if len(picks) >= 2 else []
    suggestions.append(gettext("Tell me more about the first one"))
    return Draft(
        text="\n".join(lines),
        items=items,
        suggestions=sg.finish(suggestions, sg.browse_suggestions(context.vocabulary)),
    )


def product_range(product: Product) -> str:
    """The broad range a product belongs to: the first level of its Google product category
    ("Apparel & Accessories" holds clothing, shoes and belts), else of its own category when
    that has shelves below it ("clothing > jackets"); "" when neither says."""
    google = [level.strip() for level in product.google_product_category.split(">")]
    if google[0] and any(char.islower() for char in google[0]):  # a name, not a code
        return google[0]
    levels = [level.strip() for level in product.category.split(">") if level.strip()]
    return levels[0] if len(levels) > 1 else ""


def _other_shelves(
    context: ToolContext, tools: ToolCalls, base: Product, top: str
) -> list[Product]:
    """The first in-stock product of each other shelf of the range `top` (the search's
    ranking decides which), not of the base's kind, for the base's gender or anyone's."""
    gendered = base.gender.lower() not in _FOR_ANYONE
    constraints = Constraints(
        category=top, in_stock=True, genders=(base.gender, "unisex") if gendered else ()
    )
    found, _shown = run_search(
        context,
        tools,
        constraints,
        exclude_item_ids=item_ids_with_variants(context.organization, [base]),
        relax=False,
    )
    language = context.organization.language
    kind = product_kind(base, language)
    picks: dict[str, Product] = {}
    for product in found.products:
        if product.category != base.category and product_kind(product, language) != kind:
            picks.setdefault(product.category, product)
    return list(picks.values())[: context.chatbot.max_products or 4]
