"""Product search in the shopper's terms, relaxing constraints one by one when nothing matches.

Wraps `knowledge.search.product_search`: decides which wishes become filters and which stay
words, ranks the candidates the way a shop assistant would (in stock first, nearest to an
"around" price), and when nothing matches finds the nearest thing and names what it relaxed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import partial
from itertools import pairwise
from typing import Any

from accounts.models import Organization
from knowledge.engines.catalog.kinds import product_kind
from knowledge.engines.catalog.lexicon import KIND_SYNONYMS, USE_SYNONYMS
from knowledge.engines.catalog.understanding import (
    AMOUNT_SORTS,
    SORT_BEST,
    SORT_CHEAPEST,
    SORT_PRICIEST,
    Constraints,
    singular,
)
from knowledge.engines.catalog.vocabulary import Vocabulary, phrase
from knowledge.models import Availability, Product, Store
from knowledge.products.descriptions import stated_amount
from knowledge.search import SearchFilters, product_search
from knowledge.search.text import fold, words

# How many candidates to rank before keeping the chatbot's `max_products`.
CANDIDATES = 24

# Relaxation order: the wishes a shopper gives up first come first.
_RELAXATIONS: list[tuple[str, tuple[str, ...]]] = [
    ("price", ("min_price", "max_price", "around")),
    ("colour", ("colors",)),
    ("size", ("sizes",)),
    ("material", ("materials",)),
    ("on sale", ("on_sale",)),
    ("in stock", ("in_stock",)),
    ("gender", ("genders",)),
    ("age group", ("age_groups",)),
    ("brand", ("brands",)),
    ("category", ("category",)),
]


@dataclass
class Found:
    """The outcome of one search step, ready for the `search_products` tool response."""

    constraints: Constraints  # what was asked
    used: Constraints  # what the products satisfy (after relaxing)
    products: list[Product]
    total: int
    relaxed: list[str] = field(default_factory=list)
    searched_terms: list[str] = field(default_factory=list)
    unmatched_terms: list[str] = field(default_factory=list)
    distinct_total: int | None = None  # products, variants counted once, when known

    @property
    def shown_total(self) -> int:
        """What the reply and the tool response call the number of matches: variants of one
        product (sizes, colours) count once when all matches were fetched."""
        return self.distinct_total if self.distinct_total is not None else self.total

    def tool_response(self, snapshots: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "total": self.shown_total,
            "filtersApplied": constraints_json(self.used),
            "filtersRelaxed": self.relaxed,
            "searchedTerms": self.searched_terms,
            "products": [
                {
                    "gtin": s["gtin"],
                    "designation": s["designation"],
                    "brand": s["brand"],
                    "price": s["price"],
                    "currency": s["currency"],
                    **({"availability": s["availability"]} if "availability" in s else {}),
                }
                for s in snapshots
            ],
        }


def constraints_json(constraints: Constraints) -> dict[str, Any]:
    """The constraints as plain JSON for tool arguments and responses (empty ones left out)."""
    body: dict[str, Any] = {}
    if constraints.terms:
        body["query"] = " ".join(constraints.terms)
    for name in ("category", "sort"):
        if getattr(constraints, name):
            body[name] = getattr(constraints, name)
    for name in (
        "brands",
        "exclude_brands",
        "colors",
        "sizes",
        "materials",
        "genders",
        "age_groups",
    ):
        if getattr(constraints, name):
            body[_camel(name)] = list(getattr(constraints, name))
    for name in ("min_price", "max_price", "around"):
        if getattr(constraints, name) is not None:
            body[_camel(name)] = float(getattr(constraints, name))
    for name in ("in_stock", "on_sale"):
        if getattr(constraints, name) is not None:
            body[_camel(name)] = getattr(constraints, name)
    return body


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _filters_and_words(
    constraints: Constraints, vocabulary: Vocabulary, store: Store | None
) -> tuple[SearchFilters, list[str], list[str]]:
    """Catalog attribute values become filters; other colour/material words are searched."""
    words = list(constraints.terms)
    colors = tuple(c for c in constraints.colors if phrase(c) in vocabulary.colors)
    words += [c.lower() for c in constraints.colors if c not in colors]
    materials = tuple(m for m in constraints.materials if phrase(m) in vocabulary.materials)
    words += [m.lower() for m in constraints.materials if m not in materials]
    # The category's and the brand's own words are in every such product's search text, so
    # searching them too changes no result but lets the text index narrow a large catalog
    # before the (unindexed) category and brand conditions run.
    hints = phrase(constraints.category.split(">")[-1]).split() if constraints.category else []
    if len(constraints.brands) == 1:
        hints += phrase(constraints.brands[0]).split()
    hints = [w for w in hints if w not in words and w != "and"]
    words += hints
    cent = Decimal("0.01")
    filters = SearchFilters(
        min_price=(
            constraints.min_price + cent
            if constraints.min_price is not None and constraints.min_exclusive
            else constraints.min_price
        ),
        max_price=(
            constraints.max_price - cent
            if constraints.max_price is not None and constraints.max_exclusive
            else constraints.max_price
        ),
        brands=constraints.brands,
        exclude_brands=constraints.exclude_brands,
        category=constraints.category,
        in_stock=constraints.in_stock,
        store=store if constraints.in_stock else None,
        colors=colors,
        sizes=constraints.sizes,
        materials=materials,
        genders=constraints.genders,
        age_groups=constraints.age_groups,
        on_sale=constraints.on_sale,
    )
    return filters, words, hints


def _sort_for(constraints: Constraints) -> str:
    if constraints.sort == SORT_CHEAPEST:
        return "price_asc"
    if constraints.sort == SORT_PRICIEST:
        return "price_desc"
    return "relevance"


@dataclass
class Attempt:
    """One search: products matching every word, and those matching only some of them."""

    exact: list[Product]
    loose: list[Product]
    total: int
    terms: list[str]
    unmatched: list[str]


def matches_all(product: Product, words: list[str]) -> bool:
    """Whether every word is in the product's text (the search's own any-word fallback may
    return products matching only some of them)."""
    text = fold(
        " ".join(
            (
                product.title,
                product.brand,
                product.product_type,
                product.google_product_category,
                product.color,
                product.material,
                product.description,
            )
        )
    )
    return all(singular(fold(word))[:5] in text for word in words)


def _matches_any(product: Product, words: list[str]) -> bool:
    return any(matches_all(product, [word]) for word in words)


def _in_title_or_description(product: Product, word: str) -> bool:
    text = fold(f"{product.title} {product.description}")
    return singular(fold(word))[:5] in text


def _named_first(
    products: list[Product], said: list[str], synonyms: dict[str, tuple[str, ...]]
) -> list[Product]:
    """Without the products a word (or a synonym of it) finds only through their category's
    name when others are named by it: "riz" finds every product of "Céréales, pâtes et riz",
    but the rice is what has it in its title."""
    for word in said:
        if not any(_named_by(p, [word]) for p in products):
            continue
        forms = (word, *synonyms.get(word, ()))
        products = [p for p in products if any(_in_title_or_description(p, w) for w in forms)]
    return products


def _with_letters(products: list[Product], said: list[str], letters: list[str]) -> list[Product]:
    """The products whose title has a said word followed by each letter ("iPhone X" for
    "iphone x"), when some have; else all of them."""
    if not letters:
        return products
    wanted = {f"{word} {letter}" for word in said for letter in letters}

    def has(product: Product) -> bool:
        title = words(product.title)
        pairs = {f"{a} {b}" for a, b in pairwise(title)}
        return all(any(f" {letter}" in pair for pair in pairs & wanted) for letter in letters)

    return [p for p in products if has(p)] or products


def _named_by(product: Product, said: list[str]) -> bool:
    title = {singular(word) for word in words(product.title)}
    return any(singular(word) in title for word in said)


def search_once(
    *,
    organization: Organization,
    vocabulary: Vocabulary,
    constraints: Constraints,
    store: Store | None,
    offset: int = 0,
    exclude_item_ids: tuple[str, ...] = (),
    other_words: bool = False,
) -> Attempt:
    """One search for `constraints`; `other_words`: a kind of goods also searched by the
    other words for it (lexicon.KIND_SYNONYMS)."""
    filters, words, hints = _filters_and_words(constraints, vocabulary, store)
    # A model's letter ("iphone x") is no search word: it picks among the word's products.
    letters = [w for w in words if len(w) == 1 and not w.isdigit()]
    words = [w for w in words if w not in letters]
    if exclude_item_ids:
        filters = replace(filters, exclude_item_ids=exclude_item_ids)
    sort = _sort_for(constraints)
    if (
        sort == "relevance"
        and not words
        and (
            constraints.sort == SORT_BEST
            or (constraints.max_price is not None and constraints.min_price is None)
        )
    ):
        sort = "price_desc"
    tables = (USE_SYNONYMS, KIND_SYNONYMS) if other_words else (USE_SYNONYMS,)
    synonyms = {w: table[w] for table in tables for w in words if w in table}
    result = product_search(
        organization=organization,
        query=" ".join(words),
        filters=filters,
        sort=sort,
        limit=CANDIDATES,
        offset=offset,
        spellings=vocabulary.spellings,
        synonyms=synonyms,
    )
    unmatched = [w for w in words if w not in result.terms]
    said = [w for w in words if w not in hints]
    # Each word the shopper said, or the catalog words the search took for it ("poisson":
    # "poissonnerie"), any of which matches.
    groups = [
        [w, *synonyms.get(w, ())] if w in result.terms else vocabulary.spellings.get(w, [])
        for w in dict.fromkeys(said)
    ]
    # The search drops a word no product has ("purple" laptops): then nothing is exact.
    dropped = any(not group for group in groups)
    exact = (
        []
        if dropped
        else [p for p in result.products if all(_matches_any(p, group) for group in groups)]
    )
    named = _with_letters(_named_first(exact, said, synonyms), words, letters)
    if named:
        # Fewer than the search counted: the others were found by their category's name only.
        total = result.total if len(named) == len(exact) else len(named)
        return Attempt(named, [], total, result.terms, unmatched)
    return Attempt([], result.products, 0, result.terms, unmatched)


def distinct_total(products: list[Product], total: int, offset: int = 0) -> int | None:
    """How many distinct products match, when the candidates fetched were all of them."""
    if offset or total > len(products):
        grouped = any(p.item_group_id for p in products)
        return None if grouped else total
    return len(one_per_group(products))


def _group_key(product: Product) -> str:
    """Variants differing only in their attributes (colour, size, material) are one product;
    variants a feed tells apart only by title ("Gaming PC i7-8700" and "R7-2700", with no
    attribute) are products of their own."""
    if not product.item_group_id:
        return f"item:{product.pk}"
    own = set(words(f"{product.color} {product.size} {product.material}"))
    if own:
        return product.item_group_id
    return f"{product.item_group_id}:{product.title.lower()}"


def one_per_group(products: list[Product]) -> list[Product]:
    """Variants of one product (same `item_group_id`) are shown once: an in-stock one before
    one out of stock, then one on sale for less than the first (the blue phone at 449 beside the black
    one at 499), else the first the search ranked."""
    chosen: dict[str, Product] = {}
    order: list[str] = []

    def better(product: Product, current: Product) -> bool:
        in_stock = product.availability == Availability.IN_STOCK
        current_in_stock = current.availability == Availability.IN_STOCK
        if in_stock != current_in_stock:
            return in_stock
        on_sale = product.sale_price is not None and product.sale_price < product.price
        return on_sale and product.current_price < current.current_price

    for product in products:
        key = _group_key(product)
        current = chosen.get(key)
        if current is None:
            chosen[key] = product
            order.append(key)
        elif better(product, current):
            chosen[key] = product
    return [chosen[key] for key in order]


def rank(products: list[Product], constraints: Constraints) -> list[Product]:
    """A shop assistant's order: the asked sort, in-stock before out-of-stock otherwise."""
    products = one_per_group(products)
    if constraints.around is not None:
        target = constraints.around
        return sorted(products, key=lambda p: (abs(p.current_price - target), p.current_price))
    if constraints.sort in (SORT_CHEAPEST, SORT_PRICIEST):
        return products

    def in_stock_first(p: Product) -> bool:
        return p.availability != Availability.IN_STOCK

    if constraints.sort == SORT_BEST:
        return sorted(products, key=lambda p: (in_stock_first(p), -p.current_price))
    if constraints.sort in AMOUNT_SORTS:
        return sorted(products, key=lambda p: (in_stock_first(p), amount_order(p, constraints)))
    if constraints.terms:
        return sorted(products, key=in_stock_first)  # the backend's relevance, stable
    if constraints.max_price is not None and constraints.min_price is None:
        # Browsing within a budget: the most the budget buys first.
        return sorted(products, key=lambda p: (in_stock_first(p), -p.current_price))
    if constraints.max_price is not None:
        # Browsing a price band ("between 12 and 15"): up from its low end.
        return sorted(products, key=lambda p: (in_stock_first(p), p.current_price))
    # Browsing a category: what is in stock and on sale first.
    return sorted(products, key=lambda p: (in_stock_first(p), -discount_share(p)))


