"""The products a message points at: the page's product, products shown earlier ("the second
one", "it", "them") and products it names ("the Dior J'adore"), looked up as the decision
step needs them (`pointed_at`). Name look-ups are catalog searches, published as tool calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext

from knowledge.engines.catalog import dialogue as dl
from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog.lexicon import FILLER_WORDS
from knowledge.engines.catalog.replies_search import nearest_of_kind
from knowledge.engines.catalog.tools import product_summary, products_from_snapshots
from knowledge.engines.catalog.turn import Turn
from knowledge.engines.catalog.understanding import Constraints, Understanding, singular
from knowledge.models import Product
from knowledge.products.descriptions import amount_words
from knowledge.search import product_search
from knowledge.search.text import fold, words

_COMPARE_SPLIT = re.compile(r"\b(?:and|vs|versus|with|to|or|against)\b|,")
# Names looked up in one comparison: each is a catalog search, and four products are compared
# at most, so "compare a and b and c and ..." costs a few searches, not one per name.
_COMPARE_LOOKUPS = 4
_COMPARE_LEAD = re.compile(
    r"^.*?\b(?:compare|comparison of|difference between|differences between|better)\b"
)
# Words of a comparison that point at products shown, never name one.
_COMPARE_POINTERS = frozenset(
    {
        "it",
        "this",
        "that",
        "one",
        "the",
        "them",
        "these",
        "those",
        "two",
        "first",
        "second",
        "third",
        "both",
    }
)

# Questions whose words may be a product's name ("Light Shade", "Pixelon Fit").
_ASK_WORDS = {
    "colors": lx.COLOR_QUESTION,
    "sizes": lx.SIZE_QUESTION,
    "material": lx.MATERIAL_QUESTION,
}


@dataclass(frozen=True)
class Pointed:
    """The products a message points at, and what to say first when it points past the
    products shown ("I only showed one product...")."""

    products: tuple[Product, ...] = ()
    note: str = ""


def pointed_at(turn: Turn) -> Pointed:
    """The products the turn's intent is about: those to compare, the base of "similar ones",
    those shown that it points at, or the one it names."""
    if turn.intent == dl.COMPARE:
        products = compare_targets(turn)
        if len(products) == 1 and turn.reading.another:
            other = nearest_of_kind(turn.context, turn.tools, products[0])
            products += [other] if other is not None else []
        return Pointed(tuple(products))
    if turn.intent in (dl.SIMILAR, dl.GOES_WITH):
        base = referenced(turn, turn.page) or named(turn)
        return Pointed(() if base is None else (base,))
    if turn.intent == dl.PRODUCT:
        return shown_pointed_at(turn)
    if turn.intent == dl.NAMED:
        product = named(turn)
        return Pointed(() if product is None else (product,))
    return Pointed()


# A question for an amount ("how much protein?", "what's the weight of one?"), and questions
# about a page that are not about an amount of something its description gives.
_AMOUNT_QUESTION = re.compile(r"\b(how (much|many)|what|which)\b")
_OTHER_QUESTIONS = frozenset(
    {"availability", "colors", "sizes", "material", "brand", "category", "compare", "similar"}
)


def _asked_amount(u: Understanding, page: Product) -> Understanding | None:
    """ "How much protein is in it?" on a page whose description gives an amount of protein:
    a question about the page answered from its description, not a search nor its price."""
    if not _AMOUNT_QUESTION.search(u.normalized) or u.topic or u.asks & _OTHER_QUESTIONS:
        return None
    # "Which tablets have a 13 inch screen?" on a laptop's page searches tablets.
    if u.constraints.category or u.constraints.brands:
        return None
    title = set(words(page.title))
    asked = [t for t in u.constraints.terms if not set(words(t)) & title and not t.isdigit()]
    amounts = amount_words(page, asked)
    if not amounts:
        return None
    constraints = replace(u.constraints, terms=tuple(amounts), category="", brands=())
    asks = (u.asks - {"price"}) | {"details"}
    return replace(u, constraints=constraints, asks=asks, topic="", pronoun=True)


def about_page(u: Understanding, page: Product) -> Understanding:
    """The message read as being about the page's product when it names it.

    "Which stores have the Red Lipstick in stock?" on the Red Lipstick's page: the name's
    words are not a search ("red" is not a colour wish here), they point at the product.
    """
    if asked := _asked_amount(u, page):
        return asked
    said = set(words(u.normalized))
    title = {w for w in words(page.title) if (len(w) > 1 or w.isdigit()) and w not in FILLER_WORDS}
    named = title & said
    if not title or len(named) < min(2, len(title)) or len(named) / len(title) < 0.5:
        return u
    c = u.constraints
    in_title = {w.lower() for w in (*c.colors, *c.materials)} & set(words(page.title))
    # "the Pixelon Fit Smartwatch": "fit" is its name here, not a question about fit.
    named_words = " ".join(words(page.title))
    topic = u.topic
    if topic and lx.TOPICS[topic][0].search(named_words):
        topic = ""
    # "the Light Shade": "shade" names it, it does not ask for its colours.
    asks = {
        ask for ask in u.asks if ask not in _ASK_WORDS or not _ASK_WORDS[ask].search(named_words)
    }
    return replace(
        u,
        constraints=_without_page_words(u, page, title, in_title),
        topic=topic,
        asks=asks,
        pronoun=True,
        asked_color="" if u.asked_color.lower() in in_title else u.asked_color,
        name_words=tuple(w for w in u.name_words if w not in title),
    )


def _without_page_words(
    u: Understanding, page: Product, title: set[str], in_title: set[str]
) -> Constraints:
    """The message's wishes without the words that name the page's product."""
    title_stems = {singular(w) for w in title} | set(words(page.brand))
    c = u.constraints
    return replace(
        c,
        terms=tuple(
            t
            for t in c.terms
            if singular(t) not in title_stems and t not in title and not set(words(t)) <= title
        ),
        # Its own brand, or a brand whose words are its name ("the Apple" on a fruit's page).
        brands=tuple(
            b for b in c.brands if b.lower() != page.brand.lower() and not set(words(b)) <= title
        ),
        # "Cat Food" reads as groceries, "Trainers" as footwear: the page's own category.
        category=(
            ""
            if c.category
            and (
                {singular(w) for w in words(c.category)} & title_stems
                or fold(c.category) in fold(page.category)
                or (c.label and singular(c.label) in title_stems)  # "Drink" read as beverages
            )
            else c.category
        ),
        colors=tuple(x for x in c.colors if x.lower() not in in_title),
        materials=tuple(x for x in c.materials if x.lower() not in in_title),
    )


def from_snapshots(turn: Turn, snapshots: list[dict[str, Any]]) -> list[Product]:
    return products_from_snapshots(turn.organization, snapshots)


def shown_pointed_at(turn: Turn) -> Pointed:
    """Products of the last reply the message points at: ordinals, "it", or all of them."""
    u, shown = turn.reading, turn.state.shown
    if u.ordinals and shown:
        note = ""
        if max(u.ordinals) > len(shown):
            # "the second one" after a single product: say so, then answer for it.
            note = (
                gettext("I only showed one product just now, so this is about that one.")
                if len(shown) == 1
                else gettext(
                    "I only showed %(count)s products just now, so this is about the last one."
                )
                % {"count": len(shown)}
            ) + " "
        picked = [shown[min(n, len(shown)) - 1 if n > 0 else -1] for n in u.ordinals]
        unique = list({id(s): s for s in picked}.values())
        return Pointed(tuple(from_snapshots(turn, unique)), note)
    if u.other_one and turn.state.focus is not None:
        other = _other_one(turn.state)
        if other is not None:
            return Pointed(tuple(from_snapshots(turn, [other])))
        if len(shown) <= 1:
            # "And the other one?" when one product was shown: there is no other; say so.
            note = gettext("I only showed one product just now, so this is about that one.")
            return Pointed(tuple(from_snapshots(turn, [turn.state.focus])), note + " ")
        return Pointed()
    if turn.state.focus is not None and not u.plural_reference:
        return Pointed(tuple(from_snapshots(turn, [turn.state.focus])))
    if u.pronoun and not u.plural_reference and len(shown) > 1:
        return Pointed()  # "it" with several in view: the reply asks which one
    return Pointed(tuple(from_snapshots(turn, shown)))


def _other_one(state: dl.ConversationState) -> dict[str, Any] | None:
    """ "The other one": of the two products last shown (or found by the search being
    refined), the one not in focus; None when that is not one product."""
    focus_url = (state.focus or {}).get("url")
    for candidates in (state.shown, state.seen_for_search):
        others = [p for p in candidates if p.get("url") != focus_url]
        if len(candidates) == 2 and len(others) == 1:
            return others[0]
    return None


def referenced(turn: Turn, page: Product | None) -> Product | None:
    """The one product the message is about: the one it points at, the page's, the one in
    focus or the first shown."""
    state = turn.state
    if turn.reading.ordinals and state.shown:
        found = shown_pointed_at(turn).products
        return found[0] if found else None
    if page is not None and not state.one_shown_on(turn.request.current_url):
        return page
    if state.focus is not None:
        focused = from_snapshots(turn, [state.focus])
        return focused[0] if focused else None
    if state.shown:
        first = from_snapshots(turn, state.shown[:1])
        return first[0] if first else None
    return None


def named(turn: Turn, text: str | None = None, exclude: tuple[int, ...] = ()) -> Product | None:
    """The catalog product the message names ("the Dior J'adore"), when it clearly names one."""
    u = turn.reading
    if text is None:
        said = set(words(u.normalized))
        query_words = list(u.name_words)
        needed = {singular(w) for w in words(" ".join(u.constraints.terms)) if len(w) > 1}
    else:
        said = set(words(text))
        query_words = [w for w in words(text) if len(w) > 1]
        needed = {singular(w) for w in query_words if w not in FILLER_WORDS}
    if not query_words:
        return None
    args = {"query": " ".join(query_words), "purpose": "find the product named"}

    def lookup() -> list[Product]:
        return product_search(
            organization=turn.organization,
            query=args["query"],
            limit=5,
            spellings=turn.vocabulary.spellings,
        ).products

    candidates = turn.tools.run(
        "search_products",
        args,
        lookup,
        lambda found: {"products": [product_summary(p) for p in found]},
    )
    return _best_named(candidates, said=said, needed=needed, exclude=exclude)


def _best_named(
    candidates: list[Product], *, said: set[str], needed: set[str], exclude: tuple[int, ...]
) -> Product | None:
    """The candidate whose name the shopper said, if one clearly stands out."""
    scored: list[tuple[float, Product]] = []
    for product in candidates:
        if product.pk in exclude:
            continue
        title_words = {w for w in words(product.title) if len(w) > 1 or w.isdigit()}
        if not title_words:
            continue
        # Every word the shopper used to name it is in its name, and most of its name
        # was said: "the iPhone X", not "Apple accessories" for the AirPods.
        brand_words = set(words(product.brand))
        if not needed <= {singular(w) for w in title_words} | brand_words:
            continue
        coverage = len(title_words & said) / len(title_words)
        scored.append((coverage, product))
    scored.sort(key=lambda pair: -pair[0])
    # Variants of one product are one candidate, not a tie between two.
    groups: set[str] = set()
    distinct: list[tuple[float, Product]] = []
    for score, product in scored:
        group = product.item_group_id or f"item:{product.pk}"
        if group not in groups:
            groups.add(group)
            distinct.append((score, product))
    # Half its name is enough when no other product has the words said ("the iPad Mini").
    if not distinct or distinct[0][0] < (0.5 if len(distinct) == 1 else 0.6):
        return None
    if len(distinct) > 1 and distinct[1][0] == distinct[0][0] and distinct[0][0] < 1:
        return None
    return distinct[0][1]


def compare_targets(turn: Turn) -> list[Product]:
    """The products to compare: those pointed at or in view, then those the message names."""
    u, page, shown = turn.reading, turn.page, turn.state.shown
    products: list[Product] = []
    if u.ordinals and shown:
        products = list(shown_pointed_at(turn).products)
    if len(products) < 2 and (u.pronoun or (page is not None and not u.ordinals)):
        base = page or referenced(turn, None)
        if base is not None and base not in products:
            products.insert(0, base)
    tail = _COMPARE_LEAD.sub("", u.normalized)
    looked_up = 0
    for part in _COMPARE_SPLIT.split(tail):
        if len(products) >= 4 or looked_up >= _COMPARE_LOOKUPS:
            break
        if not [w for w in words(part) if w not in _COMPARE_POINTERS]:
            continue
        looked_up += 1
        found = named(turn, part, exclude=tuple(p.pk for p in products))
        if found is not None:
            products.append(found)
    if len(products) < 2 and len(shown) >= 2 and not u.ordinals:
        products = from_snapshots(turn, shown[: 4 if "them" in u.normalized else 2])
    return products
