"""Replies that search the catalog: a search, "show more", "something similar but cheaper".

Each runs the `search_products` tool (published as events) and writes the reply from what
the catalog returned; when nothing matched it names the constraint it relaxed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext, ngettext

from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.dialogue import ConversationState
from knowledge.engines.catalog.draft import Draft, Item
from knowledge.engines.catalog.finding import Found, constraints_json
from knowledge.engines.catalog.kinds import (
    general_kind,
    most_alike,
    product_kind,
    same_google_category,
    same_kind,
)
from knowledge.engines.catalog.snapshots import inventory_for
from knowledge.engines.catalog.streaming import ToolCalls
from knowledge.engines.catalog.tools import (
    ToolContext,
    item_ids_with_variants,
    product_summary,
    products_from_snapshots,
    search_products,
)
from knowledge.engines.catalog.understanding import (
    SORT_BEST,
    SORT_CHEAPEST,
    SORT_PRICIEST,
    Constraints,
    singular,
)
from knowledge.engines.catalog.vocabulary import phrase
from knowledge.models import Product
from knowledge.search.text import words


def run_search(
    context: ToolContext,
    tools: ToolCalls,
    constraints: Constraints,
    *,
    offset: int = 0,
    exclude_item_ids: tuple[str, ...] = (),
    relax: bool = True,
    keep: tuple[str, ...] = (),
) -> tuple[Found, list[Product]]:
    """The `search_products` tool call; returns the outcome and the products to show."""
    limit = context.chatbot.max_products or 4
    args: dict[str, Any] = constraints_json(constraints)
    if offset:
        args["offset"] = offset
    if exclude_item_ids:
        args["excludeItemIds"] = list(exclude_item_ids)
    if context.store is not None:
        args["store"] = context.store.code

    def response(found: Found) -> dict[str, Any]:
        return {
            "total": found.shown_total,
            "filtersApplied": constraints_json(found.used),
            "filtersRelaxed": found.relaxed,
            "searchedTerms": found.searched_terms,
            "products": [product_summary(p) for p in found.products[:limit]],
        }

    found = tools.run(
        "search_products",
        args,
        lambda: search_products(
            context,
            constraints=constraints,
            offset=offset,
            exclude_item_ids=exclude_item_ids,
            relax=relax,
            keep=keep,
        ),
        response,
    )
    return found, found.products[:limit]


def items_for(
    context: ToolContext, products: list[Product], used: Constraints, query: str
) -> list[Item]:
    rows = inventory_for(products, context.store)
    cheapest = min((p.current_price for p in products), default=None)
    priciest = max((p.current_price for p in products), default=None)
    return [
        Item(
            product=p,
            query=query,
            reasons=ph.reasons(
                p,
                used,
                store=context.store,
                row=rows.get(p.pk),
                cheapest=p.current_price == cheapest,
                priciest=p.current_price == priciest,
                said=context.said,
            ),
        )
        for p in products
    ]


def _currency(products: list[Product], fallback: str = "") -> str:
    return products[0].currency if products else fallback


def _as_written(constraints: Constraints, said: str) -> Constraints:
    """The constraints with the shopper's words for the search words and the category."""
    label = ph.as_written((constraints.label,), said) if constraints.label else ""
    level = phrase(constraints.category.split(">")[-1])
    if not label and level and (written := ph.as_written((level,), said)) != level:
        label = written  # the catalog's "headphones" asked for as "auriculares"
    return replace(
        constraints, terms=tuple(ph.as_written(constraints.terms, said).split()), label=label
    )


