"""The assistant's tools as plain functions (docs/api.md#tools shows their calls as events).

Each tool takes a `ToolContext` and plain arguments and returns `(toolResponse, data)`: the
JSON an integrator reads in the event, and the catalog objects the engine keeps working with.
`tool_run(name=..., args=..., context=...)` is the JSON-in, JSON-out form (the LLM engine's).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from accounts.models import Chatbot, Organization
from infrastructure.prepared import PreparedQuery
from knowledge.canonical import InvalidUrlError, canonicalize_url
from knowledge.engines.base import PastMessageType, ReplyRequest
from knowledge.engines.catalog.finding import Found, constraints_json, find
from knowledge.engines.catalog.snapshots import discount_percent, stock_of
from knowledge.engines.catalog.understanding import Constraints
from knowledge.engines.catalog.vocabulary import Vocabulary, vocabulary_for
from knowledge.models import Product, Store, StoreInventory
from knowledge.products.pages import family_product_find


class ToolArgumentError(ValueError):
    """A tool was called with arguments it cannot use."""


@dataclass
class ToolContext:
    organization: Organization
    chatbot: Chatbot
    store: Store | None
    current_url: str
    vocabulary: Vocabulary
    # What the shopper wrote in this chat, to quote its words as written (phrasing.as_written).
    said: str = ""


def tool_context_from(request: ReplyRequest) -> ToolContext:
    return ToolContext(
        organization=request.organization,
        chatbot=request.chatbot,
        store=request.store,
        current_url=request.current_url,
        vocabulary=vocabulary_for(request.organization),
        said=" ".join(
            [m.content for m in request.history if m.type == PastMessageType.USER]
            + [request.message]
        ),
    )


def product_summary(product: Product, store: Store | None = None, row=None) -> dict[str, Any]:
    """What a tool response says about one product (the catalog's values now)."""
    status, quantity = stock_of(product, store, row)
    body: dict[str, Any] = {
        "gtin": product.gtin or product.item_id,
        "designation": product.title,
        "brand": product.brand,
        "price": float(product.current_price),
        "currency": product.currency,
        "availability": {"status": status, "quantity": quantity},
        "url": product.url,
    }
    if discount_percent(product):
        body["regularPrice"] = float(product.price)
        body["discountPercent"] = discount_percent(product)
    for name in ("category", "color", "size", "material"):
        if getattr(product, name):
            body[name] = getattr(product, name)
    return body


# Looked up on every message: compiled once (infrastructure/prepared.py).
_products_of_pages = PreparedQuery(
    lambda organization_id, url, other: Product.objects.filter(
        organization_id=organization_id, url__in=[url, other]
    ).order_by(),
    organization_id=Product._meta.get_field("organization"),
    url=Product._meta.get_field("url"),
    other=Product._meta.get_field("url"),
)


def page_product_find(organization: Organization, url: str) -> Product | None:
    """The catalog product whose page `url` is, after canonicalization
    (docs/api.md#url-canonical-form)."""
    try:
        canonical = canonicalize_url(url)
    except InvalidUrlError:
        return None
    if urlsplit(canonical).path == "/":
        return None  # a shop's home page is no product's page: no query needed
    # The page itself, else the page without its query (a variant's parameters): one query.
    without_query = canonical.split("?", 1)[0]
    found = _products_of_pages.fetch(
        organization_id=organization.pk, url=canonical, other=without_query
    )
    for url in (canonical, without_query):
        same_url = [product for product in found if product.url == url]
        if same_url:
            return min(same_url, key=lambda product: (product.title, product.pk))
    return family_product_find(organization_id=organization.pk, url=without_query)


def products_by_gtin(organization: Organization, gtins: list[str]) -> list[Product]:
    """Products by GTIN (or item id, the GTIN fallback), in the order asked."""
    if not gtins:
        return []
    catalog = Product.objects.filter(organization=organization)
    by_key: dict[str, Product] = {}
    for product in catalog.filter(item_id__in=gtins):  # the indexed key first
        by_key.setdefault(product.item_id, product)
    missing = [g for g in gtins if g not in by_key]
    if missing:
        for product in catalog.filter(gtin__in=missing):
            by_key.setdefault(product.gtin, product)
    return [by_key[g] for g in gtins if g in by_key]


def products_from_snapshots(
    organization: Organization, snapshots: list[dict[str, Any]]
) -> list[Product]:
    """The catalog products behind stored snapshots (by their indexed URL), in order."""
    urls = [str(s.get("url")) for s in snapshots if s.get("url")]
    if not urls:
        return []
    rows = list(Product.objects.filter(organization=organization, url__in=urls))
    found: list[Product] = []
    for snapshot in snapshots:
        same_url = [p for p in rows if p.url == snapshot.get("url")]
        match = next(
            (p for p in same_url if snapshot.get("gtin") in (p.gtin or p.item_id, p.item_id)),
            same_url[0] if same_url else None,
        )
        if match is not None and match not in found:
            found.append(match)
    return found


def item_ids_with_variants(organization: Organization, products: list[Product]) -> tuple[str, ...]:
    """Item ids of `products` and of all their variants (to leave them out of a search)."""
    ids = {p.item_id for p in products}
    groups = {p.item_group_id for p in products if p.item_group_id}
    if groups:
        ids |= set(
            Product.objects.filter(organization=organization, item_group_id__in=groups).values_list(
                "item_id", flat=True
            )
        )
    return tuple(sorted(ids))


def variants_of(product: Product) -> list[Product]:
    """The product and its variants (same `item_group_id`), the product first."""
    if not product.item_group_id:
        return [product]
    group = list(
        Product.objects.filter(
            organization_id=product.organization_id, item_group_id=product.item_group_id
        ).order_by("pk")
    )
    return [product] + [p for p in group if p.pk != product.pk]


def get_page_context(
    context: ToolContext, *, url: str, found: Product | None = None
) -> tuple[dict[str, Any], Product | None]:
    """The page's canonical URL and its product; `found`: that product, already looked up."""
    product = found or page_product_find(context.organization, url)
    try:
        canonical = canonicalize_url(url)
    except InvalidUrlError:
        canonical = url
    response: dict[str, Any] = {"url": canonical, "isProductPage": product is not None}
    if product is not None:
        response["product"] = product_summary(product)
    return response, product


def search_products(
    context: ToolContext,
    *,
    constraints: Constraints,
    offset: int = 0,
    exclude_item_ids=(),
    relax: bool = True,
    keep: tuple[str, ...] = (),
) -> Found:
    return find(
        organization=context.organization,
        vocabulary=context.vocabulary,
        constraints=constraints,
        store=context.store,
        offset=offset,
        exclude_item_ids=tuple(exclude_item_ids),
        relax=relax,
        keep=keep,
    )


def get_product(context: ToolContext, *, product: Product) -> tuple[dict[str, Any], list[Product]]:
    variants = variants_of(product)
    response: dict[str, Any] = {"product": product_summary(product)}
    if product.description:
        response["product"]["description"] = product.description
    if len(variants) > 1:
        response["variants"] = [
            {
                "gtin": v.gtin or v.item_id,
                **{
                    name: getattr(v, name)
                    for name in ("color", "size", "material")
                    if getattr(v, name)
                },
                "price": float(v.current_price),
                "availability": stock_of(v, None, None)[0],
            }
            for v in variants
        ]
    return response, variants


def compare_products(context: ToolContext, *, products: list[Product]) -> dict[str, Any]:
    summaries = [product_summary(p) for p in products]
    cheapest = min(products, key=lambda p: p.current_price)
    return {
        "products": summaries,
        "cheapest": cheapest.gtin or cheapest.item_id,
        "sameBrand": len({p.brand for p in products}) == 1,
        "sameCategory": len({p.category for p in products}) == 1,
    }


def check_availability(
    context: ToolContext, *, product: Product, store: Store | None
) -> tuple[dict[str, Any], list[StoreInventory]]:
    rows = list(
        StoreInventory.objects.filter(product=product)
        .select_related("store")
        .order_by("store__code")
    )
    status, quantity = stock_of(product, None, None)
    response: dict[str, Any] = {
        "gtin": product.gtin or product.item_id,
        "online": {"status": status, "quantity": quantity},
        "stores": [
            {
                "code": row.store.code,
                "name": row.store.name or row.store.code,
                "status": row.availability,
                "quantity": 0 if row.availability == "out_of_stock" else row.quantity,
                **({"location": row.location} if row.location else {}),
            }
            for row in rows
        ],
    }
    if store is not None:
        response["requestedStore"] = store.code
    return response, rows


# --- JSON-in, JSON-out form -----------------------------------------------------------------


def _decimal(value: Any, name: str) -> Decimal | None:
    if value is None:
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise ToolArgumentError(f"{name} must be a number") from None


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolArgumentError(f"{name} must be a list of strings")
    return tuple(value)


def constraints_from_json(args: dict[str, Any]) -> Constraints:
    """The reverse of `finding.constraints_json`: tool arguments to constraints."""
    query = args.get("query") or ""
    if not isinstance(query, str):
        raise ToolArgumentError("query must be a string")
    return Constraints(
        terms=tuple(query.split()),
        category=str(args.get("category") or ""),
        brands=_strings(args.get("brands"), "brands"),
        exclude_brands=_strings(args.get("excludeBrands"), "excludeBrands"),
        colors=_strings(args.get("colors"), "colors"),
        sizes=_strings(args.get("sizes"), "sizes"),
        materials=_strings(args.get("materials"), "materials"),
        genders=_strings(args.get("genders"), "genders"),
        age_groups=_strings(args.get("ageGroups"), "ageGroups"),
        min_price=_decimal(args.get("minPrice"), "minPrice"),
        max_price=_decimal(args.get("maxPrice"), "maxPrice"),
        around=_decimal(args.get("around"), "around"),
        in_stock=bool(args["inStock"]) if args.get("inStock") is not None else None,
        on_sale=bool(args["onSale"]) if args.get("onSale") is not None else None,
        sort=str(args.get("sort") or ""),
    )


def _one_product(context: ToolContext, args: dict[str, Any]) -> Product:
    gtin = args.get("gtin")
    if not isinstance(gtin, str) or not gtin:
        raise ToolArgumentError("gtin must be a non-empty string")
    found = products_by_gtin(context.organization, [gtin])
    if not found:
        raise ToolArgumentError(f"no product with gtin {gtin}")
    return found[0]


def tool_run(*, name: str, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """Runs one tool from JSON arguments; ToolArgumentError for bad ones."""
    if name == "get_page_context":
        return get_page_context(context, url=str(args.get("url") or context.current_url))[0]
    if name == "search_products":
        from knowledge.engines.catalog.snapshots import product_snapshot

        found = search_products(context, constraints=constraints_from_json(args))
        kept = found.products[: context.chatbot.max_products or 4]
        return found.tool_response([product_snapshot(product=p) for p in kept])
    if name == "get_product":
        return get_product(context, product=_one_product(context, args))[0]
    if name == "compare_products":
        gtins = _strings(args.get("gtins"), "gtins")
        products = products_by_gtin(context.organization, list(gtins))
        if len(products) < 2:
            raise ToolArgumentError("compare_products needs at least two known gtins")
        return compare_products(context, products=products)
    if name == "check_availability":
        return check_availability(
            context, product=_one_product(context, args), store=context.store
        )[0]
    raise ToolArgumentError(f"unknown tool {name}")


__all__ = ["ToolArgumentError", "ToolContext", "constraints_json", "tool_context_from", "tool_run"]
