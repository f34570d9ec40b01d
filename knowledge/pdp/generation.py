"""Questions a shopper on a product page would ask, generated from the catalog
(docs/api.md#generated-questions).

Deterministic and offline: the same product and catalog give the same questions. Every
question is about something the catalog holds for this product (its variants, attributes,
description, price, stock, stores) or about a kind of fact shoppers ask for in its category
(sizes for shoes, battery for phones, ingredients for food), so the assistant can answer it
from the catalog. `questions_generate` is the single entry point; where the `openai` engine is
configured, the model writes the questions and these are the fallback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from knowledge.engines.catalog.lexicon import TOPICS
from knowledge.models import IN_STORE_STOCK, Availability, Product, StoreInventory
from knowledge.pdp import clues
from knowledge.pdp.comparison import comparison_title, is_device
from knowledge.pdp.families import FRESH_PRODUCE, Family, family_of
from knowledge.products.descriptions import MATERIAL_WORDS, description_quote

MIN_QUESTIONS = 3
MAX_QUESTIONS = 6
# Long feed titles ("... 14 Inch Space Grey M1 Pro 16GB 512GB") read badly in a question.
_MAX_NAME_LENGTH = 60

_SIZE_ORDER = ["XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL", "2XL", "3XL", "4XL"]


# What the questions read of the product itself (besides its variants' sizes, colours and stock,
# and whether stores stock it). Its price counts only as on sale or not: a new price moves at
# most which product the comparison names, not worth a new set at every price update.
QUESTION_FIELDS = (
    "title",
    "description",
    "brand",
    "product_type",
    "google_product_category",
    "item_group_id",
    "color",
    "size",
    "material",
    "availability",
)


def questions_inputs_differ(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a product's change (field values before and after) may change its questions."""
    return any(old[name] != new[name] for name in QUESTION_FIELDS) or _on_sale(old) != _on_sale(new)


def _on_sale(fields: Mapping[str, Any]) -> bool:
    return fields["sale_price"] is not None and fields["sale_price"] < fields["price"]


@dataclass(frozen=True)
class Name:
    """The product as a question names it, with the verb forms that agree with it."""

    text: str
    plural: bool

    @property
    def the(self) -> str:
        return self.text if self.text.lower().startswith("the ") else f"the {self.text}"

    @property
    def be(self) -> str:
        return "are" if self.plural else "is"

    @property
    def does(self) -> str:
        return "do" if self.plural else "does"


@dataclass
class Facts:
    """What the catalog holds about the product and its variants."""

    product: Product
    family: Family
    name: Name
    sizes: list[str] = field(default_factory=list)  # across the variant group, ordered
    sizes_in_stock: list[str] = field(default_factory=list)
    colors: list[str] = field(default_factory=list)
    in_stores: bool = False  # some store has it (or a variant) in stock (IN_STORE_STOCK)
    warranty: str = ""
    comparison: str = ""  # title of the closest-priced other product of the category


def questions_generate(product: Product) -> list[str]:
    """3 to 6 questions for the product's page, most useful first, no duplicates."""
    # Hook of the `openai` engine: None unless it is configured for the product's
    # organization and its model wrote 3 to 6 valid questions; else the catalog's below.
    from knowledge.engines.openai.questions import questions_from_model  # no import cycle

    model_questions = questions_from_model(product=product)
    if model_questions is not None:
        return model_questions
    facts = _facts_for(product)
    candidates = sorted(_candidates(facts), key=lambda candidate: candidate[0])
    questions: list[str] = []
    seen: set[str] = set()
    for _priority, text in candidates:
        key = re.sub(r"\W+", " ", text.lower()).strip()
        if key not in seen:
            seen.add(key)
            questions.append(text)
    return questions[:MAX_QUESTIONS]