def _lead(found: Found, shown: list[Product], *, more: bool) -> str:
    currency = _currency(shown)
    asked_c = found.constraints
    count = len(shown)
    if found.relaxed == ["words"]:
        words = " ".join(asked_c.terms)
        if more:
            return ngettext(
                'Here is %(count)s more close match for "%(words)s":',
                'Here are %(count)s more close matches for "%(words)s":',
                count,
            ) % {"count": count, "words": words}
        return gettext(
            'Nothing matches every word of "%(words)s", so here are the closest %(what)s:'
        ) % {
            "words": words,
            "what": ph.describe(asked_c, currency, with_sort=False),
        }
    if found.relaxed:
        return _relaxed_lead(found, shown, more=more)
    plain = ph.describe(asked_c, currency, with_sort=False)
    values = {"count": count, "what": plain, "total": found.shown_total}
    if more:
        return gettext("Here are %(count)s more %(what)s:") % values
    if count == 1:
        return gettext("I found one match for %(what)s:") % values
    if found.shown_total > count:
        if asked_c.sort == SORT_CHEAPEST:
            return gettext("I found %(total)s %(what)s. Here are the %(count)s cheapest:") % values
        if asked_c.sort == SORT_PRICIEST:
            return (
                gettext("I found %(total)s %(what)s. Here are the %(count)s most expensive:")
                % values
            )
        return gettext("I found %(total)s %(what)s. Here are my top %(count)s:") % values
    if asked_c.sort == SORT_BEST:
        return gettext("Here are my top picks among our %(what)s:") % values
    if asked_c.sort == SORT_CHEAPEST:
        return gettext("Here are our %(what)s, cheapest first:") % values
    if asked_c.sort == SORT_PRICIEST:
        return gettext("Here are our %(what)s, most expensive first:") % values
    return gettext("Here are %(count)s %(what)s:") % values


def _relaxed_lead(found: Found, shown: list[Product], *, more: bool) -> str:
    """The lead of a search answered without some of the shopper's limits."""
    currency = _currency(shown)
    asked_c = found.constraints
    count = len(shown)
    used = ph.describe(found.used, currency, with_sort=False)
    values = {"count": count, "used": used, "relaxed": _limit_names(found.relaxed)}
    if more:
        return (
            ngettext(
                "Here are %(count)s more %(used)s, without the %(relaxed)s limit:",
                "Here are %(count)s more %(used)s, without the %(relaxed)s limits:",
                len(found.relaxed),
            )
            % values
        )
    values["asked"] = ph.describe(asked_c, currency)
    if found.relaxed == ["price"]:
        first = shown[0]
        values.update(title=first.title, price=ph.money(first.current_price, first.currency))
        if asked_c.max_price is not None and asked_c.min_price is None:
            if asked_c.brands and not asked_c.has_subject():
                values["brand"] = asked_c.brands[0]
                return (
                    gettext(
                        "We don't have any %(asked)s right now. Our most affordable %(brand)s is "
                        "the %(title)s at %(price)s; here are the closest to your budget:"
                    )
                    % values
                )
            return (
                gettext(
                    "We don't have any %(asked)s right now. The most affordable of our %(used)s is "
                    "the %(title)s at %(price)s; here are the closest to your budget:"
                )
                % values
            )
        if asked_c.min_price is not None and asked_c.max_price is None:
            return (
                gettext("We don't have any %(asked)s right now. Our most premium %(used)s:")
                % values
            )
        return (
            gettext("We don't have any %(asked)s right now. The %(used)s closest to that price:")
            % values
        )
    nearest = ph.describe(found.used, currency, with_sort=False, count=1 if count == 1 else None)
    values["nearest"] = nearest or used
    return (
        ngettext(
            "I couldn't find any %(asked)s. Without the %(relaxed)s limit, the nearest %(nearest)s:",
            "I couldn't find any %(asked)s. Without the %(relaxed)s limits, the nearest %(nearest)s:",
            len(found.relaxed),
        )
        % values
    )


def _closing(found: Found, shown: list[Product], shown_so_far: int) -> str:
    if found.shown_total > shown_so_far:
        return gettext("Want to see more, or shall I compare two of them?")
    if len(shown) >= 2:
        return gettext("Shall I compare two of them or tell you more about one?")
    return gettext("Would you like more details about it?")


def search_reply(
    context: ToolContext,
    tools: ToolCalls,
    constraints: Constraints,
    *,
    state: ConversationState,
    continues: bool,
    exclude: tuple[str, ...] = (),
    relax: bool = True,
    keep: tuple[str, ...] = (),
) -> Draft:
    """The search's products and why each fits; `keep`: wishes never relaxed (finding.find)."""
    found, shown = run_search(
        context, tools, constraints, exclude_item_ids=exclude, relax=relax, keep=keep
    )
    if not shown:
        return nothing_found(context, constraints, found)
    return results_draft(context, found, shown, more=False)


