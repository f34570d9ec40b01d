"""Replies about particular products: the page's product, "the second one", a named one.

Questions about price, stock (in the shopper's store), sizes and colours across variants,
material, brand and what a product is are answered from the catalog through the
`get_product`, `check_availability` and `compare_products` tools.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext

from knowledge.engines.catalog import lexicon as lx
from knowledge.engines.catalog import phrasing as ph
from knowledge.engines.catalog import suggestions as sg
from knowledge.engines.catalog.draft import Draft, Item
from knowledge.engines.catalog.snapshots import discount_percent, inventory_for, money, stock_of
from knowledge.engines.catalog.streaming import ToolCalls
from knowledge.engines.catalog.tools import (
    ToolContext,
    check_availability,
    compare_products,
    get_product,
)
from knowledge.engines.catalog.understanding import Understanding
from knowledge.models import Availability, Product, Store, StoreInventory, in_store_stock
from knowledge.products.descriptions import MATERIAL_WORDS, description_quote
from knowledge.search.text import words


def _response(result: tuple[dict[str, Any], Any]) -> dict[str, Any]:
    return result[0]


ASPECT_ORDER = (
    "topic",
    "in stock values",
    "sizes",
    "colors",
    "material",
    "availability",
    "price",
    "brand",
    "category",
)


def aspects_of(u: Understanding) -> list[str]:
    asked = set(u.asks)
    if u.asked_size:
        asked.add("sizes")
    if u.asked_color:
        asked.add("colors")
    if "sizes" in asked and "colors" in asked and not u.asked_color:
        # "does it come in L?" reads as both; a size was named, so it is about sizes.
        asked.discard("colors") if u.asked_size else asked.discard("sizes")
    if "cheaper" in asked:
        asked.add("price")
    if (asked & {"sizes", "colors"}) and not (u.asked_size or u.asked_color):
        # "which sizes are in stock?": the sizes in stock, not the product's stock.
        if re.search(r"\b(stock|here)\b", u.normalized) or u.constraints.in_stock:
            asked.add("in stock values")
        asked.discard("availability")
    elif asked & {"sizes", "colors"}:
        # "do you have it in XL?": the variant answer says it.
        asked.discard("availability")
    if u.topic:
        asked.add("topic")
        asked.discard("details")
        asked.discard("sizes")  # fit and storage answers list the sizes themselves
    found = [a for a in ASPECT_ORDER if a in asked]
    return found or ["details"]


def _where(store: Store) -> str:
    return store.name or store.code


# The words feeds name a place in a store with (their local inventory's extra columns), in
# the shopper's language; another column's name is written as the feed has it.
_LOCATION_WORDS = {
    "aisle": gettext_lazy("aisle"),
    "shelf": gettext_lazy("shelf"),
    "floor": gettext_lazy("floor"),
    "section": gettext_lazy("section"),
    "department": gettext_lazy("department"),
    "zone": gettext_lazy("zone"),
}


def _location_text(location: Any) -> str:
    if not isinstance(location, list):
        return ""
    parts = [
        f"{_LOCATION_WORDS.get(str(item.get('key')).lower(), item.get('key'))} {item.get('value')}"
        for item in location
        if isinstance(item, dict) and item.get("key") and item.get("value")
    ]
    return ", ".join(parts)


def availability_sentences(
    product: Product, rows: list[StoreInventory], store: Store | None, *, every_store: bool = False
) -> list[str]:
    """Whether the product is in stock: in every store (`every_store`), in the shopper's store
    and the others, else online and in the stores that have it."""
    in_stores = [r for r in rows if in_store_stock(r.availability, r.quantity)]
    if every_store:
        return _every_store_sentences(product, in_stores)
    if store is not None:
        return _store_sentences(product, rows, in_stores, store)
    return _online_sentences(product, in_stores)


def _every_store_sentences(product: Product, in_stores: list[StoreInventory]) -> list[str]:
    """ "Which stores have it in stock?": every store, whichever one the shopper is in."""
    name = product.title
    if not in_stores:
        return [
            gettext("The %(name)s is not in stock in any of our stores right now.") % {"name": name}
        ] + (
            [gettext("You can still order it online.")]
            if product.availability == Availability.IN_STOCK
            else []
        )
    listed = [
        f"{_where(r.store)} {_available(r.quantity)}"
        + (f" ({_location_text(r.location)})" if _location_text(r.location) else "")
        for r in in_stores
    ]
    return [
        gettext("The %(name)s is in stock at %(stores)s.")
        % {"name": name, "stores": ph.join(listed)}
    ]


def _store_sentences(
    product: Product, rows: list[StoreInventory], in_stores: list[StoreInventory], store: Store
) -> list[str]:
    """The product's stock in the shopper's store (and where in it), else in other stores or
    online."""
    name = product.title
    row = next((r for r in rows if r.store_id == store.pk), None)
    if row is not None and row.availability == Availability.IN_STOCK:
        count = " " + _available(row.quantity) if row.quantity else ""
        where = _location_text(row.location)
        return [
            gettext("Yes, the %(name)s is in stock at %(store)s%(count)s")
            % {"name": name, "store": _where(store), "count": count}
            + ("; " + gettext("you'll find it at %(where)s.") % {"where": where} if where else ".")
        ]
    sentences = [
        gettext("The %(name)s is currently out of stock at %(store)s.")
        % {"name": name, "store": _where(store)}
    ]
    others = [r for r in in_stores if r.store_id != store.pk][:3]
    if others:
        sentences.append(
            gettext("It is available at %(stores)s.")
            % {"stores": ph.join([f"{_where(r.store)} {_available(r.quantity)}" for r in others])}
        )
    elif product.availability == Availability.IN_STOCK:
        sentences.append(gettext("You can still order it online."))
    return sentences


def _online_sentences(product: Product, in_stores: list[StoreInventory]) -> list[str]:
    """The product's online availability, then the stores that have it."""
    status = product.availability
    values = {
        "name": product.title,
        "count": " " + _available(product.quantity) if product.quantity else "",
    }
    if status == Availability.IN_STOCK:
        sentences = [gettext("Yes, the %(name)s is in stock%(count)s.") % values]
    elif status == Availability.PREORDER:
        sentences = [gettext("The %(name)s is available to pre-order.") % values]
    elif status == Availability.BACKORDER:
        sentences = [
            gettext("The %(name)s is on backorder: you can order it now and it ships later.")
            % values
        ]
    else:
        sentences = [gettext("Sorry, the %(name)s is out of stock online right now.") % values]
    if in_stores:
        sentences.append(
            gettext("In our stores: %(stores)s.")
            % {
                "stores": ph.join(
                    [f"{_where(r.store)} {_available(r.quantity)}" for r in in_stores[:3]]
                )
            }
        )
    return sentences


