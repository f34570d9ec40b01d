"""Checks of one reply against its labels and against the catalog.

Three kinds of finding, counted separately by the runner:
- a *failure*: a labelled expectation does not hold (wrong products, missing words...);
- a *constraint violation*: a recommended product breaks a wish the shopper stated (price,
  brand, category, colour, size, material, stock, sale) without the reply relaxing that wish
  in its `search_products` tool response;
- an *ungrounded fact*: a price or stock figure in the text, or a product snapshot value,
  that the catalog (or the shopper's own words) does not back.

`reply_language` tells which language a reply is written in (for the `language` label).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from lingua import Language, LanguageDetector

from knowledge.language.detect import detector
from knowledge.language.reading import canonical_text
from knowledge.models import Product, StoreInventory
from knowledge.search.text import fold

# An amount as English, French, German, Spanish or Italian replies write it: 1,299.00 / 1.299,00 /
# 1 299,00 (with a no-break or narrow no-break space) / 4,16 / 108.53 / 300.
AMOUNT = r"\d{1,3}(?:[ ,.\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
CURRENCY = r"(?:US\$|\$\s?US|USD|EUR|GBP|CHF|[$€£])"
MONEY = re.compile(
    rf"(?<![\w.,])(?:{CURRENCY}[ \u00a0\u202f]?(?P<before>{AMOUNT})"
    rf"|(?P<after>{AMOUNT})[ \u00a0\u202f]?{CURRENCY})(?![\w$€£])"
)
# A stock figure: "(12 available)" and "Only 3 left", and their French, German, Spanish and
# Italian wordings.
STOCK = re.compile(
    r"\((\d+) (?:available|disponibles?|verfügbar|auf Lager|disponibili|en stock|in stock)[;,)]"
    r"|\b[Oo]nly (\d+) left\b"
    r"|\b(?:plus que|nur noch|solo quedan|ne restano(?: solo)?) (\d+)\b"
)
NUMBER = re.compile(AMOUNT)
# The shopper languages the assistant serves, as ISO 639-1 codes.
LANGUAGES = {
    Language.ENGLISH: "en",
    Language.FRENCH: "fr",
    Language.GERMAN: "de",
    Language.SPANISH: "es",
    Language.ITALIAN: "it",
}
WORD = re.compile(r"[^\W\d_]{2,}")


def _decimal(text: str) -> Decimal:
    """The value of an amount in any of the forms of AMOUNT: a separator followed by one or two
    digits at the end is the decimal one; the others group thousands."""
    digits = re.sub(r"[ \u00a0\u202f]", "", text)
    decimal = ""
    if match := re.search(r"[.,](\d{1,2})$", digits):
        decimal, digits = match.group(1), digits[: match.start()]
    whole = re.sub(r"[.,]", "", digits)
    return Decimal(f"{whole}.{decimal}" if decimal else whole)


def _detector() -> LanguageDetector:
    # The service's own lingua detector (the same five languages): its models load once.
    return detector(tuple(LANGUAGES.values()))


def reply_language(content: str, titles: list[str]) -> str | None:
    """The language a reply is written in, or None when its own words are too few to tell.

    Product titles are the catalog's words, not the reply's (an English catalog's titles in a
    French sentence), so they are left out, as are prices and numbers.
    """
    for title in sorted(titles, key=len, reverse=True):
        content = content.replace(title, " ")
    words = WORD.findall(content)
    if len(words) < 3:
        return None
    language = _detector().detect_language_of(" ".join(words))
    return LANGUAGES.get(language) if language is not None else None


def catalog_products(organization, body: dict[str, Any]) -> list[Product]:
    urls = [p["url"] for p in body.get("products") or []]
    return list(Product.objects.filter(organization=organization, url__in=urls))


def _numbers_in_words(text: str) -> list[str]:
    """The amounts the shopper wrote in words ("moins de cent euros": 100), as the language
    layer reads them in each served language."""
    return [
        n
        for code in ("fr", "de", "es", "it")
        for n in NUMBER.findall(canonical_text(text, code, catalog_language=code))
    ]


def ungrounded_facts(
    organization,
    body: dict[str, Any],
    said: list[str],
    store_code: str,
    earlier_prices: set[Decimal],
) -> list[str]:
    """Figures in the reply the catalog does not back (prices, stock counts, snapshots).

    A price may be one of the products the reply shows or names, one the shopper wrote, or
    one of a product shown earlier in the conversation ("cheaper than $249.99").
    """
    problems: list[str] = []
    content = body.get("content", "")
    catalog = Product.objects.filter(organization=organization)
    named = [
        p
        for p in catalog.only("title", "price", "sale_price", "quantity")
        if re.search(rf"(?<!\w){re.escape(p.title)}(?!\w)", content)
    ]
    shown = catalog_products(organization, body)
    products = {p.pk: p for p in [*named, *shown]}.values()
    prices = {p.price for p in products} | {p.sale_price for p in products if p.sale_price}
    spoken = {_decimal(n) for text in said for n in NUMBER.findall(text)}
    spoken |= {_decimal(n) for text in said for n in _numbers_in_words(text)}
    for match in MONEY.finditer(content):
        value = _decimal(match.group("before") or match.group("after"))
        if value not in prices and value not in spoken and value not in earlier_prices:
            problems.append(f"price {match.group(0)} is not a price of the products mentioned")
    quantities: set[int | None] = {p.quantity for p in products}
    quantities |= set(
        StoreInventory.objects.filter(product__in=list(products)).values_list("quantity", flat=True)
    )
    for match in STOCK.finditer(content):
        if int(next(g for g in match.groups() if g)) not in quantities:
            problems.append(f"stock figure {match.group(0)} is not in the catalog")
    by_url = {p.url: p for p in shown}
    for snapshot in body.get("products") or []:
        product = by_url.get(snapshot["url"])
        if product is None:
            problems.append(f"product {snapshot['designation']} is not in the catalog")
            continue
        if Decimal(str(snapshot["price"])) != product.current_price:
            problems.append(f"{product.title}: price {snapshot['price']} is not the catalog's")
        if snapshot["designation"] != product.title:
            problems.append(f"{product.title}: designation {snapshot['designation']}")
        availability = snapshot.get("availability")
        if availability is not None:
            expected = _stock(product, store_code)
            if (availability["status"], availability["quantity"]) != expected:
                problems.append(f"{product.title}: availability {availability} != {expected}")
    return problems


def _stock(product: Product, store_code: str) -> tuple[str, int | None]:
    if not store_code:
        quantity = 0 if product.availability == "out_of_stock" else product.quantity
        return product.availability, quantity
    row = StoreInventory.objects.filter(product=product, store__code=store_code).first()
    if row is None:
        return "out_of_stock", 0
    return row.availability, 0 if row.availability == "out_of_stock" else row.quantity


def _matches_text(product: Product, words: list[str], attribute: str) -> bool:
    # A feed names several colours or materials of one item as "Black/White" (Merchant Center).
    values = {v.strip() for v in fold(getattr(product, attribute) or "").split("/")}
    text = fold(f"{product.title} {product.description}")
    return any(fold(w) in values or re.search(rf"\b{re.escape(fold(w))}", text) for w in words)


def constraint_violations(
    products: list[Product],
    wishes: dict[str, Any],
    relaxed: list[str],
    store_code: str,
) -> list[str]:
    """Products that break a stated wish which the reply did not relax."""
    problems: list[str] = []

    def wished(key: str, label: str) -> bool:
        return key in wishes and label not in relaxed

    for p in products:
        price, name = p.current_price, p.title
        brand, brands = fold(p.brand), {fold(b) for b in wishes.get("brands", [])}
        category = fold(f"{p.product_type} > {p.google_product_category}")
        if wished("max_price", "price") and price > Decimal(str(wishes["max_price"])):
            problems.append(f"{name} costs {price}, over {wishes['max_price']}")
        if wished("min_price", "price") and price < Decimal(str(wishes["min_price"])):
            problems.append(f"{name} costs {price}, under {wishes['min_price']}")
        if wished("brands", "brand") and brand not in brands:
            problems.append(f"{name} is by {p.brand!r}, not {wishes['brands']}")
        if brand in {fold(b) for b in wishes.get("exclude_brands", [])}:
            problems.append(f"{name} is by excluded {p.brand}")
        if wished("category", "category") and fold(wishes["category"]) not in category:
            problems.append(f"{name} is in {p.product_type!r}, not {wishes['category']}")
        for key, attribute, label in (
            ("colors", "color", "colour"),
            ("materials", "material", "material"),
        ):
            if wished(key, label) and not _matches_text(p, wishes[key], attribute):
                problems.append(f"{name} is not {wishes[key]}")
        if wished("sizes", "size") and fold(p.size) not in {fold(s) for s in wishes["sizes"]}:
            problems.append(f"{name} is size {p.size!r}, not {wishes['sizes']}")
        if wishes.get("in_stock") and "in stock" not in relaxed:
            status, _ = _stock(p, store_code)
            if status != "in_stock":
                problems.append(f"{name} is {status}")
        on_sale = p.sale_price is not None and p.sale_price < p.price
        if wishes.get("on_sale") and "on sale" not in relaxed and not on_sale:
            problems.append(f"{name} is not on sale")
    return problems
