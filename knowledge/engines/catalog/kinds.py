"""What kind of thing a product is, read from its own title: the head noun of the name.

English and German put the noun last ("Compact Digital Camera"), French, Spanish and Italian
first ("Yaourt nature", "Zapatillas de running"); the catalog's language (Organization.language)
says which.

Catalog categories are often broader than a kind ("Electronics > Computers" holds tablets,
keyboards and cables), so alternatives and comparisons keep to products whose title ends in
the same noun: a tablet's cheaper alternative is a tablet, a camera's is not a camera lens.
"""

from __future__ import annotations

import functools
from collections import Counter

from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog.understanding import singular
from knowledge.engines.catalog.vocabulary import title_head
from knowledge.language import LANGUAGES
from knowledge.language.vocabulary import language_data
from knowledge.models import Product
from knowledge.search.text import words


def product_kind(product: Product, language: str = "en") -> str:
    """The head noun of the product's title in the catalog's `language`, singular ("tablet"
    for "Tablet 32GB", "camera" for "Compact Digital Camera", "yaourt" for "Yaourt nature");
    its own colour, size, material and brand words are skipped."""
    own = set(words(f"{product.color} {product.size} {product.material} {product.brand}"))
    return singular(title_head(product.title, language, skip=own))


def same_kind(products: list[Product], kind: str, language: str = "en") -> list[Product]:
    """The products of `kind`; all of them when the kind is unknown."""
    if not kind:
        return products
    return [p for p in products if product_kind(p, language) == kind]


def _google_branch(product: Product) -> tuple[str, ...]:
    levels = [level.strip().lower() for level in product.google_product_category.split(">")]
    return tuple(level for level in levels if level)[:2]


def same_google_category(products: list[Product], base: Product) -> list[Product]:
    """The products in the base's branch of the Google product taxonomy (its first two
    levels: "Electronics > Computers"); all of them when the base has none."""
    branch = _google_branch(base)
    if len(branch) < 2:
        return products
    return [p for p in products if _google_branch(p) == branch]


# Words shorter than this say little of what a product is ("the", "with", "for").
_MIN_ALIKE_CHARS = 4
# An alternative alike enough to show shares at least this share of the likeliest's words.
_ALIKE_SHARE = 0.5


@functools.cache
def _general_kinds() -> frozenset[str]:
    """The general words for kinds of goods: the languages' glossaries' English words and
    the lexicon's category synonyms, singular."""
    said = {w for code in LANGUAGES if code != "en" for w in language_data(code).translations}
    said |= set(lx.CATEGORY_SYNONYMS)
    said |= {w for targets in lx.CATEGORY_SYNONYMS.values() for w in targets}
    return frozenset(singular(w) for w in said)


def general_kind(kind: str) -> bool:
    """Whether `kind` is a general word for a kind of goods ("tablet"), not a product's own
    name ("airpod")."""
    return kind in _general_kinds()


def most_alike(products: list[Product], base: Product) -> list[Product]:
    """The products most like the base by the words of their titles and descriptions, when its
    title names no kind they share ("Apple Airpods" among a category's speakers, chargers and
    earphones): the words they share with the base's, those fewer of them have counting more,
    and only those within _ALIKE_SHARE of the best; all of them, in order, when none shares."""
    said = {w for w in words(f"{base.title} {base.description}") if len(w) >= _MIN_ALIKE_CHARS}
    said -= set(words(base.brand))  # the maker's other products are not alike for it
    shared = {p.pk: said & set(words(f"{p.title} {p.description}")) for p in products}
    having = Counter(w for found in shared.values() for w in found)
    score = {pk: sum(1 / having[w] for w in found) for pk, found in shared.items()}
    best = max(score.values(), default=0)
    if not best:
        return products
    alike = [p for p in products if score[p.pk] >= best * _ALIKE_SHARE]
    return sorted(alike, key=lambda p: -score[p.pk])