def results_draft(context: ToolContext, found: Found, shown: list, *, more: bool) -> Draft:
    """The reply listing the products a search shows, with why each fits."""
    # The text quotes the shopper's words as written; the reasons check the searched ones.
    written = replace(
        found,
        constraints=_as_written(found.constraints, context.said),
        used=_as_written(found.used, context.said),
    )
    query = ph.describe(written.used, _currency(shown))
    items = items_for(context, shown, found.used, query)
    lines = [_lead(written, shown, more=more)]
    lines += [ph.product_line(i.product, i.reasons) for i in items]
    lines.append(_closing(found, shown, len(shown)))
    return Draft(
        text="\n".join(lines),
        items=items,
        suggestions=sg.search_suggestions(
            constraints=found.used,
            products=shown,
            total=found.shown_total,
            shown_so_far=len(shown),
            vocabulary=context.vocabulary,
        ),
    )


def nothing_found(context: ToolContext, constraints: Constraints, found: Found) -> Draft:
    unknown = ph.as_written(found.unmatched_terms or constraints.terms, context.said)
    if unknown:
        text = gettext(
            'Sorry, I couldn\'t find anything matching "%(words)s" in our catalog. '
            "Could you describe it differently, or try one of these?"
        ) % {"words": unknown}
    else:
        text = gettext(
            "Sorry, there are no %(what)s in our catalog right now. Would one of these help?"
        ) % {"what": ph.describe(constraints, context.vocabulary.currency)}
    return Draft(text=text, suggestions=sg.browse_suggestions(context.vocabulary))


def more_reply(context: ToolContext, tools: ToolCalls, state: ConversationState) -> Draft:
    constraints = state.search or Constraints()
    seen = products_from_snapshots(context.organization, state.seen_for_search)
    exclude = item_ids_with_variants(context.organization, seen)
    # Past the last exact match, the nearest ones come with the relaxed wish named.
    found, shown = run_search(
        context, tools, constraints, exclude_item_ids=exclude, keep=("brand", "category", "gender")
    )
    if not shown:
        text = gettext(
            "That's everything I have for %(what)s: you've seen them all. "
            "Want to try something else?"
        ) % {"what": ph.describe(constraints, context.vocabulary.currency)}
        suggestions = [gettext("Show cheaper ones")] if constraints.sort != SORT_CHEAPEST else []
        return Draft(
            text=text, suggestions=sg.finish(suggestions, sg.browse_suggestions(context.vocabulary))
        )
    return results_draft(context, found, shown, more=True)


def similar_reply(
    context: ToolContext,
    tools: ToolCalls,
    base: Product,
    wishes: Constraints,
    *,
    cheaper: bool,
    pricier: bool,
) -> Draft:
    """Alternatives to `base`: its category, optionally cheaper or pricier, never itself."""
    constraints = _similar_constraints(base, wishes, cheaper=cheaper, pricier=pricier)
    found, shown = _alternatives(context, tools, base, constraints, cheaper or pricier)
    if not cheaper and not pricier:
        shown.sort(key=lambda p: abs(p.current_price - base.current_price))
    if not shown:
        return no_alternatives(context, base, cheaper=cheaper, pricier=pricier)
    query = f"similar to {base.title}" + (
        ", cheaper" if cheaper else ", pricier" if pricier else ""
    )
    # Reasons speak of the shopper's own wishes, not of the internal price bound.
    items = items_for(context, shown, replace(wishes, terms=()), query)
    values = {
        "name": ph.name_of(base),
        "kind": ph.subject_phrase(constraints, 1),
        "now": ph.money(base.current_price, base.currency),
        "title": base.title,
    }
    for item in items:
        item.reasons.insert(0, _against_base(item.product, base) % values)
    lead = _similar_lead(relaxed=bool(found.relaxed), cheaper=cheaper, pricier=pricier)
    lines = [lead % values] + [ph.product_line(i.product, i.reasons[:1]) for i in items]
    lines.append(gettext("Would you like me to compare one of them with the original?"))
    suggestions = [gettext("Compare the first two")] if len(shown) >= 2 else []
    suggestions += [
        gettext("Tell me more about the first one"),
        gettext("Is the first one in stock?"),
    ]
    return Draft(
        text="\n".join(lines),
        items=items,
        suggestions=sg.finish(suggestions, sg.browse_suggestions(context.vocabulary)),
    )


def _similar_constraints(
    base: Product, wishes: Constraints, *, cheaper: bool, pricier: bool
) -> Constraints:
    """The search for alternatives: the base's category (and gender), the shopper's other
    wishes, below or above its price for cheaper or pricier ones."""
    genders = wishes.genders or ((base.gender, "unisex") if base.gender else ())
    return replace(
        wishes,
        terms=(),
        genders=genders,
        category=base.category,
        sort="",
        max_price=base.current_price if cheaper else wishes.max_price,
        max_exclusive=cheaper or wishes.max_exclusive,
        min_price=base.current_price if pricier else wishes.min_price,
        min_exclusive=pricier or wishes.min_exclusive,
        around=None if (cheaper or pricier) else wishes.around,
    )