def _available(quantity: int | None) -> str:
    return ngettext("(%(count)s available)", "(%(count)s available)", quantity or 0) % {
        "count": quantity
    }


def price_sentences(product: Product) -> list[str]:
    now = money(product.current_price, product.currency)
    percent = discount_percent(product)
    if percent:
        sentences = [
            gettext("The %(name)s is on sale for %(now)s: %(percent)s%% off the regular %(was)s.")
            % {
                "name": product.title,
                "now": now,
                "percent": percent,
                "was": money(product.price, product.currency),
            }
        ]
    else:
        sentences = [
            gettext("The %(name)s costs %(now)s. It isn't on sale at the moment.")
            % {"name": product.title, "now": now}
        ]
    if product.price_info:
        sentences.append(gettext("Price details: %(info)s.") % {"info": product.price_info})
    return sentences


def _values(variants: list[Product], attribute: str) -> list[str]:
    return list(dict.fromkeys(getattr(v, attribute) for v in variants if getattr(v, attribute)))


_SIZE_ORDER = {size: n for n, size in enumerate(["XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL"])}


def size_order(value: str) -> tuple[int, float, str]:
    upper = value.upper()
    if upper in _SIZE_ORDER:
        return (0, _SIZE_ORDER[upper], upper)
    try:
        return (1, float(value.replace(",", ".")), upper)
    except ValueError:
        return (2, 0.0, upper)