def product_name(title: str) -> Name:
    text = " ".join(title.split())
    if len(text) > _MAX_NAME_LENGTH:
        text = text[:_MAX_NAME_LENGTH].rsplit(" ", 1)[0]
        # "Office Chair With Adjustable" reads worse than "Office Chair".
        cuts = [match.start() for match in clues.CONNECTOR.finditer(text) if match.start() >= 15]
        if cuts:
            text = text[: cuts[-1]]
        text = text.rstrip(" ,;:-&/")
    last = text.split(" ")[-1].lower() if text else ""
    plural = (
        len(last) > 3
        and last.endswith("s")
        and not last.endswith(("ss", "us", "is", "ics", "ous"))
        and not any(char.isdigit() for char in last)
    )
    return Name(text=text, plural=plural)


def product_warranty(product: Product) -> str:
    """The warranty the catalog states for the product ("2 year warranty"), or ""."""
    stated = str(getattr(product, "warranty", "") or "").strip()
    if stated:
        return stated
    found = clues.WARRANTY.search(product.description or "")
    return found.group(0) if found else ""


def _facts_for(product: Product) -> Facts:
    facts = Facts(
        product=product,
        family=family_of(category=product.category or "", title=product.title),
        name=product_name(product.title),
        warranty=product_warranty(product),
    )
    variants = [product]
    if product.item_group_id:
        variants = list(
            Product.objects.filter(
                organization_id=product.organization_id, item_group_id=product.item_group_id
            ).only("id", "size", "color", "availability")
        ) or [product]
    facts.sizes = _ordered_sizes({v.size.strip() for v in variants if v.size.strip()})
    in_stock = {
        v.size.strip()
        for v in variants
        if v.size.strip() and v.availability == Availability.IN_STOCK
    }
    facts.sizes_in_stock = [size for size in facts.sizes if size in in_stock]
    facts.colors = sorted({v.color.strip() for v in variants if v.color.strip()}, key=str.lower)
    facts.in_stores = StoreInventory.objects.filter(
        IN_STORE_STOCK, product_id__in=[v.id for v in variants]
    ).exists()
    facts.comparison = product_name(comparison_title(product, facts.family)).text
    return facts


def _ordered_sizes(sizes: set[str]) -> list[str]:
    def key(size: str) -> tuple[int, float, str]:
        upper = size.upper()
        if upper in _SIZE_ORDER:
            return (0, _SIZE_ORDER.index(upper), upper)
        number = re.match(r"^\d+(?:[.,]\d+)?", size)
        if number:
            return (1, float(number.group(0).replace(",", ".")), upper)
        return (2, 0.0, upper)

    return sorted(sizes, key=key)


def _candidates(facts: Facts) -> list[tuple[int, str]]:
    """(priority, question) pairs; a lower priority is more useful to a shopper."""
    product, family, name = facts.product, facts.family, facts.name
    found: list[tuple[int, str]] = []
    found += _variant_questions(facts)
    found += _family_questions(facts)

    if product.material.strip():
        found.append((17, f"What {name.be} {name.the} made of?"))
    if facts.warranty:
        found.append((15, f"What warranty comes with {name.the}?"))
    if product.sale_price is not None and product.sale_price < product.price:
        found.append((18, f"How much is the discount on {name.the}?"))
    if product.availability == Availability.OUT_OF_STOCK:
        found.append((19, f"Do you have something similar to {name.the} in stock?"))
    elif facts.in_stores:
        found.append((19, f"Which stores have {name.the} in stock?"))
    else:
        found.append((20, f"{name.be.capitalize()} {name.the} in stock?"))
    if facts.comparison:
        found.append((24, f"How {name.does} {name.the} compare to the {facts.comparison}?"))
    found.append((26, f"Do you have a cheaper alternative to {name.the}?"))
    if product.brand.strip() and family != Family.GROCERIES:
        found.append((28, f"What other {product.brand.strip()} products do you have?"))
    found.append((30, f"What can you tell me about {name.the}?"))
    return found