def no_alternatives(context: ToolContext, base: Product, *, cheaper: bool, pricier: bool) -> Draft:
    text = (
        gettext("The %(name)s is the most affordable %(kind)s we have.")
        if cheaper
        else gettext("The %(name)s is our most premium %(kind)s.")
        if pricier
        else gettext("I couldn't find anything else like the %(name)s in our catalog right now.")
    ) % {
        "name": ph.name_of(base),
        "kind": product_kind(base, context.organization.language) or gettext("product"),
    }
    return Draft(text=text, suggestions=sg.browse_suggestions(context.vocabulary))


def nothing_beyond(
    context: ToolContext, base: Product, searched: Constraints, *, cheaper: bool
) -> Draft:
    """ "Cheaper?" of the search's products when none is: the cheapest shown is the most
    affordable of what was searched (its category and words, not the whole catalog)."""
    values = {
        "name": ph.name_of(base),
        "what": ph.describe(
            replace(
                _as_written(searched, context.said),
                min_price=None,
                max_price=None,
                around=None,
                sort="",
            ),
            context.vocabulary.currency,
        ),
    }
    text = (
        gettext("The %(name)s is the most affordable of our %(what)s.")
        if cheaper
        else gettext("The %(name)s is the most premium of our %(what)s.")
    ) % values
    suggestions = [gettext("Tell me more about it"), gettext("Show me something similar")]
    return Draft(
        text=text,
        items=[Item(product=base)],
        suggestions=sg.finish(suggestions, sg.browse_suggestions(context.vocabulary)),
    )


def _similar_lead(*, relaxed: bool, cheaper: bool, pricier: bool) -> str:
    """The sentence before the alternatives (a template of name, kind and now)."""
    if relaxed and cheaper:
        return gettext(
            "The %(name)s is already the most affordable %(kind)s we have at %(now)s. "
            "The closest alternatives are:"
        )
    if relaxed and pricier:
        return gettext("The %(name)s is already our most premium %(kind)s. Similar options:")
    if cheaper:
        return gettext("Here are alternatives to the %(name)s (now %(now)s) that cost less:")
    if pricier:
        return gettext("Here are higher-end alternatives to the %(name)s (now %(now)s):")
    return gettext("Here are products similar to the %(name)s:")


def _against_base(product: Product, base: Product) -> str:
    """The alternative's first reason: its price beside the base's (a template of title)."""
    if product.current_price < base.current_price:
        return gettext("cheaper than the %(title)s")
    if product.current_price > base.current_price:
        return gettext("a step up from the %(title)s")
    return gettext("the same price as the %(title)s")


def nearest_of_kind(context: ToolContext, tools: ToolCalls, base: Product) -> Product | None:
    """The product of the base's kind nearest to it in price ("compare it with a similar
    camera"), or None."""
    constraints = Constraints(category=base.category)
    _found, shown = _alternatives(context, tools, base, constraints, False)
    if not shown:
        return None
    return min(shown, key=lambda p: abs(p.current_price - base.current_price))