def _sorted_values(variants: list[Product], attribute: str) -> list[str]:
    values = _values(variants, attribute)
    return sorted(values, key=size_order) if attribute == "size" else values


def variant_sentences(
    product: Product,
    variants: list[Product],
    attribute: str,
    asked: str,
    *,
    store: Store | None,
    rows: dict[int, StoreInventory],
    stocked: bool = False,
) -> tuple[list[str], Product | None]:
    """Sizes or colours across the product's variants (`stocked`: those in stock, in the
    shopper's store when given); the variant asked for, if any.

    The variant keeps the product's other attribute where it can ("in L" of the black tee
    is the black one in L), and its stock is that of the shopper's store when given.
    """
    label, labels = _variant_labels(variants, attribute)
    values = _sorted_values(variants, attribute)
    said = {"name": product.title, "label": label, "labels": labels, "values": ph.join(values)}
    if not values:
        return [gettext("The catalog doesn't list %(labels)s for the %(name)s.") % said], None
    if not asked:
        said["labels"] = labels if len(values) > 1 else label
        text = _values_text(said, values, variants, attribute, store, rows, stocked)
        return [text], None
    matching = [v for v in variants if getattr(v, attribute).lower() == asked.lower()]
    if not matching:
        said["asked"] = asked
        return [
            gettext(
                "Sorry, the %(name)s doesn't come in %(label)s %(asked)s. "
                "It's available in %(labels)s %(values)s."
            )
            % said
        ], None
    return _asked_variant_sentences(product, matching, attribute, said, store=store, rows=rows)


def _variant_labels(variants: list[Product], attribute: str) -> tuple[str, str]:
    """The words for the attribute, singular and plural: sizes, colours, or storage options
    when every size is one ("128 GB")."""
    kind = "size" if attribute == "size" else "colour"
    sized = [v for v in variants if v.size]
    if (
        attribute == "size"
        and sized
        and all(re.search(r"\d\s?(gb|tb)\b", v.size.lower()) for v in sized)
    ):
        kind = "storage option"
    return {
        "size": (gettext("size"), gettext("sizes")),
        "colour": (gettext("colour"), gettext("colours")),
        "storage option": (gettext("storage option"), gettext("storage options")),
    }[kind]


def _asked_variant_sentences(
    product: Product,
    matching: list[Product],
    attribute: str,
    said: dict[str, str],
    *,
    store: Store | None,
    rows: dict[int, StoreInventory],
) -> tuple[list[str], Product]:
    """The variant in the value asked for (`matching` its variants), its price and stock,
    and the variants of that value in stock when it is not."""
    other = "color" if attribute == "size" else "size"
    same_other = [v for v in matching if getattr(v, other) == getattr(product, other)]
    pool = same_other or matching
    variant = next((v for v in pool if v.availability == Availability.IN_STOCK), pool[0])
    value = getattr(variant, attribute)
    extra = getattr(variant, other)
    row = rows.get(variant.pk)
    said.update(
        value=value,
        price=money(variant.current_price, variant.currency),
        described=f"{said['label']} {value}"
        + (f" ({extra.lower()})" if extra and not same_other else ""),
        stock=ph.stock_phrase(variant, store, row),
    )
    status, _quantity = stock_of(variant, store, row)
    if status == Availability.IN_STOCK:
        return [
            gettext(
                "Yes, the %(name)s comes in %(described)s: %(price)s, and %(label)s %(value)s "
                "is %(stock)s."
            )
            % said
        ], variant
    text = (
        gettext("The %(name)s comes in %(described)s (%(price)s), but it's %(stock)s right now.")
        % said
    )
    if store is not None and variant.availability == Availability.IN_STOCK:
        text += " " + gettext("You can still order it online.")
    others = [
        v
        for v in matching
        if v.pk != variant.pk and v.availability == Availability.IN_STOCK and getattr(v, other)
    ]
    if others:
        said["others"] = ph.join([getattr(v, other).lower() for v in others])
        text += " " + gettext("In %(label)s %(value)s it's in stock in %(others)s.") % said
    return [text], variant


