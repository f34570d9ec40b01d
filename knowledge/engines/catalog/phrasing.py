"""Sentences of the catalog engine's replies: how a search, a product and a reason read.

Only catalog values and the shopper's own numbers appear in the text
(docs/api.md#catalog-and-assistant), so every
figure here comes from a Product, a StoreInventory row or the shopper's constraints.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from decimal import Decimal
from itertools import pairwise

from django.utils.translation import gettext

from knowledge.engines.catalog.finding import matches_all
from knowledge.engines.catalog.snapshots import discount_percent, money, stock_of
from knowledge.engines.catalog.understanding import (
    AMOUNT_SORTS,
    SORT_BEST,
    SORT_CHEAPEST,
    SORT_PRICIEST,
    Constraints,
    singular,
)
from knowledge.language import NOUN_FIRST
from knowledge.language.folding import fold
from knowledge.language.formatting import reply_language
from knowledge.language.reading import canonical_text
from knowledge.models import Availability, Product, Store, StoreInventory
from knowledge.products.descriptions import stated_amount


def join(items: Sequence[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    word = {"and": gettext("and"), "or": gettext("or")}.get(word, word)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def amount(value: Decimal | None, currency: str) -> str:
    if value is None:
        return ""
    if value == value.to_integral_value() and reply_language() == "en":
        text = f"{int(value):,}"
        symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency.upper(), "")
        return f"{symbol}{text}" if symbol else f"{text} {currency.upper()}".strip()
    return money(value, currency) if currency else f"{value:,.2f}"


_SAID_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
# The shopper's latest words looked through for those a reply quotes, and for the words it
# read as English (each read costs a stemming: the search words come from the last message).
_QUOTED_WORDS = 300
_TRANSLATED_WORDS = 60


def price_phrase(c: Constraints, currency: str) -> str:
    if c.around is not None:
        return gettext("around %(amount)s") % {"amount": amount(c.around, currency)}
    if c.min_price is not None and c.max_price is not None:
        return gettext("between %(low)s and %(high)s") % {
            "low": amount(c.min_price, currency),
            "high": amount(c.max_price, currency),
        }
    if c.max_price is not None and c.max_exclusive:
        return gettext("cheaper than %(amount)s") % {"amount": amount(c.max_price, currency)}
    if c.max_price is not None:
        return gettext("under %(amount)s") % {"amount": amount(c.max_price, currency)}
    if c.min_price is not None:
        return gettext("over %(amount)s") % {"amount": amount(c.min_price, currency)}
    return ""


def subject_phrase(c: Constraints, count: int | None = None) -> str:
    """What is searched for: "smartphones", "leather bags"; singular when `count` is 1."""
    if c.category:
        subject = (c.label or c.category.split(">")[-1].strip()).lower()
    elif c.terms:
        subject = " ".join(c.terms)
        if count != 1:
            subject = plural(subject)
    elif c.brands and count == 1:
        return ""  # "our most affordable Rolex"
    else:
        subject = gettext("products")
    if c.terms and c.category and not set(c.terms) & set(subject.split()):
        said = " ".join(c.terms)
        # "wireless headphones", but "auriculares inalámbricos": the noun first in a reply in
        # French, Spanish or Italian.
        subject = f"{subject} {said}" if reply_language() in NOUN_FIRST else f"{said} {subject}"
    if count == 1:
        head, _, last = subject.rpartition(" ")
        subject = f"{head} {singular(last)}".strip()
    return subject


def plural(text: str) -> str:
    """The English plural of the last word; in another reply language the words as they are
    (the shopper's own, whose plural English rules would get wrong: "crémeuxes")."""
    if reply_language() != "en":
        return text
    head, _, last = text.rpartition(" ")
    # A model's number or letter ("iphone 6", "iphone x") has no plural.
    if len(last) < 2 or last[-1].isdigit() or last.endswith(("s", "ing", "z")):
        return text
    if last.endswith(("ch", "sh", "x")):
        last += "es"
    elif last.endswith(("arf", "alf", "elf", "olf", "eaf")):
        last = last[:-1] + "ves"  # scarves, shelves, leaves
    elif last.endswith("ife"):
        last = last[:-2] + "ves"  # knives
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}".strip()