def _variant_questions(facts: Facts) -> list[tuple[int, str]]:
    product, family, name = facts.product, facts.family, facts.name
    found: list[tuple[int, str]] = []
    wearable = family in (Family.APPAREL, Family.SHOES, Family.ACCESSORIES)
    if len(facts.sizes) >= 2:
        if family == Family.ELECTRONICS and all(clues.STORAGE.search(s) for s in facts.sizes):
            found.append((10, f"Which storage options {name.does} {name.the} come in?"))
        else:
            found.append((10, f"Which sizes of {name.the} are in stock?"))
            own = product.size.strip()
            others = [size for size in facts.sizes_in_stock or facts.sizes if size != own]
            if others:
                asked = others[len(others) // 2]
                found.append((14, f"{name.be.capitalize()} {name.the} available in size {asked}?"))
    elif wearable and family != Family.ACCESSORIES and product.size.strip():
        # Without a size in the catalog there is nothing to answer a size question with.
        found.append(
            (
                16,
                f"{name.does.capitalize()} {name.the} come in sizes other than {product.size.strip()}?",
            )
        )
    shade = "shades" if family == Family.BEAUTY else "colours"
    if len(facts.colors) >= 2:
        found.append((12, f"What {shade} {name.does} {name.the} come in?"))
    elif len(facts.colors) == 1 and (wearable or family == Family.BEAUTY):
        found.append(
            (
                16,
                f"{name.be.capitalize()} {name.the} available in {shade} other than {facts.colors[0]}?",
            )
        )
    return found


def _told(product: Product, topic: str) -> bool:
    """Whether the description answers a question on `topic` (lexicon.TOPICS), as the
    assistant's answer quotes it."""
    return bool(description_quote(product, TOPICS[topic][1]))


def _family_questions(facts: Facts) -> list[tuple[int, str]]:
    """Questions about a detail of the product's kind, each only when its data answers it."""
    product, family, name = facts.product, facts.family, facts.name
    found: list[tuple[int, str]] = []
    if family in (Family.APPAREL, Family.SHOES) and _told(product, "fit"):
        found.append((13, f"How {name.does} {name.the} fit?"))
    elif family == Family.ELECTRONICS:
        accessory = bool(clues.ACCESSORY.search(product.title))
        if _told(product, "compatibility"):
            found.append((12, f"Which devices {name.be} {name.the} compatible with?"))
        if _told(product, "battery life") and not accessory:
            found.append((13, f"How long does the battery of {name.the} last?"))
        if (is_device(product) or clues.STORAGE.search(product.title)) and (
            _told(product, "storage") or any(clues.STORAGE.search(s) for s in facts.sizes)
        ):
            found.append((14, f"How much storage {name.does} {name.the} have?"))
    elif family in (Family.APPLIANCES, Family.FURNITURE) and _told(product, "dimensions"):
        found.append((12, f"What are the dimensions of {name.the}?"))
    elif family == Family.GROCERIES:
        kind = f"{product.category} {product.title}"
        if not FRESH_PRODUCE.search(kind) and not clues.single_ingredient(product.title):
            if _told(product, "ingredients"):
                found.append((12, f"What are the ingredients of {name.the}?"))
            if _told(product, "allergens"):
                found.append(
                    (13, f"{name.does.capitalize()} {name.the} contain any common allergens?")
                )
    elif family == Family.BEAUTY:
        if clues.SKIN_PRODUCT.search(f"{product.title} {product.category}") and _told(
            product, "suitability for sensitive skin"
        ):
            found.append((12, f"{name.be.capitalize()} {name.the} suitable for sensitive skin?"))
    elif family == Family.FRAGRANCE and _told(product, "smell"):
        found.append((12, f"What {name.does} {name.the} smell like?"))
    if (
        family in (Family.ACCESSORIES, Family.KITCHEN, Family.FURNITURE)
        and not product.material.strip()
        and not clues.MATERIAL_IN_TITLE.search(product.title)
        and description_quote(product, MATERIAL_WORDS)
    ):
        found.append((16, f"What material {name.be} {name.the} made of?"))
    return found