def _values_text(
    said: dict[str, str],
    values: list[str],
    variants: list[Product],
    attribute: str,
    store: Store | None,
    rows: dict[int, StoreInventory],
    stocked: bool,
) -> str:
    """The attribute's values (`said`: the product's name and the attribute's label, as said
    to the shopper); with `stocked`, those in stock, in the shopper's store when given."""
    in_stock = {
        getattr(v, attribute)
        for v in variants
        if stock_of(v, store, rows.get(v.pk))[0] == Availability.IN_STOCK
    }
    available = [value for value in values if value in in_stock]
    missing = [value for value in values if value not in in_stock]
    if not stocked:
        text = gettext("The %(name)s comes in %(labels)s %(values)s.") % {
            **said,
            "values": ph.join(values),
        }
        if missing and in_stock:
            text += " " + gettext("Out of stock right now: %(values)s.") % {
                "values": ph.join(missing)
            }
        return text
    where = gettext(" at %(store)s") % {"store": _where(store)} if store is not None else ""
    if not available:
        return gettext("The %(name)s is out of stock%(where)s in every %(label)s right now.") % {
            **said,
            "where": where,
        }
    text = gettext("The %(name)s is in stock%(where)s in %(labels)s %(values)s.") % {
        **said,
        "where": where,
        "labels": said["labels"] if len(available) > 1 else said["label"],
        "values": ph.join(available),
    }
    if missing:
        text += " " + gettext("Out of stock right now: %(values)s.") % {"values": ph.join(missing)}
    return text


def topic_name(topic: str) -> str:
    """A product-page topic of lexicon.TOPICS ("battery life") in the reply's language."""
    names = {
        "smell": gettext("smell"),
        "battery life": gettext("battery life"),
        "storage": gettext("storage"),
        "dimensions": gettext("dimensions"),
        "compatibility": gettext("compatibility"),
        "ingredients": gettext("ingredients"),
        "allergens": gettext("allergens"),
        "suitability for sensitive skin": gettext("suitability for sensitive skin"),
        "warranty": gettext("warranty"),
        "capacity": gettext("capacity"),
        "fit": gettext("fit"),
    }
    return names.get(topic, topic)


def topic_sentences(product: Product, topic: str, variants: list[Product]) -> list[str]:
    """A detail only the description can tell (battery life, fit...): quoted, or said unknown."""
    _pattern, keywords = lx.TOPICS[topic]
    quote = description_quote(product, list(keywords))
    values = {"topic": topic_name(topic), "name": product.title, "quote": quote}
    if quote:
        sentences = [
            gettext("About the %(topic)s, the %(name)s's description says: “%(quote)s”") % values
        ]
    else:
        sentences = [gettext("The catalog doesn't give the %(topic)s of the %(name)s.") % values]
        first = re.split(r"(?<=[.!?])\s+", (product.description or "").strip())[0]
        if first:
            sentences.append(gettext("What it does say: “%(first)s”") % {"first": first})
    sizes = _sorted_values(variants, "size")
    if topic == "fit" and sizes:
        sentences.append(gettext("It comes in sizes %(sizes)s.") % {"sizes": ph.join(sizes)})
    storage = [size for size in sizes if re.search(r"\d\s?(gb|tb)\b", size.lower())]
    if topic == "storage" and storage:
        sentences = [
            f"The {product.title} comes with {ph.join(storage, 'or')} of storage"
            + (f"; this one has {product.size}." if product.size in storage else ".")
        ]
    return sentences


def material_sentences(product: Product) -> list[str]:
    if product.material:
        return [
            gettext("The %(name)s is made of %(material)s.")
            % {"name": product.title, "material": product.material.lower()}
        ]
    quote = description_quote(product, MATERIAL_WORDS)
    if quote:
        return [
            gettext("The %(name)s's description says: “%(quote)s”")
            % {"name": product.title, "quote": quote}
        ]
    return [
        gettext("The catalog doesn't say what the %(name)s is made of.") % {"name": product.title}
    ]