def describe(
    c: Constraints, currency: str = "", *, with_sort: bool = True, count: int | None = None
) -> str:
    """The search in words: "black Nike shoes under $100, on sale, not Apple"."""
    words: list[str] = []
    if with_sort and c.sort == SORT_CHEAPEST:
        words.append(gettext("cheapest"))
    elif with_sort and c.sort == SORT_PRICIEST:
        words.append(gettext("most expensive"))
    elif with_sort and c.sort == SORT_BEST:
        words.append(gettext("top"))
    words += [x.lower() for x in c.colors]
    words += [x.lower() for x in c.materials]
    words += list(c.brands[:1]) if len(c.brands) == 1 else []
    words.append(subject_phrase(c, count))
    text = " ".join(w for w in words if w)
    if len(c.brands) > 1:
        text += " " + gettext("from %(brand)s") % {"brand": join(list(c.brands), "or")}
    if c.genders:
        people = {"male": gettext("men"), "female": gettext("women")}
        whom = join([people.get(g.lower(), g.lower()) for g in c.genders], "or")
        text += " " + gettext("for %(whom)s") % {"whom": whom}
    if c.sizes:
        text += " " + gettext("in size %(sizes)s") % {"sizes": join(list(c.sizes), "or")}
    extras = [price_phrase(c, currency)]
    if c.on_sale:
        extras.append(gettext("on sale"))
    if c.in_stock:
        extras.append(gettext("in stock"))
    if c.exclude_brands:
        extras.append(
            gettext("not from %(brands)s") % {"brands": join(list(c.exclude_brands), "or")}
        )
    extras = [e for e in extras if e]
    if extras:
        text += " " + ", ".join(extras)
    return text


def stock_phrase(product: Product, store: Store | None, row: StoreInventory | None) -> str:
    status, quantity = stock_of(product, store, row)
    values = {"store": store.name or store.code if store is not None else "", "count": quantity}
    if status == Availability.IN_STOCK:
        if quantity and store is not None:
            return gettext("in stock at %(store)s (%(count)s available)") % values
        if quantity:
            return gettext("in stock (%(count)s available)") % values
        return gettext("in stock at %(store)s") % values if store else gettext("in stock")
    if status == Availability.PREORDER:
        return gettext("available to pre-order")
    if status == Availability.BACKORDER:
        return gettext("on backorder")
    if store is not None:
        return gettext("out of stock at %(store)s") % values
    return gettext("out of stock")


def price_text(product: Product) -> str:
    percent = discount_percent(product)
    now = money(product.current_price, product.currency)
    if percent:
        return gettext("%(now)s (%(percent)s%% off, was %(was)s)") % {
            "now": now,
            "percent": percent,
            "was": money(product.price, product.currency),
        }
    return now


def as_written(terms: Sequence[str], said: str) -> str:
    """The search words as the shopper wrote them: each as the latest word of `said` that
    folds to it ("léger" for "leger"), or, in a reply in another language, the word or two
    the language reads as it ("hiver" for "winter", "sans fil" for "wireless"); else as it
    is."""
    wanted = set(terms)
    # A plural is at most two letters longer than its singular ("shelves", "shelf").
    lengths = {len(term) + extra for term in wanted for extra in (0, 1, 2)}
    said_words = _SAID_WORD.findall(said)[-_QUOTED_WORDS:]
    written: dict[str, str] = {}
    for word in reversed(said_words):
        if len(word) not in lengths:
            continue
        folded = fold(word)
        for form in (folded, singular(folded)):  # "écouteurs" searched as "ecouteur"
            if form in wanted:
                written.setdefault(form, word.lower())
    language = reply_language()
    if len(written) < len(wanted) and language != "en":
        recent = said_words[-_TRANSLATED_WORDS:]
        # Two words read as one first ("sans fil": "wireless"), unless one of them is read so
        # alone ("l hiver" is "hiver").
        pairs = [
            f"{first} {second}"
            for first, second in pairwise(recent)
            if (both := _in_english(f"{first} {second}", language))
            and both not in (_in_english(first, language), _in_english(second, language))
        ]
        for said_text in [*reversed(pairs), *reversed(recent)]:
            english = _in_english(said_text, language).split()
            if len(english) != 1:
                continue  # read as two words: each is quoted on its own
            form = english[0] if english[0] in wanted else singular(english[0])
            if form in wanted:
                written.setdefault(form, said_text.lower())
    return " ".join(written.get(term, term) for term in terms)