def amount_order(product: Product, constraints: Constraints) -> tuple[bool, Decimal]:
    """The product's place in an order by an amount its description states ("low calorie":
    fewest kcal first); those stating none last, in the order they came."""
    if constraints.sort not in AMOUNT_SORTS:
        return False, Decimal(0)
    asked, direction = AMOUNT_SORTS[constraints.sort]
    stated = stated_amount(product, asked)
    return stated is None, Decimal(0) if stated is None else direction * stated.amount


def discount_share(product: Product) -> Decimal:
    if product.sale_price is None or product.sale_price >= product.price or not product.price:
        return Decimal(0)
    return (product.price - product.sale_price) / product.price


def _nearest_to_range(products: list[Product], asked: Constraints) -> list[Product]:
    """After dropping a price range: the products whose price comes nearest to it first."""
    low = asked.min_price if asked.min_price is not None else Decimal(0)
    high = asked.max_price if asked.max_price is not None else low

    def distance(p: Product) -> Decimal:
        price = p.current_price
        return low - price if price < low else (price - high if price > high else Decimal(0))

    return sorted(products, key=distance)


def _without(constraints: Constraints, names: tuple[str, ...]) -> Constraints:
    changes: dict[str, Any] = {}
    for name in names:
        value = getattr(constraints, name)
        if value in (None, "", ()):
            continue
        changes[name] = (
            None
            if name in ("min_price", "max_price", "around", "in_stock", "on_sale")
            else type(value)()
        )
    if "max_price" in changes or "around" in changes:
        changes.setdefault("sort", SORT_CHEAPEST if constraints.max_price is not None else "")
    if "min_price" in changes and constraints.max_price is None:
        changes["sort"] = SORT_CHEAPEST
    return replace(constraints, **changes) if changes else constraints