def details_sentences(
    product: Product,
    variants: list[Product],
    u: Understanding,
    *,
    store: Store | None = None,
    row: StoreInventory | None = None,
) -> list[str]:
    kind = product.category.split(">")[0].strip().lower() if product.category else ""
    values = {"name": ph.name_of(product), "kind": kind}
    sentences = [
        gettext("Here's the %(name)s, from our %(kind)s range.") % values
        if kind
        else gettext("Here's the %(name)s.") % values
    ]
    named = set(words(product.title))
    asked = [w for w in u.constraints.terms if not set(words(w)) <= named]
    quote = description_quote(product, asked) if asked else ""
    if quote:
        sentences.append(
            gettext("About that, the description says: “%(quote)s”") % {"quote": quote}
        )
    elif asked and not quote and product.description:
        sentences.append(
            gettext("The catalog doesn't say anything about %(asked)s, but here's what it says:")
            % {"asked": " ".join(asked)}
        )
    if product.description and not quote:
        sentences.append(product.description.strip())
    attributes = [
        value
        for value in (
            product.color.lower(),
            gettext("size %(size)s") % {"size": product.size} if product.size else "",
            gettext("made of %(material)s") % {"material": product.material.lower()}
            if product.material
            else "",
        )
        if value
    ]
    if attributes:
        sentences.append(gettext("This one is %(what)s.") % {"what": ph.join(attributes)})
    sizes, colors = _values(variants, "size"), _values(variants, "color")
    if len(sizes) > 1:
        sentences.append(gettext("It comes in sizes %(sizes)s.") % {"sizes": ph.join(sizes)})
    if len(colors) > 1:
        sentences.append(
            gettext("It comes in %(colors)s.") % {"colors": ph.join([c.lower() for c in colors])}
        )
    sentences.append(
        gettext("It costs %(price)s and is %(stock)s.")
        % {"price": ph.price_text(product), "stock": ph.stock_phrase(product, store, row)}
    )
    return sentences


def product_reply(
    context: ToolContext,
    tools: ToolCalls,
    products: list[Product],
    u: Understanding,
    *,
    store: Store | None,
) -> Draft:
    """Answers `u` about each of `products` (one, or a few for "are they in stock?")."""
    aspects = aspects_of(u)
    sentences: list[str] = []
    items: list[Item] = []
    variants: list[Product] = []
    for product in products[:4]:
        if "details" in aspects or {"sizes", "colors", "price", "topic"} & set(aspects):
            _tool_result, variants = tools.run(
                "get_product",
                {"gtin": product.gtin or product.item_id},
                partial(get_product, context, product=product),
                _response,
            )
        lines, shown = _variant_answers(product, variants, u, aspects, store=store)
        sentences += lines + _aspect_answers(context, tools, product, variants, u, aspects, store)
        items.append(Item(product=shown, reasons=[]))
    rows_by_product = inventory_for([i.product for i in items], context.store)
    for item in items:
        item.reasons = ph.reasons(
            item.product,
            u.constraints,
            store=context.store,
            row=rows_by_product.get(item.product.pk),
            cheapest=False,
            priciest=False,
        ) or ["The product you asked about"]
    return Draft(
        text=" ".join(sentences),
        items=items,
        suggestions=sg.product_suggestions(
            product=products[0],
            variants=variants or [products[0]],
            answered=set(aspects),
            vocabulary=context.vocabulary,
        )
        if len(products) == 1
        else sg.compare_suggestions(context.vocabulary),
    )


def _variant_answers(
    product: Product,
    variants: list[Product],
    u: Understanding,
    aspects: list[str],
    *,
    store: Store | None,
) -> tuple[list[str], Product]:
    """The sizes and colours asked about, and the product to show: the variant asked for
    ("in L": the product in L), else the product."""
    sentences: list[str] = []
    shown = product
    rows = inventory_for(variants, store) if store is not None else {}
    stocked = "in stock values" in aspects
    if "sizes" in aspects:
        lines, variant = variant_sentences(
            product, variants, "size", u.asked_size, store=store, rows=rows, stocked=stocked
        )
        sentences += lines
        shown = variant or product
    if "colors" in aspects:
        lines, variant = variant_sentences(
            shown, variants, "color", u.asked_color, store=store, rows=rows, stocked=stocked
        )
        sentences += lines
        shown = variant or shown
    return sentences, shown


