"""The decision step: which kind of reply a message gets (one writer each, writers.WRITERS).

`decide` is pure: from the message's reading, its intent in the conversation
(dialogue.classify), the page's product and the products the message was found to point at
(references.pointed_at). An intent whose products are missing falls back: a comparison or a
name not found becomes a search when the message names a subject, else the page's product.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from knowledge.engines.catalog import dialogue as dl
from knowledge.engines.catalog.dialogue import ConversationState, Intent
from knowledge.engines.catalog.references import Pointed
from knowledge.engines.catalog.understanding import Understanding
from knowledge.models import Product


class ReplyKind(StrEnum):
    """What a reply does; each kind has one writer."""

    SMALLTALK = "smalltalk"
    OUT_OF_SCOPE = "out_of_scope"
    SHOP_POLICY = "shop_policy"
    NOT_IN_FEED = "not_in_feed"  # ratings, reviews...: no catalog holds them
    GIFT = "gift"  # gift ideas
    COMPARE = "compare"  # the products side by side
    COMPARE_WHAT = "compare_what"  # compare, but with what?
    SIMILAR = "similar"  # alternatives to the product
    SIMILAR_TO_WHAT = "similar_to_what"  # similar, but to what?
    GOES_WITH = "goes_with"  # products of other shelves to go with the product
    GOES_WITH_WHAT = "goes_with_what"  # to go with which product?
    PRODUCT = "product"  # about the products: price, stock, sizes, details...
    WHICH_ONE = "which_one"  # "it" with several products in view
    CLARIFY = "clarify"  # "it" with nothing in view
    BRAND_OTHERS = "brand_others"  # the page brand's other products
    MORE = "more"  # more results of the same search
    SEARCH = "search"  # a catalog search, continuing the conversation's or a new one
    NOT_UNDERSTOOD = "not_understood"


@dataclass(frozen=True)
class Decision:
    """The reply's kind and the products it is about."""

    kind: ReplyKind
    products: tuple[Product, ...] = ()
    note: str = ""  # said before the answer ("I only showed one product just now...")


# Intents that are their reply's kind whatever the catalog holds.
_ANSWERED_AS = {
    dl.SMALLTALK: ReplyKind.SMALLTALK,
    dl.OUT_OF_SCOPE: ReplyKind.OUT_OF_SCOPE,
    dl.SHOP_POLICY: ReplyKind.SHOP_POLICY,
    dl.NOT_IN_FEED: ReplyKind.NOT_IN_FEED,
    dl.GIFT: ReplyKind.GIFT,
    dl.CLARIFY: ReplyKind.CLARIFY,
}
# Intents that become a search when their products are not found.
_SEARCH_FALLBACK = frozenset({dl.SEARCH, dl.NAMED, dl.COMPARE, dl.SIMILAR})


def decide(
    *,
    reading: Understanding,
    intent: Intent,
    state: ConversationState,
    page: Product | None,
    pointed: Pointed,
) -> Decision:
    """The kind of reply the message gets, and the products it is about."""
    if intent in _ANSWERED_AS:
        return Decision(_ANSWERED_AS[intent])
    decision = _about_products(reading, intent, state, page, pointed)
    if decision is not None:
        return decision
    c = reading.constraints
    if (
        page is not None
        and page.brand
        and c.brands == (page.brand,)
        and reading.others
        and not c.has_subject()
    ):
        return Decision(ReplyKind.BRAND_OTHERS, (page,))
    if intent == dl.MORE:
        return Decision(ReplyKind.MORE)
    if intent in _SEARCH_FALLBACK and _searchable(reading):
        return Decision(ReplyKind.SEARCH)
    if page is not None:
        return Decision(ReplyKind.PRODUCT, (page,))
    return Decision(ReplyKind.NOT_UNDERSTOOD)


def _about_products(
    reading: Understanding,
    intent: Intent,
    state: ConversationState,
    page: Product | None,
    pointed: Pointed,
) -> Decision | None:
    """The reply for an intent about particular products, when they were found (or the
    question to ask when they were not); None: the fallbacks of `decide`."""
    products = pointed.products
    subject = reading.constraints.has_subject()
    if intent == dl.COMPARE:
        if len(products) >= 2:
            return Decision(ReplyKind.COMPARE, products)
        if not subject:
            return Decision(ReplyKind.COMPARE_WHAT, products)
    elif intent == dl.SIMILAR:
        if products:
            return Decision(ReplyKind.SIMILAR, products)
        if not subject:
            return Decision(ReplyKind.SIMILAR_TO_WHAT)
    elif intent == dl.GOES_WITH:
        return (
            Decision(ReplyKind.GOES_WITH, products[:1])
            if products
            else (Decision(ReplyKind.GOES_WITH_WHAT))
        )
    elif intent == dl.PRODUCT:
        if products:
            return Decision(ReplyKind.PRODUCT, products, pointed.note)
        if state.shown:
            return Decision(ReplyKind.WHICH_ONE)
    elif intent == dl.PAGE and page is not None:
        if _colour_it_lacks(reading, page):
            return Decision(ReplyKind.SIMILAR, (page,))  # "in blue?": its kind in blue
        return Decision(ReplyKind.PRODUCT, (page,))
    elif intent == dl.NAMED and products:
        return Decision(ReplyKind.PRODUCT, products)
    return None


def _colour_it_lacks(reading: Understanding, page: Product) -> bool:
    """ "Do you have it in blue?" of a product that has no variants and no colour of its own
    but the one its name may say: no variant answers it, products of its kind in blue may."""
    asked = reading.asked_color.lower()
    if not asked or page.item_group_id or page.color:
        return False
    return asked not in page.title.lower()


def _searchable(reading: Understanding) -> bool:
    """Whether the message says anything a search could use."""
    c = reading.constraints
    return bool(
        c.has_subject() or c.has_filters() or c.sort or reading.asks & {"cheaper", "pricier"}
    )