def find(
    *,
    organization: Organization,
    vocabulary: Vocabulary,
    constraints: Constraints,
    store: Store | None,
    offset: int = 0,
    exclude_item_ids: tuple[str, ...] = (),
    relax: bool = True,
    keep: tuple[str, ...] = (),
) -> Found:
    """The best products for `constraints`; if none, the nearest with relaxed constraints.

    `keep` names wishes never relaxed (e.g. "category" when showing more of a search).
    """
    search = partial(
        search_once,
        organization=organization,
        vocabulary=vocabulary,
        store=store,
        exclude_item_ids=exclude_item_ids,
    )
    first = search(constraints=constraints, offset=offset)
    if first.exact or (offset and not first.loose) or (not relax and not first.loose):
        return Found(
            constraints=constraints,
            used=constraints,
            products=rank(first.exact, constraints),
            total=first.total,
            distinct_total=distinct_total(first.exact, first.total, offset),
            searched_terms=first.terms,
            unmatched_terms=first.unmatched,
        )
    if relax and not _sharing_words(first, constraints):
        # Nothing within the wishes has the shopper's words: the kind said another way
        # ("headphones" in a catalog of "Earphones") before any wish is given up.
        found = _relaxed_search(constraints, [], partial(search, other_words=True))
        if found is not None:
            return found
    for plan in _relaxation_plans(constraints, relax=relax, keep=keep):
        found = _relaxed_search(constraints, plan, search)
        if found is not None:
            return found
    return _closest(constraints, first, search, organization.language)