@functools.lru_cache(maxsize=8192)
def _in_english(text: str, language: str) -> str:
    return canonical_text(text, language, catalog_language="en")


def name_of(product: Product) -> str:
    title = product.title
    if product.brand and product.brand.lower() not in title.lower():
        return gettext("%(title)s by %(brand)s") % {"title": title, "brand": product.brand}
    return title


def reasons(
    product: Product,
    c: Constraints,
    *,
    store: Store | None,
    row: StoreInventory | None,
    cheapest: bool,
    priciest: bool,
    said: str = "",
) -> list[str]:
    """Why a product fits the shopper's search, most telling first."""
    found: list[str] = []
    currency = product.currency
    if c.sort == SORT_CHEAPEST and cheapest:
        found.append(gettext("the lowest price of the matches"))
    elif c.sort == SORT_PRICIEST and priciest:
        found.append(gettext("the most premium of the matches"))
    elif c.sort == SORT_BEST and priciest:
        found.append(gettext("our top of the range"))
    if c.sort in AMOUNT_SORTS and (stated := stated_amount(product, AMOUNT_SORTS[c.sort][0])):
        found.append(stated.text)  # the description's own words: "61 kcal"
    if c.max_price is not None and c.max_exclusive:
        found.append(gettext("cheaper than %(amount)s") % {"amount": amount(c.max_price, currency)})
    elif c.max_price is not None and c.min_price is None and c.around is None:
        found.append(
            gettext("within your %(amount)s budget") % {"amount": amount(c.max_price, currency)}
        )
    elif c.around is not None:
        found.append(gettext("close to your %(amount)s") % {"amount": amount(c.around, currency)})
    elif c.min_price is not None and c.max_price is not None:
        found.append(
            gettext("in your %(low)s-%(high)s range")
            % {"low": amount(c.min_price, currency), "high": amount(c.max_price, currency)}
        )
    if c.brands:
        found.append(gettext("from %(brand)s") % {"brand": product.brand})
    attributes = [v.lower() for v in (*c.colors, *c.materials)]
    if attributes:
        found.append(gettext("matches %(what)s") % {"what": join(attributes)})
    percent = discount_percent(product)
    if percent:
        found.append(gettext("on sale, %(percent)s%% off") % {"percent": percent})
    status, _ = stock_of(product, store, row)
    if (
        status == Availability.IN_STOCK and (store is not None or c.in_stock)
    ) or status == Availability.OUT_OF_STOCK:
        found.append(stock_phrase(product, store, row))
    # Only the words the product has: a closest match shares some of them, not all.
    had = [word for word in c.terms if matches_all(product, [word])]
    if not found and had:
        found.append(gettext('matches "%(words)s"') % {"words": as_written(had, said)})
    if not found and c.category:
        found.append(
            gettext("from our %(kind)s range") % {"kind": c.category.split(">")[-1].strip().lower()}
        )
    return found


def recommendation_text(reasons_found: Sequence[str]) -> str:
    if not reasons_found:
        return ""
    text = "; ".join(reasons_found)
    return text[0].upper() + text[1:] + "."


def product_line(product: Product, why: Sequence[str]) -> str:
    line = f"- {name_of(product)}: {price_text(product)}"
    shown = [w for w in why if not w.startswith(gettext("on sale"))][:2]
    if shown:
        line += f", {join(shown)}"
    return line + "."