def _alternatives(
    context: ToolContext,
    tools: ToolCalls,
    base: Product,
    constraints: Constraints,
    priced: bool,
) -> tuple[Found, list[Product]]:
    """Alternatives to `base`, nearest first: products of its kind (kinds.py) in its own
    category, then others of that category, then of each broader level, where those share
    the base's Google product category (a tablet's is no smartwatch). Other variants of the
    base count when the ask is about price ("a cheaper alternative" to the 128 GB tablet is
    the 32 GB one)."""
    limit = context.chatbot.max_products or 4
    language = context.organization.language
    kind = product_kind(base, language)
    exclude = (base.item_id,) if priced else item_ids_with_variants(context.organization, [base])
    levels = [level.strip() for level in base.category.split(">") if level.strip()]
    categories = [" > ".join(levels[:n]) for n in range(len(levels), 0, -1)] or [""]
    attempts = [(categories[0], (kind,) if kind else ()), (categories[0], ())]
    attempts += [(category, ()) for category in categories[1:]]
    found: Found | None = None
    shown: list[Product] = []
    for number, (category, terms) in enumerate(attempts):
        last = number == len(attempts) - 1
        attempt = replace(constraints, category=category, terms=terms)
        # Relax price only as a last resort, and only when nothing at all was found.
        result, more = run_search(
            context, tools, attempt, exclude_item_ids=exclude, relax=last and not shown
        )
        if result.relaxed and shown:
            break
        found = found if shown else result
        if terms:
            more = same_kind(more, kind, language)
        elif category == categories[0] and not _names_a_kind(base, kind, levels):
            # Neither the base's title ("Apple Airpods") nor its category ("mobile accessories
            # > electronics") names a kind of goods: the category's products most like it.
            more = most_alike(result.products, base)[: len(more)]
        more = more if category == categories[0] else same_google_category(more, base)
        shown += [p for p in more if p.pk not in {s.pk for s in shown}]
        exclude = exclude + tuple(p.item_id for p in more)
        if len(shown) >= limit or (shown and priced and not terms):
            break
    assert found is not None
    return found, shown[:limit]


def _names_a_kind(base: Product, kind: str, levels: list[str]) -> bool:
    """Whether the base's kind or the last word of one of its category's levels is a
    general word for a kind of goods ("tablet", "fragrances > perfumes")."""
    heads = [singular(words(level)[-1]) for level in levels if words(level)]
    return not kind or any(general_kind(word) for word in (kind, *heads))


def gift_reply(context: ToolContext, tools: ToolCalls, wishes: Constraints) -> Draft:
    """Gift ideas when no product is named: well-stocked picks within the budget, if any."""
    has_budget = wishes.max_price is not None or wishes.around is not None
    # Within a budget, the most it buys; without one, today's best deals (not the priciest).
    constraints = replace(
        wishes,
        sort=SORT_BEST if has_budget else "",
        on_sale=wishes.on_sale if has_budget else True,
        in_stock=True,
    )
    found, shown = run_search(context, tools, constraints)
    budget = ph.price_phrase(wishes, _currency(shown, context.vocabulary.currency))
    people = {"male": "him", "female": "her"}
    for_whom = next((people[g.lower()] for g in wishes.genders if g.lower() in people), "")
    lead = f"{gettext('Happy to help you find a gift!')} {_gift_ideas(for_whom, budget)}"
    if not shown:
        return nothing_found(context, wishes, found)
    items = items_for(context, shown, found.used, "gift ideas" + (f" {budget}" if budget else ""))
    lines = [lead] + [ph.product_line(i.product, i.reasons) for i in items]
    lines.append(gettext("Tell me what they like, or your budget, and I'll narrow it down."))
    suggestions = [] if budget else [gettext("Gift ideas under 50")]
    suggestions += [gettext("Compare the first two"), gettext("Tell me more about the first one")]
    return Draft(
        text="\n".join(lines),
        items=items,
        suggestions=sg.finish(suggestions, sg.browse_suggestions(context.vocabulary)),
    )


def _gift_ideas(for_whom: str, budget: str) -> str:
    """The sentence "Here are some ideas for him under $50:" in the reply's language."""
    if budget:
        ideas = {
            "him": gettext("Here are some ideas for him %(budget)s:"),
            "her": gettext("Here are some ideas for her %(budget)s:"),
        }.get(for_whom) or gettext("Here are some ideas %(budget)s:")
        return ideas % {"budget": budget}
    return {
        "him": gettext("Here are some ideas for him:"),
        "her": gettext("Here are some ideas for her:"),
    }.get(for_whom) or gettext("Here are some ideas:")


def _limit_names(relaxed: list[str]) -> str:
    """The names of the limits a search gave up (finding._RELAXATIONS), in the reply's
    language; the tool response keeps them in English."""
    names = {
        "price": gettext("price"),
        "colour": gettext("colour"),
        "size": gettext("size"),
        "material": gettext("material"),
        "on sale": gettext("on sale"),
        "in stock": gettext("in stock"),
        "gender": gettext("gender"),
        "age group": gettext("age group"),
        "brand": gettext("brand"),
        "category": gettext("category"),
    }
    return ph.join([names.get(name, name) for name in relaxed])


__all__ = [
    "SORT_PRICIEST",
    "more_reply",
    "nearest_of_kind",
    "nothing_beyond",
    "nothing_found",
    "search_reply",
    "similar_reply",
]