_Relaxation = tuple[str, tuple[str, ...]]


def _relaxation_plans(
    constraints: Constraints, *, relax: bool, keep: tuple[str, ...]
) -> list[list[_Relaxation]]:
    """The wishes to give up, plan by plan: as little as possible, one wish at a time first,
    in the order shoppers give them up; only if no single one helps, one after the other."""
    present = [
        (label, names)
        for label, names in (_RELAXATIONS if relax else [])
        if label not in keep and _without(constraints, names) != constraints
    ]
    # At most three single tries (each is a search) before giving up several at once.
    plans = [[entry] for entry in present[:3]]
    if len(present) > 1:
        plans.append(present)
    return plans


def _relaxed_search(
    constraints: Constraints, plan: list[_Relaxation], search: Callable[..., Attempt]
) -> Found | None:
    """The products found without the plan's wishes, or None when there are none."""
    used = constraints
    relaxed: list[str] = []
    for label, names in plan:
        used = _without(used, names)
        relaxed.append(label)
    if "price" in relaxed and constraints.min_price is not None and constraints.max_price is None:
        # "over 5,000" relaxed: the priciest below it come nearest.
        used = replace(used, sort=SORT_PRICIEST)
    attempt = search(constraints=used)
    if not attempt.exact:
        return None
    ranked = rank(attempt.exact, used)
    if "price" in relaxed and (constraints.min_price is not None or constraints.around):
        ranked = _nearest_to_range(ranked, constraints)
    return Found(
        constraints=constraints,
        used=used,
        products=ranked,
        total=attempt.total,
        distinct_total=distinct_total(attempt.exact, attempt.total),
        relaxed=relaxed,
        searched_terms=attempt.terms,
        unmatched_terms=attempt.unmatched,
    )


