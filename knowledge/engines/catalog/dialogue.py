"""The conversation: what kind of turn a message is, and the search state it leaves behind.

The state is rebuilt from the stored history on every message (no hidden session): each past
user message is read again with `understand`, and the products of the reply that followed
give "the second one", "cheaper ones" and "show more" their meaning.

Only the recent conversation is read: the last `HISTORY_TURNS` user messages, and of those only
as many as fit in `HISTORY_CHARS` characters (newest first). Readings are cached per catalog
(understanding.py), but an import empties that cache, and then every message of a long chat
would be read again; with the window, one message costs at most reading its own text and
HISTORY_CHARS of history, whatever the chat holds.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.engines.catalog.understanding import (
    SORT_CHEAPEST,
    SORT_PRICIEST,
    Constraints,
    Understanding,
    understand,
)
from knowledge.engines.catalog.vocabulary import Vocabulary

logger = logging.getLogger(__name__)


class Intent(StrEnum):
    """What kind of turn a message is in the conversation (`classify`)."""

    SMALLTALK = "smalltalk"
    OUT_OF_SCOPE = "out_of_scope"
    COMPARE = "compare"
    SIMILAR = "similar"
    GOES_WITH = "goes_with"  # what to wear or use with a product
    PRODUCT = "product"  # about products already shown ("the second one", "is it in stock?")
    PAGE = "page"  # about the product of the page the shopper is on
    NAMED = "named"  # about a product named in the message, if the catalog has it
    MORE = "more"
    SEARCH = "search"
    CLARIFY = "clarify"  # a question about "it" when nothing is in view
    SHOP_POLICY = "shop_policy"  # delivery, returns, payment: not the catalog's
    NOT_IN_FEED = "not_in_feed"  # ratings, reviews, sales figures: no catalog holds them
    GIFT = "gift"  # gift ideas, with no product named
    UNKNOWN = "unknown"


# The intents by the short names `classify` and `state_advance` read them by.
SMALLTALK = Intent.SMALLTALK
OUT_OF_SCOPE = Intent.OUT_OF_SCOPE
COMPARE = Intent.COMPARE
SIMILAR = Intent.SIMILAR
GOES_WITH = Intent.GOES_WITH
PRODUCT = Intent.PRODUCT
PAGE = Intent.PAGE
NAMED = Intent.NAMED
MORE = Intent.MORE
SEARCH = Intent.SEARCH
CLARIFY = Intent.CLARIFY
SHOP_POLICY = Intent.SHOP_POLICY
NOT_IN_FEED = Intent.NOT_IN_FEED
GIFT = Intent.GIFT
UNKNOWN = Intent.UNKNOWN

# The part of the history the state is rebuilt from (module docstring): more turns than a
# search is refined over, and two full-length messages' worth of text.
HISTORY_TURNS = 12
HISTORY_CHARS = 8_000

PRODUCT_QUESTIONS = frozenset(
    {"availability", "price", "sizes", "colors", "material", "brand", "category", "details"}
)


@dataclass
class ConversationState:
    search: Constraints | None = None  # the search the shopper is refining
    shown: list[dict[str, Any]] = field(default_factory=list)  # last reply's products
    shown_for_search: int = 0  # products shown so far for `search` ("show more" continues)
    seen_for_search: list[dict[str, Any]] = field(default_factory=list)  # their snapshots
    focus: dict[str, Any] | None = None  # the one product last talked about
    shown_on: str = ""  # the page the shopper was on when `shown` were shown
    asked: frozenset[str] = frozenset()  # what the last question about products asked

    def one_shown_on(self, url: str) -> bool:
        """Whether the last reply showed one product, on the page `url`: "it" there is that
        product, which may not be the page's; on another page, "it" is the page's."""
        return len(self.shown) == 1 and self.shown_on == url


def with_earlier_question(u: Understanding, state: ConversationState) -> Understanding:
    """ "And the other one?" after "how much is the first?": the earlier question, asked of
    the other product."""
    if u.other_one and not u.asks and state.asked:
        return replace(u, asks=set(state.asked))
    return u


def is_product_question(u: Understanding) -> bool:
    asked_value = bool(u.asked_size or u.asked_color) and u.interrogative
    return bool(u.asks & PRODUCT_QUESTIONS) or asked_value or bool(u.topic)


def classify(u: Understanding, state: ConversationState, *, on_pdp: bool, url: str = "") -> Intent:
    """The kind of turn; decision.decide may still fall back to a search (e.g. a name not
    found). `url`: the page the message was sent from."""
    c = u.constraints
    subject = c.has_subject()
    if u.out_of_scope and not (subject or c.brands):
        return OUT_OF_SCOPE
    if u.smalltalk and not u.has_product_content:
        return SMALLTALK
    if u.shop_policy:
        return SHOP_POLICY
    if u.not_in_feed and (u.interrogative or not subject):
        return NOT_IN_FEED
    if u.gift and not subject and not c.brands:
        return GIFT
    has_products = bool(on_pdp or state.shown or state.focus)
    if "compare" in u.asks and (has_products or len(u.name_words) >= 2):
        return COMPARE
    if "similar" in u.asks:
        return SIMILAR  # with nothing in view, the engine asks "similar to which product?"
    if "goes_with" in u.asks and not subject:
        return GOES_WITH  # "what goes with it?"; "which shoes go with it?" searches shoes
    if u.ordinals and state.shown and not subject and not c.brands:
        return PRODUCT
    if u.other_one and state.focus is not None and not subject and not c.brands:
        return PRODUCT  # "and the other one?": the product talked about before this one
    if "more" in u.asks and state.search is not None and not subject and not c.has_filters():
        return MORE
    question = is_product_question(u)
    if u.asks & {"cheaper", "pricier"} and state.search is not None and not subject:
        return SEARCH  # "cheaper ones": the same search, below what was shown
    one_in_view = len(state.shown) == 1 or (not state.shown and state.focus is not None)
    if u.asks & {"sizes", "colors"} and one_in_view and not subject and not c.brands:
        return PRODUCT  # "which sizes are in stock?" of the one product in view
    if (
        one_in_view
        and u.pronoun
        and u.interrogative
        and c.terms
        and not (c.category or c.brands or u.names_kind)
        and not u.asks & {"cheaper", "pricier", "more"}
        and not on_pdp
    ):
        return PRODUCT  # "is it waterproof?" of the one product in view, not a search
    if state.search is not None and u.filtering and not subject:
        return SEARCH  # "which of these are on sale?": the same search, narrowed
    if on_pdp and u.pronoun and not (subject or c.brands or u.ordinals) and state.one_shown_on(url):
        # "Tell me more about it" right after one product was shown on this page: that one,
        # which may not be the page's.
        return PRODUCT
    about_page = (
        on_pdp
        and not c.brands
        and (not subject or ((u.pronoun or u.names_part) and not c.category))
    )
    if about_page and (
        u.pronoun or question or state.search is None or u.asked_size or u.asked_color
    ):
        if ("cheaper" in u.asks or "pricier" in u.asks) and state.search is None:
            return SIMILAR
        return PAGE
    if (
        u.plural_reference
        and not u.pronoun
        and (u.asked_size or (u.asked_color and "colors" in u.asks))
        and state.search is not None
    ):
        return SEARCH  # "do you have them in size 43?": the same search in that size
    if (
        question
        and (u.pronoun or u.plural_reference)
        and not subject
        and (state.shown or state.focus)
    ):
        return PRODUCT
    if question and c.terms and not c.category:
        return NAMED  # "is the iPhone X on sale?", if the catalog has a product so named
    if question and u.pronoun and not subject and not c.brands:
        return CLARIFY  # "is it in stock?" with nothing to point at
    if subject or c.has_filters() or c.sort or u.asks & {"cheaper", "pricier", "more"}:
        return SEARCH
    if question and (state.shown or state.focus):
        return PRODUCT
    return UNKNOWN


def _min_price(products: Sequence[dict[str, Any]]) -> Decimal | None:
    prices = [Decimal(str(p["price"])) for p in products if "price" in p]
    return min(prices) if prices else None


def _max_price(products: Sequence[dict[str, Any]]) -> Decimal | None:
    prices = [Decimal(str(p["price"])) for p in products if "price" in p]
    return max(prices) if prices else None


def next_search(u: Understanding, state: ConversationState) -> tuple[Constraints, bool]:
    """The constraints of this search turn, and whether it continues the previous search."""
    new = u.constraints
    previous = state.search
    continues = previous is not None and (
        not new.has_subject() or (u.plural_reference and not u.subject_switch)
    )
    if previous is None or not (continues or u.subject_switch):
        merged = new
    elif continues:
        merged = _merge(previous, new)
    else:
        # "what about tablets?": a new subject, the same budget and wishes about stock/sale.
        merged = replace(
            new,
            min_price=new.min_price if new.min_price is not None else previous.min_price,
            max_price=new.max_price if new.max_price is not None else previous.max_price,
            in_stock=new.in_stock if new.in_stock is not None else previous.in_stock,
            on_sale=new.on_sale if new.on_sale is not None else previous.on_sale,
        )
    reference = state.shown if continues else []
    if "cheaper" in u.asks:
        below = _min_price(reference) if reference else None
        if below is not None and new.max_price is None:
            merged = replace(
                merged, max_price=below, max_exclusive=True, min_price=None, around=None
            )
        if merged.sort == SORT_PRICIEST or not merged.sort:
            merged = replace(merged, sort="" if below is not None else SORT_CHEAPEST)
    if "pricier" in u.asks:
        above = _max_price(reference) if reference else None
        if above is not None and new.min_price is None:
            merged = replace(
                merged, min_price=above, min_exclusive=True, max_price=None, around=None
            )
        if merged.sort == SORT_CHEAPEST or not merged.sort:
            merged = replace(merged, sort="" if above is not None else SORT_PRICIEST)
    return merged, continues


def _merge(previous: Constraints, new: Constraints) -> Constraints:
    """A refinement: what the new message says replaces the same kind of wish, rest stays."""
    brands = new.brands or tuple(b for b in previous.brands if b not in new.exclude_brands)
    exclude = tuple(
        dict.fromkeys(
            [b for b in previous.exclude_brands if b not in new.brands] + list(new.exclude_brands)
        )
    )
    price_given = new.min_price is not None or new.max_price is not None
    return Constraints(
        terms=new.terms or previous.terms,
        category=new.category or previous.category,
        label=new.label if new.category else previous.label,
        brands=brands,
        exclude_brands=exclude,
        colors=new.colors or previous.colors,
        sizes=new.sizes or previous.sizes,
        materials=new.materials or previous.materials,
        genders=new.genders or previous.genders,
        age_groups=new.age_groups or previous.age_groups,
        min_price=new.min_price if price_given else previous.min_price,
        max_price=new.max_price if price_given else previous.max_price,
        around=new.around if price_given else previous.around,
        max_exclusive=new.max_exclusive if price_given else previous.max_exclusive,
        min_exclusive=new.min_exclusive if price_given else previous.min_exclusive,
        in_stock=new.in_stock if new.in_stock is not None else previous.in_stock,
        on_sale=new.on_sale if new.on_sale is not None else previous.on_sale,
        sort=new.sort or previous.sort,
    )


def _same_page(url: str, products: list[dict[str, Any]]) -> bool:
    if not url or not products:
        return False
    try:
        return canonicalize_url(url) == products[0].get("url")
    except InvalidUrlError:
        return False


def conversation_state(
    history: Sequence[Any], vocabulary: Vocabulary, *, default_language: str = ""
) -> ConversationState:
    """The state after the stored history (user messages and the replies to them), each
    message read as it was when answered (`default_language`: the storefront's)."""
    state = ConversationState()
    messages = recent_turns(list(history))
    for index, message in enumerate(messages):
        if message.type != "user":
            continue
        answer = messages[index + 1] if index + 1 < len(messages) else None
        products = (
            list(answer.products or []) if answer is not None and answer.type == "answer" else []
        )
        try:
            u = understand(message.content, vocabulary, default=default_language)
        except Exception:
            # A message that could not be read failed its own reply; it must not fail every
            # later one of the chat too: it is left out of the state.
            logger.exception("an earlier message of the chat could not be read")
            continue
        kind = classify(
            u, state, on_pdp=_same_page(message.current_url, products), url=message.current_url
        )
        if kind == NAMED and len(products) != 1:
            kind = SEARCH  # the name was not found: the reply was a search
        state_advance(state, u, kind, products)
        if products:
            state.shown_on = message.current_url
    return state


def recent_turns(messages: list[Any]) -> list[Any]:
    """The end of the history that holds its last HISTORY_TURNS user messages, as long as
    their texts fit in HISTORY_CHARS (an older message that does not fit ends the window)."""
    start, turns, chars = len(messages), 0, 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.type == "user":
            chars += len(message.content)
            if turns == HISTORY_TURNS or chars > HISTORY_CHARS:
                break
            turns += 1
        start = index
    return messages[start:]


def state_advance(
    state: ConversationState, u: Understanding, kind: Intent, products: list[dict[str, Any]]
) -> None:
    """Moves the state past one turn of `kind` whose reply showed `products`."""
    if kind == SEARCH:
        state.search, _ = next_search(u, state)
        state.shown_for_search = len(products)
        state.seen_for_search = list(products)
        if not products:
            state.search = None  # nothing came of it: there is nothing to refine
    elif kind == MORE:
        state.shown_for_search += len(products)
        state.seen_for_search = state.seen_for_search + list(products)
    if products:
        state.shown = products
        state.focus = products[0] if len(products) == 1 else None
    if kind in (SMALLTALK, OUT_OF_SCOPE):
        return
    state.asked = (
        frozenset(u.asks & PRODUCT_QUESTIONS) if kind in (PRODUCT, PAGE, NAMED) else frozenset()
    )
    if kind in (PRODUCT, PAGE, NAMED) and len(products) == 1:
        state.focus = products[0]