def _aspect_answers(
    context: ToolContext,
    tools: ToolCalls,
    product: Product,
    variants: list[Product],
    u: Understanding,
    aspects: list[str],
    store: Store | None,
) -> list[str]:
    """The answers about the product beyond its variants, in `ASPECT_ORDER`."""
    sentences: list[str] = []
    if "topic" in aspects:
        sentences += topic_sentences(product, u.topic, variants)
    if "material" in aspects:
        sentences += material_sentences(product)
    if "availability" in aspects:
        sentences += _availability_answer(context, tools, product, u, store)
    if "price" in aspects:
        sentences += price_sentences(product)
    if "brand" in aspects:
        sentences.append(
            gettext("The %(name)s is made by %(brand)s.")
            % {"name": product.title, "brand": product.brand}
            if product.brand
            else gettext("The catalog doesn't list a brand for the %(name)s.")
            % {"name": product.title}
        )
    if "category" in aspects:
        sentences.append(
            gettext("The %(name)s is in our %(category)s category.")
            % {"name": product.title, "category": product.category}
            if product.category
            else gettext("The %(name)s has no category in the catalog.") % {"name": product.title}
        )
    if "details" in aspects:
        row = inventory_for([product], store).get(product.pk) if store else None
        sentences += details_sentences(product, variants, u, store=store, row=row)
    return sentences


def _availability_answer(
    context: ToolContext,
    tools: ToolCalls,
    product: Product,
    u: Understanding,
    store: Store | None,
) -> list[str]:
    """The product's stock from the `check_availability` tool, in every store when the
    message asks which stores have it."""
    _tool_result, rows = tools.run(
        "check_availability",
        {
            "gtin": product.gtin or product.item_id,
            **({"store": store.code} if store else {}),
        },
        partial(check_availability, context, product=product, store=store),
        _response,
    )
    every_store = bool(re.search(r"\b(which|what|other|any) (of your )?stores?\b", u.normalized))
    sentences = availability_sentences(
        product, rows, store, every_store=every_store or bool(u.place)
    )
    if u.place and store is None:
        sentences.insert(0, gettext("We have no store in %(place)s.") % {"place": u.place.title()})
    return sentences


def compare_reply(context: ToolContext, tools: ToolCalls, products: list[Product]) -> Draft:
    gtins = [p.gtin or p.item_id for p in products]
    tools.run(
        "compare_products",
        {"gtins": gtins},
        lambda: compare_products(context, products=products),
        lambda result: result,
    )
    rows = inventory_for(products, context.store)
    lines = [gettext("Here's how they compare:")]
    for product in products:
        stock = ph.stock_phrase(product, context.store, rows.get(product.pk))
        brand = (
            f" ({product.brand})"
            if product.brand and product.brand.lower() not in product.title.lower()
            else ""
        )
        category = product.category.split(">")[-1].strip().lower() if product.category else ""
        extra = f", {category}" if category else ""
        lines.append(f"- {product.title}{brand}: {ph.price_text(product)}, {stock}{extra}.")
    cheapest = min(products, key=lambda p: p.current_price)
    priciest = max(products, key=lambda p: p.current_price)
    if cheapest.current_price != priciest.current_price:
        lines.append(
            gettext("The %(cheap)s is the more affordable choice; the %(dear)s is the premium one.")
            % {"cheap": cheapest.title, "dear": priciest.title}
        )
    else:
        lines.append(gettext("They cost the same."))
    on_sale = [p.title for p in products if discount_percent(p)]
    if on_sale:
        lines.append(gettext("On sale right now: %(names)s.") % {"names": ph.join(on_sale)})
    items = [
        Item(
            product=p,
            reasons=["The lower price of the two" if p is cheapest else "Compared at your request"],
        )
        for p in products
    ]
    return Draft(
        text="\n".join(lines), items=items, suggestions=sg.compare_suggestions(context.vocabulary)
    )