def _sharing_words(first: Attempt, constraints: Constraints) -> list[Product]:
    """The products of the first search sharing a word with the message."""
    said = [w for w in constraints.terms if len(w) > 2 or (len(w) == 2 and not w.isdigit())]
    return [p for p in first.loose if any(_shares(p, w) for w in said)] if said else []


def _closest(
    constraints: Constraints, first: Attempt, search: Callable[..., Attempt], language: str
) -> Found:
    """Nothing has every word, even with the other wishes relaxed: the closest matches of the
    first search, still within every other wish, with "words" named as what was relaxed."""
    # The search's any-word fallback and typo correction may bring products that share no
    # word with the message at all ("return policy"): those are not close matches.
    said = [w for w in constraints.terms if len(w) > 2 or (len(w) == 2 and not w.isdigit())]
    loose = _sharing_words(first, constraints)
    if len(said) == 2 and said[-1] in first.unmatched and not constraints.category:
        # A thing named in two words, the last of which no product has ("dog food" in a shop
        # without food): a product whose description shares the other word is not it; one
        # whose name does may be ("a gift for a tennis fan": the Tennis Ball). Longer
        # messages describe a need ("for my dog to play fetch with"), kept as they are.
        loose = [p for p in loose if _named_by(p, said)]
    loose = _closest_first(loose, said, language, constraints)
    if not loose and constraints.category and constraints.terms:
        return _shelf_without_words(constraints, first, search)
    if not loose:
        return Found(
            constraints=constraints,
            used=constraints,
            products=[],
            total=0,
            relaxed=[],
            searched_terms=first.terms,
            unmatched_terms=first.unmatched,
        )
    return Found(
        constraints=constraints,
        used=constraints,
        # In the closeness order: an order by amount only breaks its ties (_closest_first).
        products=rank(loose, replace(constraints, sort="")),
        total=len(loose),
        distinct_total=len(one_per_group(loose)),
        relaxed=["words"],
        searched_terms=first.terms,
        unmatched_terms=first.unmatched,
    )


def _closest_first(
    products: list[Product], said: list[str], language: str, constraints: Constraints
) -> list[Product]:
    """The products sharing most of the shopper's words first ("dry on a rainy walk"); among
    those sharing as many, the ones whose kind is a said word ("un yaourt léger": the yogurts
    before the light mozzarella), then in the asked order of an amount ("peu calorique"),
    then those sharing the words fewer of them have ("for my dog to play fetch with": "dog"
    before "play")."""
    shared = {p.pk: [w for w in said if _shares(p, w)] for p in products}
    having = Counter(w for found in shared.values() for w in found)
    kinds = {singular(w) for w in said}
    return sorted(
        products,
        key=lambda p: (
            -len(shared[p.pk]),
            product_kind(p, language) not in kinds,
            amount_order(p, constraints),
            -sum(1 / having[w] for w in shared[p.pk]),
        ),
    )


def _shares(product: Product, word: str) -> bool:
    """Whether the product's text has the word; a two-letter one ("VR", "4K") as a whole word
    of its title or description, not inside another."""
    if len(word) > 2:
        return matches_all(product, [word])
    return word in words(f"{product.title} {product.description}")


def _shelf_without_words(
    constraints: Constraints, first: Attempt, search: Callable[..., Attempt]
) -> Found:
    """A shelf named with words none of its products has ("un truc sucré pour le goûter"):
    the shelf's products within the other wishes, the words named as what was relaxed."""
    used = replace(constraints, terms=())
    attempt = search(constraints=used)
    return Found(
        constraints=constraints,
        used=used,
        products=rank(attempt.exact, used),
        total=attempt.total,
        distinct_total=distinct_total(attempt.exact, attempt.total),
        relaxed=["words"] if attempt.exact else [],
        searched_terms=first.terms,
        unmatched_terms=first.unmatched,
    )
